import functools
import jax
import jax.numpy as jnp
from jax import lax


def fill(buf, xs):
    for i in range(3):
        buf = buf.at[i].set(xs[i])
    return buf


def body(i, carry):
    return fill(carry, carry)


def run(xs):
    return lax.fori_loop(0, 2, body, xs)


def step(n, state):
    buf = state
    for i in range(n):
        buf = buf.at[i].set(1.0)
    return buf


def run2(xs):
    return lax.while_loop(lambda s: s.sum() < 10, functools.partial(step, 3), xs)


def per_row(x):
    out = jnp.zeros(6)
    for i in range(6):
        out = out.at[i].set(x[i] * 2)
    return out


batched = jax.vmap(per_row)


def eager(xs):
    out = jnp.zeros(6)
    for i in range(6):
        out = out.at[i].set(xs[i])
    return out
