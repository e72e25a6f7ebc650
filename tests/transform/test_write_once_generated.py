"""Generated read-back loops: the write-once rewrite changes no value and no gradient."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from jax import lax

from autota.jaxpr import analyze, transform

F = 2

spec = st.fixed_dictionaries(
    {
        "T": st.sampled_from([1, 3]),
        "stride": st.sampled_from([1, -1, 2]),
        "offset": st.integers(0, 2),
        "slack": st.integers(0, 1),
        "axis": st.sampled_from([0, 1]),
        "api": st.sampled_from(["at_set", "dynamic_update_index"]),
        "read": st.sampled_from(["masked_mean", "sum", "attention", "past_slot", "nonlinear"]),
        "reverse": st.booleans(),
        "index_from": st.sampled_from(["counter", "arange"]),
    }
)


def build(s):
    T, stride, off = s["T"], s["stride"], s["offset"]
    size = (2 * (T - 1) if stride == 2 else T - 1) + off + 1 + s["slack"]

    def slot_of(t):
        return (T - 1 - t if stride == -1 else stride * t) + off

    def fn(x):
        def body(carry, xs):
            t_x, xt = xs
            t = carry["i"] if s["index_from"] == "counter" else t_x
            h, buf = carry["h"], carry["buf"]
            slot = slot_of(t)
            rows = buf if s["axis"] == 0 else buf.T  # [size, F]
            if s["read"] == "masked_mean":
                seen = (jnp.arange(size) < slot)[:, None]
                read = jnp.sum(jnp.where(seen, rows, 0.0), 0) / jnp.maximum(slot, 1)
            elif s["read"] == "sum":
                read = rows.sum(0) * 0.3
            elif s["read"] == "attention":
                scores = jnp.where(jnp.arange(size) != slot, rows @ h, -1e9)
                read = jax.nn.softmax(scores) @ rows
            elif s["read"] == "past_slot":
                read = lax.dynamic_index_in_dim(rows, jnp.clip(slot - stride, 0, size - 1), 0, keepdims=False)
            else:
                read = jnp.sum(jnp.tanh(rows) ** 2, 0)
            h = jnp.tanh(h * 0.7 + xt + read)
            value = h * 2.0
            if s["api"] == "at_set":
                buf = buf.at[(slot,) if s["axis"] == 0 else (slice(None), slot)].set(value)
            else:
                buf = lax.dynamic_update_index_in_dim(buf, value, slot, s["axis"])
            return {"i": carry["i"] + 1, "h": h, "buf": buf}, h.sum()

        shape = (size, F) if s["axis"] == 0 else (F, size)
        init = {"i": 0, "h": jnp.zeros(F), "buf": jnp.full(shape, 0.5)}
        return lax.scan(body, init, (jnp.arange(T), x), reverse=s["reverse"])

    return fn


def loss(fn):
    return lambda x: sum(
        jnp.sum(jnp.sin(leaf)) for leaf in jax.tree_util.tree_leaves(fn(x)) if jnp.issubdtype(leaf.dtype, jnp.floating)
    )


@settings(max_examples=6, deadline=None)
@given(spec)
def test_generated_read_back_loops(s):
    fn = build(s)
    x = jax.random.normal(jax.random.key(s["T"]), (s["T"], F), jnp.float32)
    new = transform(fn, rules=["AT2"])
    findings = analyze(new, x)
    assert any(f.code == "AT203" and f.applied for f in findings), (s, findings)
    # like for like: XLA may fuse (and round) differently under jit than op by op
    for u, v in zip(jax.tree_util.tree_leaves(jax.jit(fn)(x)), jax.tree_util.tree_leaves(jax.jit(new)(x))):
        np.testing.assert_array_equal(np.asarray(u), np.asarray(v))
    ga, gb = jax.grad(loss(fn))(x), jax.jit(jax.grad(loss(new)))(x)
    np.testing.assert_allclose(np.asarray(ga), np.asarray(gb), rtol=1e-5, atol=1e-6)
