"""Generated loop programs: the transform changes no value and no gradient."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from jax import lax

from autota.jaxpr import analyze, transform

F = 2

buffer_spec = st.fixed_dictionaries(
    {
        "offset": st.integers(0, 2),
        "slack": st.integers(0, 2),
        "axis": st.sampled_from([0, 1]),
        "dtype": st.sampled_from(["float32", "bfloat16"]),
        "api": st.sampled_from(["at_set", "dynamic_update_index"]),
        "descending": st.booleans(),
    }
)

program_spec = st.fixed_dictionaries(
    {
        "T": st.sampled_from([0, 1, 2, 5]),
        "buffers": st.lists(buffer_spec, min_size=1, max_size=3),
        "reverse": st.booleans(),
        "index_from": st.sampled_from(["counter", "arange"]),
        "dict_carry": st.booleans(),
    }
)


def build(spec):
    T = spec["T"]

    def fn(x):
        def body(carry, xs):
            t_x, xt = xs
            state = carry["state"]
            t = carry["i"] if spec["index_from"] == "counter" else t_x
            h = jnp.tanh(state["h"] + xt)
            bufs = []
            for b, buf in zip(spec["buffers"], carry["bufs"]):
                slot = (T - 1 - t if b["descending"] else t) + b["offset"]
                value = (h * 2.0).astype(jnp.float32)
                if b["api"] == "at_set":
                    index = (slot,) if b["axis"] == 0 else (slice(None), slot)
                    bufs.append(buf.at[index].set(value))
                else:
                    bufs.append(lax.dynamic_update_index_in_dim(buf, value.astype(buf.dtype), slot, b["axis"]))
            new_state = {"h": h, "n": state["n"] + 1} if spec["dict_carry"] else {"h": h}
            return {"i": carry["i"] + 1, "state": new_state, "bufs": bufs}, h.sum()

        bufs = []
        for b in spec["buffers"]:
            size = T + b["offset"] + b["slack"]
            shape = (size, F) if b["axis"] == 0 else (F, size)
            bufs.append(jnp.full(shape, 0.5, b["dtype"]))
        state = {"h": jnp.zeros(F), "n": jnp.int32(0)} if spec["dict_carry"] else {"h": jnp.zeros(F)}
        init = {"i": 0, "state": state, "bufs": bufs}
        return lax.scan(body, init, (jnp.arange(T), x), reverse=spec["reverse"])

    return fn


def loss(fn):
    return lambda x: sum(
        jnp.sum(jnp.sin(leaf.astype(jnp.float32)))
        for leaf in jax.tree_util.tree_leaves(fn(x))
        if jnp.issubdtype(leaf.dtype, jnp.floating)
    )


@settings(max_examples=12, deadline=None)
@given(program_spec)
def test_generated_loops(spec):
    fn = build(spec)
    x = jax.random.normal(jax.random.key(spec["T"]), (spec["T"], F))
    try:
        jax.eval_shape(fn, x)
    except (IndexError, TypeError):  # e.g. indexing an empty array when T = 0
        assume(False)
    new = transform(fn)
    a, b = fn(x), jax.jit(new)(x)
    assert jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)
    for u, v in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        assert u.dtype == v.dtype and u.shape == v.shape
        np.testing.assert_array_equal(np.asarray(u, np.float64), np.asarray(v, np.float64))
    ga, gb = jax.grad(loss(fn))(x), jax.jit(jax.grad(loss(new)))(x)
    np.testing.assert_allclose(ga, gb, rtol=1e-5, atol=1e-6)
    # every buffer is proven safe (counter from 0, slot in range, written every step)
    if spec["T"] >= 1:
        applied = [f for f in analyze(fn, x) if f.code == "AT201"]
        assert len(applied) == len(spec["buffers"]) and all(f.applied for f in applied), applied
