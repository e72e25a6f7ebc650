"""XLA temp memory and run time of ``jit(grad(loss))`` for loops that read their own buffer.

Two loop bodies read the buffer they fill (B=8, F=64): a masked mean over the past outputs and
a softmax attention over them. Each runs as plain JAX, after ``autota.transform(...,
rules=["AT2"])`` (which selects the opt-in write-once rewrite, AT203), and, for the mean, as an
O(T) hand formulation carrying a running sum.

Run as ``python benchmarks/write_once_memory.py [T ...]`` (default 128 256 512 1024). Prints one
row per case and T, the ratios, then the fitted memory and time exponents (slope of log against
log T between the smallest and largest T).
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from autota.proof.timing import side_by_side
from autota.jaxpr import transform

B, F = 8, 64


def mean_over_past(x, w):
    T = x.shape[0]

    def body(t, c):
        h, out = c
        seen = (jnp.arange(T) < t)[:, None, None]
        past = jnp.sum(jnp.where(seen, out, 0.0), 0) / jnp.maximum(t, 1)
        h = jnp.tanh(h @ w + x[t] + past)
        return h, out.at[t].set(h)

    return lax.fori_loop(0, T, body, (jnp.zeros((B, F)), jnp.zeros((T, B, F))))[1]


def attention_over_past(x, w):
    T = x.shape[0]

    def body(t, c):
        h, out = c
        seen = (jnp.arange(T) <= t)[:, None]
        scores = jnp.where(seen, jnp.einsum("bf,tbf->tb", h @ w, out) / np.sqrt(F), -jnp.inf)
        p = jax.nn.softmax(scores, axis=0)
        context = jnp.einsum("tb,tbf->bf", p, out)
        h = jnp.tanh(h + x[t] + context)
        return h, out.at[t].set(h)

    return lax.fori_loop(0, T, body, (jnp.zeros((B, F)), jnp.zeros((T, B, F))))[1]


def running_sum(x, w):
    """The mean case written by hand in O(T): carry the sum of the past outputs."""

    def body(c, xt):
        h, total, t = c
        h = jnp.tanh(h @ w + xt + total / jnp.maximum(t, 1))
        return (h, total + h, t + 1), h

    return lax.scan(body, (jnp.zeros((B, F)), jnp.zeros((B, F)), 0), x)[1]


def loss(fn):
    return lambda x, w: jnp.sum(jnp.sin(fn(x, w)))


def variants(fn):
    out = {
        "jax": jax.jit(jax.grad(loss(fn), argnums=(0, 1))),
        "autota": jax.jit(jax.grad(loss(transform(fn, rules=["AT2"])), argnums=(0, 1))),
    }
    if fn is mean_over_past:
        out["hand O(T)"] = jax.jit(jax.grad(loss(running_sum), argnums=(0, 1)))
    return out


def args_for(T):
    kx, kw = jax.random.split(jax.random.key(0))
    return jax.random.normal(kx, (T, B, F)) * 0.5, jax.random.normal(kw, (F, F)) / np.sqrt(F)


def main(sizes):
    mib = 2.0**20
    for fn in (mean_over_past, attention_over_past):
        rows = {}
        print(f"\n{fn.__name__} (B={B}, F={F})")
        print(f"{'T':>6} {'variant':>10} {'temp MiB':>10} {'seconds':>9} {'mem x':>8} {'time x':>8}")
        for T in sizes:
            args = args_for(T)
            fns = variants(fn)
            results = {name: (mem, sec) for name, (sec, mem) in side_by_side(fns, args, repeats=3).items()}
            base_mem, base_time = results["jax"]
            for name, (mem, sec) in results.items():
                rows.setdefault(name, []).append((T, mem, sec))
                print(
                    f"{T:>6} {name:>10} {mem / mib:>10.2f} {sec:>9.4f} "
                    f"{base_mem / max(mem, 1):>8.1f} {base_time / sec:>8.2f}"
                )
            if "hand O(T)" in results:
                hand_mem, hand_time = results["hand O(T)"]
                mem, sec = results["autota"]
                print(f"{'':>6} autota / hand O(T): memory {mem / max(hand_mem, 1):.2f}x, time {sec / hand_time:.2f}x")
        print("exponents (log-log slope, smallest to largest T):")
        for name, pts in rows.items():
            (t0, m0, s0), (t1, m1, s1) = pts[0], pts[-1]
            span = np.log(t1 / t0) if t1 != t0 else np.nan
            print(f"  {name:>10}: memory {np.log(m1 / m0) / span:.2f}, time {np.log(s1 / s0) / span:.2f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [128, 256, 512, 1024])
