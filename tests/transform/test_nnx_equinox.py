"""Flax NNX and Equinox modules as ``transform``'s arguments, with the real libraries.

NNX modules are mutable: their Variable updates (a counter, BatchNorm statistics, the counts
of an ``nnx.Rngs`` that dropout draws from) must survive ``transform`` exactly as they survive
``nnx.jit``. Equinox modules are immutable pytrees and must keep working under ``filter_jit``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import autota

nnx = pytest.importorskip("flax.nnx")
eqx = pytest.importorskip("equinox")

T, F = 6, 4


class Stepper(nnx.Module):
    """A recurrent cell that writes its states into a buffer and counts its calls."""

    def __init__(self, rngs):
        self.cell = nnx.Linear(F, F, rngs=rngs)
        self.calls = nnx.Variable(jnp.array(0, jnp.int32))

    def __call__(self, xs):
        self.calls[...] += 1

        def body(t, c):
            h, buf = c
            h = jnp.tanh(self.cell(h) + xs[t])
            return h, buf.at[t].set(h)

        return lax.fori_loop(0, xs.shape[0], body, (jnp.zeros(F), jnp.zeros((xs.shape[0], F))))[1]


class NormedDropout(nnx.Module):
    def __init__(self, rngs):
        self.lin = nnx.Linear(F, F, rngs=rngs)
        self.bn = nnx.BatchNorm(F, rngs=rngs)
        self.drop = nnx.Dropout(0.5, rngs=rngs)

    def __call__(self, xs):
        return self.drop(self.bn(self.lin(xs)))


def run(m, xs):
    return m(xs)


def data(seed=0, shape=(T, F)):
    return jax.random.normal(jax.random.key(seed), shape)


def state_leaves(m):
    return jax.tree_util.tree_leaves(nnx.state(m))


def assert_states_equal(a, b):
    for u, v in zip(state_leaves(a), state_leaves(b), strict=True):
        if jnp.issubdtype(u.dtype, jax.dtypes.prng_key):
            u, v = jax.random.key_data(u), jax.random.key_data(v)
        np.testing.assert_array_equal(np.asarray(u), np.asarray(v))


@pytest.mark.parametrize("outer", ["eager", "nnx.jit"])
def test_counter_updates_and_the_loop_is_rewritten(outer):
    ref, new = Stepper(nnx.Rngs(0)), Stepper(nnx.Rngs(0))
    wrap = nnx.jit if outer == "nnx.jit" else (lambda f: f)
    f_ref, f_new = wrap(run), wrap(autota.transform(run))
    xs = data()
    for _ in range(3):
        np.testing.assert_allclose(f_ref(ref, xs), f_new(new, xs), rtol=1e-6)
    assert int(new.calls[...]) == int(ref.calls[...]) == 3
    assert_states_equal(ref, new)
    assert any(f.code == "AT201" and f.applied for f in autota.analyze(run, Stepper(nnx.Rngs(0)), xs))


@pytest.mark.parametrize("outer", ["eager", "nnx.jit"])
def test_batchnorm_statistics_and_dropout_rng_advance(outer):
    ref, new = NormedDropout(nnx.Rngs(0)), NormedDropout(nnx.Rngs(0))
    wrap = nnx.jit if outer == "nnx.jit" else (lambda f: f)
    f_ref, f_new = wrap(run), wrap(autota.transform(run))
    outs = []
    for seed in range(3):
        xs = data(seed, (8, F))
        a, b = f_ref(ref, xs), f_new(new, xs)
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
        outs.append(b)
    assert not np.allclose(outs[0], outs[1])  # the dropout mask changed: the RNG count advanced
    assert float(jnp.abs(new.bn.mean[...]).sum()) > 0  # running statistics moved off zero
    assert_states_equal(ref, new)


def test_shared_module_passed_twice_stays_shared():
    m = Stepper(nnx.Rngs(0))

    def twice(a, b, xs):
        return a(xs) + b(xs)

    out = autota.transform(twice)(m, m, data())
    assert int(m.calls[...]) == 2
    assert out.shape == (T, F)


def test_nnx_grad_through_transform():
    m = Stepper(nnx.Rngs(0))
    xs = data()

    def loss(model, xs):
        return jnp.sum(jnp.sin(model(xs)))

    g_ref = nnx.grad(loss)(Stepper(nnx.Rngs(0)), xs)
    g_new = nnx.grad(autota.transform(loss))(m, xs)
    for u, v in zip(jax.tree_util.tree_leaves(g_ref), jax.tree_util.tree_leaves(g_new), strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)


class EqxStepper(eqx.Module):
    cell: eqx.nn.Linear
    activation: object = eqx.field(static=True, default=jnp.tanh)

    def __call__(self, xs):
        def body(t, c):
            h, buf = c
            h = self.activation(self.cell(h) + xs[t])
            return h, buf.at[t].set(h)

        return lax.fori_loop(0, xs.shape[0], body, (jnp.zeros(F), jnp.zeros((xs.shape[0], F))))[1]


def test_equinox_module_under_filter_jit_and_grad():
    m = EqxStepper(eqx.nn.Linear(F, F, key=jax.random.key(1)))
    xs = data()
    ref = eqx.filter_jit(run)(m, xs)
    new_fn = eqx.filter_jit(autota.transform(run))
    np.testing.assert_allclose(ref, new_fn(m, xs), rtol=1e-6)

    def loss(model, xs):
        return jnp.sum(jnp.sin(model(xs)))

    g_ref = eqx.filter_grad(loss)(m, xs)
    g_new = eqx.filter_jit(eqx.filter_grad(autota.transform(loss)))(m, xs)
    for u, v in zip(jax.tree_util.tree_leaves(g_ref), jax.tree_util.tree_leaves(g_new), strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)
    assert any(f.code == "AT201" and f.applied for f in autota.analyze(run, m, xs))
