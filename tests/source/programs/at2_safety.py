"""Issue-12 classes of AT201/AT204 fixes that changed results, and two shapes the fix now handles:
run before and after `autota fix` by tests/source/test_loop_model.py."""

from typing import NamedTuple
import jax
import jax.numpy as jnp
from jax import lax


def tuple_row(xs):
    def body(i, buf):
        buf = buf.at[i].set((xs[i, 0], xs[i, 1]))
        return buf

    buf = lax.fori_loop(0, xs.shape[0], body, jnp.zeros((xs.shape[0], 2)))
    return buf


def named_big_int(xs):
    def body(i, buf):
        v = 2**40
        buf = buf.at[i].set(v)
        return buf

    buf = lax.fori_loop(0, xs.shape[0], body, jnp.zeros(xs.shape[0]))
    return buf


def walrus_index(xs):
    def body(i, buf):
        return jnp.where(i > 0, buf.at[(k := i)].set(1.0), buf)

    return lax.fori_loop(0, xs.shape[0], body, jnp.zeros(xs.shape[0]))


def uint32_row(xs):
    def body(i, buf):
        return jnp.where(i > 0, buf.at[i].set(4294967295), buf)

    return lax.fori_loop(0, xs.shape[0], body, jnp.zeros(xs.shape[0], jnp.uint32))


class Sizes(NamedTuple):
    size: jax.Array


def vector_predicate(xs):
    sz = Sizes(jnp.arange(xs.shape[0]))

    def body(i, buf):
        return jnp.where(i < sz.size, buf.at[i].set(1.0), buf)

    return lax.fori_loop(0, xs.shape[0], body, jnp.zeros(xs.shape[0]))


class Field(NamedTuple):
    size: jax.Array


def int8_size(xs):
    f = Field(jnp.int8(100))

    def body(i, buf):
        buf = buf.at[i].set(xs[i] + i * 2)
        return buf

    buf = lax.fori_loop(0, f.size, body, jnp.zeros((200,)))
    return buf


def write_in_return(xs, h0):
    def step(carry, x):
        h, buf, t = carry
        h = jnp.tanh(h + x)
        return (h, buf.at[t].set(h), t + 1), None

    (h, hs, _), _ = lax.scan(step, (h0, jnp.zeros((xs.shape[0],) + h0.shape), 0), xs)
    return h, hs


def ret_fori(xs, h0):
    def step(i, carry):
        h, buf = carry
        h = jnp.tanh(h + xs[i])
        return h, buf.at[i].set(h)

    h, buf = lax.fori_loop(0, xs.shape[0], step, (h0, jnp.zeros_like(xs)))
    return h, buf
