"""Corners of ``transform``'s calling convention met in real programs."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import autota


def fill(x, n):
    return lax.fori_loop(0, n, lambda t, b: b.at[t].set(jnp.sin(x[t])), jnp.zeros((n, x.shape[1])))


def test_non_array_output_leaves_come_back_as_returned():
    def f(x):
        return {"buf": fill(x, x.shape[0]), "lr": 0.5, "steps": 3, "name": "rnn", "none": None}

    x = jnp.ones((4, 2))
    out = autota.transform(f)(x)
    assert out["lr"] == 0.5 and type(out["lr"]) is float
    assert out["steps"] == 3 and type(out["steps"]) is int
    assert out["name"] == "rnn" and out["none"] is None
    np.testing.assert_array_equal(out["buf"], f(x)["buf"])
    assert jax.jit(lambda x: autota.transform(f)(x)["buf"])(x).shape == (4, 2)
    report = autota.verify(f, x)
    assert report, report


def test_compare_and_measure_pass_static_argnums_to_a_transformed_function():
    new = autota.transform(fill)
    c = autota.compare(
        fill, new, lambda T: (jnp.ones((T, 2)), T), sizes=(4, 8), static_argnums=(1,), repeats=1, min_time=1e-4,
    )
    assert all(r is not None and r > 0 for r in c.ratios("grad"))
    m = autota.measure(new, lambda T: (jnp.ones((T, 2)), T), sizes=(4, 8), static_argnums=(1,), repeats=1, min_time=1e-4)
    assert len(m.points) == 4


def test_a_loop_of_no_steps_is_left_alone_and_says_so():
    def f(h0):
        def step(t, c):
            h, buf = c
            h = jnp.tanh(h + t)
            return h, buf.at[t].set(h)

        return lax.fori_loop(0, 0, step, (h0, jnp.zeros((4, 3))))[1]

    h0 = jnp.ones(3)
    (finding,) = autota.analyze(f, h0)
    assert finding.code == "AT201" and not finding.applied
    assert finding.reason.startswith("the loop runs no steps")
    np.testing.assert_array_equal(jax.jit(autota.transform(f))(h0), f(h0))
