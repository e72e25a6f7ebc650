"""``jit(grad)`` of programs written the way Flax, Equinox and optax users write them, before and
after ``autota.transform``: run time and XLA temp memory, measured side by side.

    python benchmarks/real_programs.py [T ...]        (default: 256 1024)

The programs (written here, in the shapes those libraries give programs, not their code):

* ``linen rnn``: a Flax linen module whose ``__call__`` runs a ``fori_loop`` over time and
  writes each hidden state into a preallocated buffer (AT201);
* ``nnx rnn``: the same as a Flax NNX module, differentiated through ``nnx.split`` and
  ``nnx.merge`` (AT201);
* ``equinox gru``: an ``eqx.nn.GRUCell`` unrolled by ``fori_loop`` into a buffer (AT201);
* ``optax unroll``: a meta-gradient through T steps of ``optax.adam`` that records the loss
  and the parameters of every step in buffers (AT201);
* ``kalman``: a Kalman filter that writes filtered means and covariances per step (AT201);
* ``vmap cond``: a per-example ``lax.cond`` around the write, under ``vmap`` (AT204);
* ``checkpoint``: ``jax.checkpoint`` around the whole step (AT201 after lifting the write).

Each row: the median seconds of ``jit(grad)`` per call and its temp bytes from
``compiled.memory_analysis()``, for plain JAX and for ``transform``, timed in alternation, and
the ratios (above 1: autota is faster / smaller).
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import autota
from autota.proof.timing import side_by_side

H = 32  # hidden size
B = 8  # batch for the vmapped program


def _key(i):
    return jax.random.key(i)


def linen_rnn():
    import flax.linen as nn

    class RNN(nn.Module):
        @nn.compact
        def __call__(self, xs):
            cell = nn.Dense(H)

            def body(t, c):
                h, buf = c
                h = jnp.tanh(cell(h) + xs[t])
                return h, buf.at[t].set(h)

            # nn.Dense inside a fori_loop body: params must exist before the loop traces it
            cell(jnp.zeros(H))
            return lax.fori_loop(0, xs.shape[0], body, (jnp.zeros(H), jnp.zeros((xs.shape[0], H))))[1]

    model = RNN()

    def make(T):
        xs = jax.random.normal(_key(0), (T, H))
        return model.init(_key(1), xs), xs

    def loss(params, xs):
        return jnp.sum(jnp.sin(model.apply(params, xs)))

    return loss, make


def nnx_rnn():
    from flax import nnx

    class RNN(nnx.Module):
        def __init__(self, rngs):
            self.cell = nnx.Linear(H, H, rngs=rngs)

        def __call__(self, xs):
            def body(t, c):
                h, buf = c
                h = jnp.tanh(self.cell(h) + xs[t])
                return h, buf.at[t].set(h)

            return lax.fori_loop(0, xs.shape[0], body, (jnp.zeros(H), jnp.zeros((xs.shape[0], H))))[1]

    graphdef, params = nnx.split(RNN(nnx.Rngs(0)))

    def make(T):
        return params, jax.random.normal(_key(0), (T, H))

    def loss(params, xs):
        return jnp.sum(jnp.sin(nnx.merge(graphdef, params)(xs)))

    return loss, make


def equinox_gru():
    import equinox as eqx

    params, static = eqx.partition(eqx.nn.GRUCell(H, H, key=_key(1)), eqx.is_array)

    def make(T):
        return params, jax.random.normal(_key(0), (T, H))

    def loss(params, xs):  # the array leaves are differentiated, as eqx.filter_grad does
        cell = eqx.combine(params, static)

        def body(t, c):
            h, buf = c
            h = cell(xs[t], h)
            return h, buf.at[t].set(h)

        hs = lax.fori_loop(0, xs.shape[0], body, (jnp.zeros(H), jnp.zeros((xs.shape[0], H))))[1]
        return jnp.sum(jnp.sin(hs))

    return loss, make


def optax_unroll():
    import optax

    opt = optax.scale_by_adam()

    def make(T):
        k1, k2 = jax.random.split(_key(0))
        return (jax.random.normal(k1, (H,)), jnp.full((T,), 1e-2)), jax.random.normal(k2, (64, H))

    def loss(meta, xs):
        """A meta-gradient: w.r.t. the initial weights and the per-step learning rates."""
        w0, lrs = meta
        T = lrs.shape[0]
        targets = jnp.sin(xs @ jnp.ones(H))

        def inner(w):
            return jnp.mean((xs @ w - targets) ** 2)

        def body(i, c):
            w, state, losses, ws = c
            value, g = jax.value_and_grad(inner)(w)
            updates, state = opt.update(g, state, w)
            w = optax.apply_updates(w, jax.tree_util.tree_map(lambda u: -lrs[i] * u, updates))
            return w, state, losses.at[i].set(value), ws.at[i].set(w)

        init = (w0, opt.init(w0), jnp.zeros(T), jnp.zeros((T, H)))
        _, _, losses, ws = lax.fori_loop(0, T, body, init)
        return jnp.sum(losses) + 1e-3 * jnp.sum(ws**2)

    return loss, make


def kalman():
    D = 8

    def make(T):
        k1, k2 = jax.random.split(_key(0))
        A = jnp.eye(D) * 0.95 + 0.01 * jax.random.normal(k1, (D, D))
        return (A, jnp.float32(0.1)), jax.random.normal(k2, (T, D))

    def loss(params, ys):
        A, r = params
        T = ys.shape[0]
        Q, R = 0.01 * jnp.eye(D), r * jnp.eye(D)

        def body(t, c):
            m, P, means, covs = c
            m, P = A @ m, A @ P @ A.T + Q
            S = P + R
            K = jnp.linalg.solve(S, P).T
            m = m + K @ (ys[t] - m)
            P = P - K @ S @ K.T
            return m, P, means.at[t].set(m), covs.at[t].set(P)

        init = (jnp.zeros(D), jnp.eye(D), jnp.zeros((T, D)), jnp.zeros((T, D, D)))
        _, _, means, covs = lax.fori_loop(0, T, body, init)
        return jnp.sum((means - ys) ** 2) + jnp.sum(jnp.diagonal(covs, axis1=1, axis2=2))

    return loss, make


def vmap_cond():
    def one(x):
        def body(t, buf):
            return lax.cond(x[t, 0] > 0, lambda b: b.at[t].set(jnp.sin(x[t])), lambda b: b, buf)

        return lax.fori_loop(0, x.shape[0], body, jnp.zeros((x.shape[0], H)))

    batched = jax.vmap(one)

    def make(T):
        return (jax.random.normal(_key(0), (B, T, H)),)

    def loss(xs):
        return jnp.sum(jnp.cos(batched(xs)))

    return loss, make


def checkpointed():
    def make(T):
        return jax.random.normal(_key(1), (H, H)) / np.sqrt(H), jax.random.normal(_key(0), (T, H))

    def loss(w, xs):
        @jax.checkpoint
        def body(t, c):
            h, buf = c
            h = jnp.tanh(h @ w + xs[t])
            return h, buf.at[t].set(h)

        hs = lax.fori_loop(0, xs.shape[0], body, (jnp.zeros(H), jnp.zeros((xs.shape[0], H))))[1]
        return jnp.sum(jnp.sin(hs))

    return loss, make


PROGRAMS = {
    "linen rnn": linen_rnn,
    "nnx rnn": nnx_rnn,
    "equinox gru": equinox_gru,
    "optax unroll": optax_unroll,
    "kalman": kalman,
    "vmap cond": vmap_cond,
    "checkpoint": checkpointed,
}


def main(sizes):
    mib = 2.0**20
    print(f"jax {jax.__version__}, {jax.default_backend()}; jit(grad), median of interleaved runs")
    print(
        f"{'program':<14} {'T':>6} {'jax s':>9} {'autota s':>9} {'time x':>7} "
        f"{'jax MiB':>9} {'autota MiB':>10} {'mem x':>7}  applied"
    )
    for name, build in PROGRAMS.items():
        loss, make = build()
        for T in sizes:
            args = make(T)
            new = autota.transform(loss)
            applied = sorted({f.code for f in autota.analyze(loss, *args) if f.applied})
            fns = {"jax": jax.grad(loss), "autota": jax.grad(new)}
            res = side_by_side(fns, args, repeats=5)
            (t0, m0), (t1, m1) = res["jax"], res["autota"]
            print(
                f"{name:<14} {T:>6} {t0:>9.4f} {t1:>9.4f} {t0 / t1:>7.2f} "
                f"{m0 / mib:>9.2f} {m1 / mib:>10.2f} {m0 / max(m1, 1):>7.2f}  {','.join(applied) or '-'}",
                flush=True,
            )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [256, 1024])
