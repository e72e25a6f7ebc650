"""``verify``: outputs and gradients compared leaf by leaf, and failures that say where."""

from __future__ import annotations

import sys
import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autota.proof import verify


def test_equivalent_rewrites_pass(patterns):
    x = patterns.rows_args(9)[0]
    report = verify(patterns.fori_before, patterns.fori_after, x)
    assert report and report.passed and report.grad_checked
    assert [d.name for d in report.leaves] == ["out", "grad arg0"]
    assert "PASS" in str(report)
    assert verify(patterns.reads_before, patterns.reads_after, x)
    assert verify(patterns.concat_before, patterns.concat_after, patterns.concat_args(3)[0][:, :16])


def test_value_difference_names_the_worst_leaf():
    def f(x):
        return {"a": x, "b": x * 2}

    def g(x):
        return {"a": x, "b": x * 2 + jnp.array([0.0, 0.0, 0.5])}

    report = verify(f, g, jnp.array([1.0, 2.0, 4.0]))
    assert not report
    assert report.worst.name == "out['b']"
    assert report.worst.max_abs == pytest.approx(0.5)
    assert report.worst.max_rel == pytest.approx(0.5 / 8.5)
    assert "FAIL" in str(report) and "out['b']" in str(report)


def test_gradient_only_difference_is_caught():
    def f(x):
        return jnp.sin(x)

    def g(x):
        return jax.lax.stop_gradient(jnp.sin(x))

    x = jnp.linspace(0.0, 1.0, 5)
    report = verify(f, g, x)
    assert not report and report.worst.name == "grad arg0"
    assert verify(f, g, x, grad=False)


def test_a_different_function_that_ties_at_this_input_is_caught_by_its_gradient():
    """The weighted reduction makes the gradient see order: reversing a palindrome gives the
    same values but not the same function."""

    def f(x, y):
        return x * y, y

    def g(x, y):
        return x * y, y[::-1]

    x, y = jnp.arange(4.0), jnp.array([1.0, 2.0, 2.0, 1.0])
    assert verify(f, g, x, y, grad=False)
    report = verify(f, g, x, y)
    assert not report and report.worst.name == "grad arg1"


@pytest.mark.parametrize(
    "g, why",
    [
        (lambda x: x[:2], "shape"),
        (lambda x: x.astype(jnp.float16), "dtype"),
        (lambda x: (x,), "structure"),
    ],
)
def test_shape_dtype_and_structure_mismatches(g, why):
    report = verify(lambda x: x, g, jnp.ones(3), grad=False)
    assert not report
    assert why in (report.reason + str(report.worst))


def test_integer_and_nan_leaves():
    def f(x):
        return jnp.argmax(x), x / 0.0

    assert verify(f, f, jnp.array([0.0, 1.0, 2.0]), grad=False)
    assert not verify(f, lambda x: (jnp.argmin(x), x / 0.0), jnp.array([0.0, 1.0, 2.0]), grad=False)


def test_mixed_pytree_arguments_differentiate_float_leaves_only():
    def f(params, n):
        return params["w"] * params["k"] * n

    params = {"w": jnp.ones(3), "k": jnp.array(2, jnp.int32)}
    report = verify(f, lambda p, n: p["w"] * 2 * n, params, 3)
    assert report and [d.name for d in report.leaves] == ["out", "grad arg0['w']"]


def test_a_failing_rewrite_fails_and_a_failing_reference_raises():
    def boom(x):
        raise RuntimeError("nope\nmore")

    report = verify(jnp.sin, boom, jnp.ones(2))
    assert not report and report.reason == "g raised RuntimeError: nope"
    with pytest.raises(RuntimeError):
        verify(boom, jnp.sin, jnp.ones(2))


def test_empty_arrays_compare():
    assert verify(lambda x: x * 2, lambda x: x + x, jnp.zeros((0, 3)))


def test_single_function_is_compared_with_autota_transform(monkeypatch):
    calls = []

    def fake_transform(fn, static_argnums=()):
        calls.append(static_argnums)
        return lambda *a: fn(*a) + 1.0

    monkeypatch.setitem(sys.modules, "autota.jaxpr", types.SimpleNamespace(transform=fake_transform))
    report = verify(jnp.sin, np.ones(3, np.float32), static_argnums=())
    assert not report and calls == [()]


def test_single_function_against_the_real_transform(patterns):
    try:
        import autota.jaxpr  # noqa: F401
    except Exception as err:  # pragma: no cover - while autota.transform is being written
        pytest.skip(f"autota.transform cannot be imported: {err}")
    assert verify(patterns.concat_before, jnp.ones((4, 3)))
