"""The transform reads the loop layouts of every supported JAX, rebuilds only what changed,
and is loud about what it cannot read (AT001), on whichever JAX this suite runs."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.extend.core import Primitive

from autota.jaxpr import TransformError, analyze, explain, transform
from autota.jaxpr import jaxcompat as jc


def _eqns(fn, *args, name):
    jaxpr = jax.make_jaxpr(fn)(*args)
    return [e for e in jaxpr.eqns if e.primitive.name == name]


def _three_groups(w, x):
    def body(carry, xt):
        h, buf, t = carry
        h = jnp.tanh(h * w + xt)
        return (h, buf.at[t].set(h), t + 1), h * 2.0

    return lax.scan(body, (x[0], jnp.zeros_like(x), 0), x)


def test_scan_params_are_read_on_this_jax():
    x = jnp.ones((5, 3))
    (eqn,) = _eqns(_three_groups, 2.0, x, name="scan")
    sp = jc.scan_params(eqn.params)
    # consts: w; carries: h, buf, t; xs: x (scan moves w, traced, into the consts)
    assert (sp.num_consts, sp.num_carry, sp.length, sp.reverse) == (1, 3, 5, False)
    assert len(eqn.invars) == sp.num_consts + sp.num_carry + 1
    assert len(eqn.outvars) == sp.num_carry + 1


@pytest.mark.parametrize("drop", ["layout", "jaxpr"])
def test_scan_params_without_a_known_layout_raise(drop):
    (eqn,) = _eqns(_three_groups, 2.0, jnp.ones((5, 3)), name="scan")
    layout = {"num_consts", "num_carry", "ft_in", "ft_out"} if drop == "layout" else {"jaxpr"}
    params = {k: v for k, v in eqn.params.items() if k not in layout}
    with pytest.raises(jc.UnknownLayout, match="scan"):
        jc.scan_params(params)


def _foreign_scan():
    """A real primitive that a future JAX might call ``scan``, laid out as no release is."""
    prim = Primitive("scan")
    prim.def_impl(lambda x, *, scale: x * scale)
    prim.def_abstract_eval(lambda x, *, scale: x)
    return lambda x: prim.bind(x, scale=2.0)


def test_an_unknown_layout_is_reported_and_passed_through():
    fn = _foreign_scan()
    x = jnp.arange(3.0)
    loose = transform(fn, strict=False)
    np.testing.assert_array_equal(loose(x), fn(x))
    findings = analyze(loose, x)
    (f,) = [f for f in findings if f.code == "AT001"]
    assert f.message.startswith(f"scan on jax {jax.__version__}:") and not f.applied
    assert "passed through" in str(f)
    assert "AT001" in explain(loose, x)


def test_strict_raises_on_an_unknown_layout(monkeypatch):
    fn, x = _foreign_scan(), jnp.arange(3.0)
    with pytest.raises(TransformError, match="AT001.*scan on jax"):
        transform(fn, strict=True)(x)
    monkeypatch.setenv("AUTOTA_STRICT", "1")
    with pytest.raises(TransformError, match="strict"):
        transform(fn)(x)
    monkeypatch.setenv("AUTOTA_STRICT", "0")
    np.testing.assert_array_equal(transform(fn)(x), fn(x))


def test_a_loop_inside_a_custom_vjp_is_reported():
    @jax.custom_vjp
    def fill(x):
        return lax.fori_loop(0, x.shape[0], lambda i, b: b.at[i].set(jnp.sin(x[i])), jnp.zeros_like(x))

    fill.defvjp(lambda x: (fill(x), x), lambda x, g: (g * jnp.cos(x),))
    x = jnp.linspace(0.0, 1.0, 4)
    loose = transform(fill, strict=False)
    np.testing.assert_array_equal(loose(x), fill(x))
    np.testing.assert_array_equal(jax.grad(lambda x: loose(x).sum())(x), jax.grad(lambda x: fill(x).sum())(x))
    findings = analyze(loose, x)
    assert any(f.code == "AT001" and "custom" in f.message for f in findings), findings
    assert not any(f.applied for f in findings)


@pytest.mark.parametrize("unroll", [3, True])
def test_a_loop_with_nothing_to_rewrite_is_bound_as_it_was(unroll):
    def running_sum(x):
        return lax.scan(lambda c, xt: (c + xt, c * xt), jnp.zeros(x.shape[1:]), x, unroll=unroll, reverse=True)

    x = jnp.arange(12.0).reshape(4, 3)
    (before,) = _eqns(running_sum, x, name="scan")
    (after,) = _eqns(transform(running_sum), x, name="scan")
    assert set(after.params) == set(before.params)
    for key, value in before.params.items():
        assert str(after.params[key]) == str(value), key


def test_a_nested_rewrite_keeps_the_outer_loop_params():
    def blocks(x):
        def outer(c, xb):
            buf = lax.fori_loop(0, xb.shape[0], lambda i, b: b.at[i].set(jnp.tanh(xb[i] + c)), jnp.zeros_like(xb))
            return c + buf.sum(), buf

        return lax.scan(outer, 0.0, x, unroll=2)

    x = jnp.linspace(0.0, 1.0, 24).reshape(2, 4, 3)
    new = transform(blocks)
    jaxpr = jax.make_jaxpr(new)(x)
    (outer,) = [e for e in jaxpr.eqns if e.primitive.name == "scan"]
    assert outer.params["unroll"] == 2 and outer.params["length"] == 2
    sp = jc.scan_params(outer.params)
    inner = [e for e in sp.body.eqns if e.primitive.name == "scan"]
    (inner,) = inner
    isp = jc.scan_params(inner.params)
    carried = [v.aval.shape for v in inner.invars[isp.num_consts : isp.num_consts + isp.num_carry]]
    assert (4, 3) not in carried, carried
    assert any(f.code == "AT201" and f.applied for f in analyze(new, x))
    for u, v in zip(jax.tree_util.tree_leaves(blocks(x)), jax.tree_util.tree_leaves(new(x)), strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-6)
    loss = lambda f: lambda x: jnp.sum(jnp.sin(f(x)[1]))
    np.testing.assert_allclose(jax.grad(loss(new))(x), jax.grad(loss(blocks))(x), rtol=1e-5, atol=1e-6)
