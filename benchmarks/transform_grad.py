"""Run time of ``jit(grad(loss))``: a buffer carried through ``fori_loop`` against the same
program after ``autota.transform`` and against hand-written ``scan`` stacked outputs.

Run as ``python benchmarks/transform_grad.py [T ...]``. Prints one row per T with the ratios,
then the fitted run-time exponent of each variant (slope of log time against log T).
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import autota
from autota.proof.timing import side_by_side

B, F = 8, 64


def carried(x, w):
    T = x.shape[0]

    def body(t, c):
        h, buf = c
        h = jnp.tanh(h @ w + x[t])
        return h, buf.at[t].set(h)

    return lax.fori_loop(0, T, body, (jnp.zeros((B, F)), jnp.zeros((T, B, F))))[1]


def stacked(x, w):
    def body(h, xt):
        h = jnp.tanh(h @ w + xt)
        return h, h

    return lax.scan(body, jnp.zeros((B, F)), x)[1]


def loss(fn):
    return lambda x, w: jnp.sum(fn(x, w) ** 2)


def main(sizes):
    variants = {
        "original": jax.jit(jax.grad(loss(carried), argnums=(0, 1))),
        "transformed": jax.jit(jax.grad(loss(autota.transform(carried)), argnums=(0, 1))),
        "scan ys": jax.jit(jax.grad(loss(stacked), argnums=(0, 1))),
    }
    rows = {name: [] for name in variants}
    print(f"{'T':>6} {'original':>10} {'transformed':>12} {'scan ys':>10} {'orig/trans':>11} {'trans/ys':>9}")
    for T in sizes:
        key = jax.random.key(T)
        x = jax.random.normal(key, (T, B, F))
        w = jax.random.normal(jax.random.key(1), (F, F)) / np.sqrt(F)
        t = {name: sec for name, (sec, _) in side_by_side(variants, (x, w)).items()}
        for name in variants:
            rows[name].append(t[name])
        print(
            f"{T:>6} {t['original']:>10.4f} {t['transformed']:>12.4f} {t['scan ys']:>10.4f} "
            f"{t['original'] / t['transformed']:>11.1f} {t['transformed'] / t['scan ys']:>9.2f}"
        )
    logs = np.log(np.asarray(sizes, float))
    for name, times in rows.items():
        slope = np.polyfit(logs, np.log(times), 1)[0]
        print(f"run-time exponent {name}: {slope:.2f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [128, 256, 512, 1024, 2048])
