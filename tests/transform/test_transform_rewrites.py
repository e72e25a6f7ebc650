"""Every rewrite computes what the original computes, under jit, grad and vmap."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autota
from autota.jaxpr import TransformError, analyze, transform
from autota.jaxpr import jaxcompat as jc
from tests.transform import transform_programs as P


def assert_same(a, b, exact=True):
    assert jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)
    for u, v in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        assert u.shape == v.shape and u.dtype == v.dtype
        if exact:
            np.testing.assert_array_equal(np.asarray(u, np.float64), np.asarray(v, np.float64))
        else:
            np.testing.assert_allclose(np.asarray(u, np.float64), np.asarray(v, np.float64), rtol=1e-5, atol=1e-6)


def loss(fn):
    def inner(x):
        return sum(jnp.sum(jnp.sin(leaf.astype(jnp.float32))) for leaf in jax.tree_util.tree_leaves(fn(x)))
    return inner


def grad_works(fn, x):
    try:
        jax.grad(loss(fn))(x)
        return True
    except Exception:
        return False


ALL = {**{k: v[0] for k, v in P.REWRITTEN.items()}, **{k: v[0] for k, v in P.LEFT_ALONE.items()}}


@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("T", [0, 1, 5])
def test_same_values_and_gradients(name, T):
    fn = ALL[name]
    x = P.data(T)
    try:
        jax.eval_shape(fn, x)
    except Exception:
        pytest.skip("the original program does not run at this size")
    new = transform(fn)
    assert_same(fn(x), jax.jit(new)(x))
    if grad_works(fn, x):
        assert_same(jax.grad(loss(fn))(x), jax.jit(jax.grad(loss(new)))(x), exact=False)
    if T == 5:
        assert_same(fn(x), new(x))
        xs = jnp.stack([x, x + 1.0])
        assert_same(jax.vmap(fn)(xs), jax.jit(jax.vmap(new))(xs))


@pytest.mark.parametrize("name", sorted(P.REWRITTEN))
def test_rewritten_and_reported(name):
    fn, code = P.REWRITTEN[name]
    x = P.data(4)
    findings = analyze(fn, x)
    assert any(f.code == code and f.applied for f in findings), findings
    for f in findings:
        assert f.name == autota.catalogue.get(f.code).name if hasattr(autota, "catalogue") else True


@pytest.mark.parametrize("name", sorted(P.LEFT_ALONE))
def test_left_alone_and_reported(name):
    fn, code, why = P.LEFT_ALONE[name]
    x = P.data(4)
    findings = analyze(fn, x)
    assert any(f.code == code and not f.applied and why in f.reason for f in findings), findings
    assert not any(f.applied for f in findings if f.code in ("AT201", "AT202")), findings


def _scan_carry_shapes(jaxpr):
    shapes = []
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "scan":
            sp = jc.scan_params(eqn.params)
            n0, n1 = sp.num_consts, sp.num_carry
            shapes += [tuple(v.aval.shape) for v in eqn.invars[n0 : n0 + n1]]
    return shapes


def test_buffer_leaves_the_carry():
    x = P.data(6)
    before = jax.make_jaxpr(P.rnn_fori)(x)
    after = jax.make_jaxpr(transform(P.rnn_fori))(x)
    assert (6, P.F) in _scan_carry_shapes(before.jaxpr)
    assert (6, P.F) not in _scan_carry_shapes(after.jaxpr)
    after_while = jax.make_jaxpr(transform(P.static_while))(x)
    names = {e.primitive.name for e in after_while.jaxpr.eqns}
    assert "while" not in names and "scan" in names
    assert (6, P.F) not in _scan_carry_shapes(after_while.jaxpr)


def test_static_while_gets_a_gradient():
    x = P.data(5)
    with pytest.raises(Exception):
        jax.grad(loss(P.static_while))(x)
    g = jax.grad(loss(transform(P.static_while)))(x)
    # against the same program written as a fori_loop (a scan), which JAX can differentiate
    def as_fori(x):
        def body(i, c):
            h, buf = c
            h = jnp.cos(h) + x[i]
            return h, buf.at[i].set(h)
        return jax.lax.fori_loop(0, 5, body, (jnp.zeros(P.F), jnp.zeros((5, P.F))))
    assert_same(g, jax.grad(loss(as_fori))(x), exact=False)


def test_concat_chain_is_one_op():
    x = P.data(6)
    after = jax.make_jaxpr(transform(P.concat_growth))(x)
    assert sum(e.primitive.name == "concatenate" for e in after.jaxpr.eqns) == 1


def test_batched_select_inside_vmap():
    p = jnp.array([0, 3, 6])
    x = jnp.stack([P.data(6, seed=i) for i in range(3)])
    fn = jax.vmap(P.batched_select)
    new = transform(fn)
    assert_same(fn(p, x), new(p, x))
    gx = lambda f: jax.grad(lambda x: jnp.sum(jnp.sin(f(p, x))))(x)
    assert_same(gx(fn), gx(new), exact=False)
    findings = analyze(fn, p, x)
    assert any(f.code == "AT204" and f.applied for f in findings), findings
    after = jax.make_jaxpr(new)(p, x)
    body = next(e for e in after.jaxpr.eqns if e.primitive.name == "scan").params["jaxpr"].jaxpr
    big = [e for e in body.eqns if e.primitive.name == "select_n" and e.outvars[0].aval.shape == (3, 6, P.F)]
    assert not big


def test_jit_grad_vmap_orders():
    x = P.data(5)
    xs = jnp.stack([x, -x])
    fn, new = P.rnn_fori, transform(P.rnn_fori)
    ref = jax.vmap(jax.grad(loss(fn)))(xs)
    assert_same(ref, jax.jit(jax.vmap(jax.grad(loss(new))))(xs), exact=False)
    assert_same(ref, jax.vmap(jax.jit(jax.grad(loss(new))))(xs), exact=False)
    assert_same(ref, transform(jax.vmap(jax.grad(loss(fn))))(xs), exact=False)
    assert_same(ref, jax.jit(transform(jax.jit(jax.vmap(jax.grad(loss(fn))))))(xs), exact=False)


def test_cache_per_signature():
    new = transform(P.rnn_fori)
    new(P.data(3)); new(P.data(3, seed=1)); new(P.data(4))
    assert len(new.__autota_traced__.cache) == 2


def test_static_args_and_kwargs():
    def f(x, n, *, scale):
        return jax.lax.fori_loop(0, n, lambda t, b: b.at[t].set(x[t] * scale), jnp.zeros((n, P.F)))
    new = transform(f, static_argnums=1)
    x = P.data(4)
    assert_same(f(x, 4, scale=2.0), new(x, 4, scale=2.0))
    assert any(f_.applied for f_ in analyze(new, x, 4, scale=2.0))


def test_bad_input_raises_transform_error():
    def branchy(x):
        return x if x.sum() > 0 else -x

    def reshaped(x):
        return x.reshape(-1, 7)
    # the function's own error, of its own type, as `jax.jit` raises it (review 45 R5)
    for f in (branchy, reshaped):
        with pytest.raises(Exception) as expected:
            jax.jit(f)(P.data(3))
        with pytest.raises(type(expected.value)) as raised:
            transform(f)(P.data(3))
        assert not isinstance(raised.value, TransformError)
    with pytest.raises(TransformError):
        analyze(lambda x, d: x, P.data(3), bytearray(b"unhashable"))
    with pytest.raises(TransformError):
        transform(lambda x: x, rules=["XX9"])


def test_rules_selection():
    x = P.data(4)
    assert analyze(transform(P.rnn_fori, rules=["AT101"]), x) == []
    assert analyze(transform(P.rnn_fori, rules=["AT2"]), x)


def test_explain_text():
    text = autota.explain(P.reads_buffer, P.data(4))
    assert "AT203" in text and "left alone" in text
