"""Loop programs shared by the transform tests: each returns (fn, args)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

F = 3


def data(T, seed=0, shape=None):
    return jax.random.normal(jax.random.key(seed), shape or (T, F), jnp.float32)


def rnn_fori(x):
    T = x.shape[0]

    def body(t, c):
        h, buf = c
        h = jnp.tanh(h * 0.5 + x[t])
        return h, buf.at[t].set(h)

    return lax.fori_loop(0, T, body, (jnp.zeros(F), jnp.ones((T, F))))


def scan_arange_offset(x):
    T = x.shape[0]

    def body(c, t):
        h, buf = c
        h = jnp.sin(h + x[t])
        return (h, lax.dynamic_update_index_in_dim(buf, h, t + 1, 0)), h.sum()

    (h, buf), ys = lax.scan(body, (jnp.zeros(F), jnp.full((T + 2, F), 7.0)), jnp.arange(T))
    return {"h": h, "buf": buf, "ys": ys}


def scan_reverse_two_buffers(x):
    T = x.shape[0]

    def body(c, xt):
        i, h, a, b = c
        h = h + xt
        a = a.at[i].set(h)
        b = lax.dynamic_update_slice(b, (2 * h)[:, None].astype(jnp.bfloat16), (0, T - 1 - i))
        return (i + 1, h, a, b), None

    init = (0, jnp.zeros(F), jnp.zeros((T, F)), jnp.zeros((F, T), jnp.bfloat16))
    (_, h, a, b), _ = lax.scan(body, init, x, reverse=True)
    return h, a, b


def cast_write(x):
    T = x.shape[0]

    def body(t, buf):
        return buf.at[t].set(x[t] * 3.0)  # float32 -> bfloat16 cast done by the write

    return lax.fori_loop(0, T, body, jnp.zeros((T, F), jnp.bfloat16))


def static_while(x):
    T = x.shape[0]

    def cond(c):
        return c[0] < T

    def body(c):
        i, h, buf = c
        h = jnp.cos(h) + x[i]
        return i + 1, h, buf.at[i].set(h)

    return lax.while_loop(cond, body, (0, jnp.zeros(F), jnp.zeros((T, F))))[1:]


def strided_while(x):
    T = x.shape[0]

    def cond(c):
        return c[0] < T

    def body(c):
        i, buf = c
        return i + 2, buf.at[i].set(x[i] * 2)

    return lax.while_loop(cond, body, (0, jnp.zeros((T, F))))[1]


def concat_growth(x):
    out = x[:0]
    for i in range(x.shape[0]):
        out = jnp.concatenate([out, jnp.sin(x[i : i + 1])])
    return out


def nested_in_cond_and_jit(x):
    T = x.shape[0]

    @jax.jit
    def inner(x):
        return lax.fori_loop(0, T, lambda t, b: b.at[t].set(x[t] ** 2), jnp.zeros((T, F)))

    return lax.cond(x.sum() > 0, inner, lambda x: x * 2, x)


def nested_scan_remat(x):
    T = x.shape[0]

    @jax.checkpoint
    def inner(row):
        return lax.fori_loop(0, F, lambda j, b: b.at[j].set(jnp.tanh(row[j])), jnp.zeros(F))

    def body(c, row):
        return c + 1, inner(row)

    return lax.scan(body, 0, x)[1]


# -- left alone -------------------------------------------------------------------------------


def data_dependent_index(x):
    T = x.shape[0]
    idx = jnp.argsort(x[:, 0])

    def body(t, buf):
        return buf.at[idx[t]].set(x[t])

    return lax.fori_loop(0, T, body, jnp.zeros((T, F)))


def reads_buffer(x):
    T = x.shape[0]

    def body(t, buf):
        return buf.at[t].set(x[t] + buf.sum(0) / T)

    return lax.fori_loop(0, T, body, jnp.zeros((T, F)))


def conditional_write(x):
    T = x.shape[0]

    def body(t, buf):
        return lax.cond(x[t, 0] > 0, lambda b: b.at[t].set(x[t]), lambda b: b, buf)

    return lax.fori_loop(0, T, body, jnp.zeros((T, F)))


def out_of_range(x):
    T = x.shape[0]

    def body(t, buf):
        return buf.at[t + 1].set(x[t])  # the last write is dropped

    return lax.fori_loop(0, T, body, jnp.zeros((T, F)))


def dynamic_while(x):
    def cond(c):
        return c[1].sum() < 10.0

    def body(c):
        i, s, buf = c
        return i + 1, s + jnp.abs(x[i % x.shape[0]]), buf.at[i % x.shape[0]].set(s)

    return lax.while_loop(cond, body, (0, jnp.zeros(F), jnp.zeros(x.shape)))[2]


def batched_select(p, x):
    """A per-example predicate: under vmap the write becomes select(p, write, buf)."""
    T = x.shape[0]

    def body(t, buf):
        return jnp.where(p > t, buf.at[t].set(x[t]), buf)

    return lax.fori_loop(0, T, body, jnp.zeros((T, F)))


REWRITTEN = {
    "rnn_fori": (rnn_fori, "AT201"),
    "scan_arange_offset": (scan_arange_offset, "AT201"),
    "scan_reverse_two_buffers": (scan_reverse_two_buffers, "AT201"),
    "cast_write": (cast_write, "AT201"),
    "static_while": (static_while, "AT202"),
    "strided_while": (strided_while, "AT202"),
    "concat_growth": (concat_growth, "AT101"),
    "nested_in_cond_and_jit": (nested_in_cond_and_jit, "AT201"),
    "nested_scan_remat": (nested_scan_remat, "AT201"),
}

LEFT_ALONE = {
    "data_dependent_index": (data_dependent_index, "AT201", "not affine"),
    "reads_buffer": (reads_buffer, "AT203", "reads the buffer"),
    "conditional_write": (conditional_write, "AT201", "do not all write the same slot"),
    "out_of_range": (out_of_range, "AT201", "range"),
    "dynamic_while": (dynamic_while, "AT202", "not static"),
}
