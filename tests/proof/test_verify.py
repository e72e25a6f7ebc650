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


def _attention_over_past(x, w):
    """A loop that reads the buffer it fills: AT203 rewrites it with a custom VJP whose float32
    gradient sums in another order than plain JAX's."""
    T, B, F = x.shape

    def body(t, c):
        h, out = c
        seen = (jnp.arange(T) <= t)[:, None]
        scores = jnp.where(seen, jnp.einsum("bf,tbf->tb", h @ w, out) / np.sqrt(F), -jnp.inf)
        context = jnp.einsum("tb,tbf->bf", jax.nn.softmax(scores, axis=0), out)
        h = jnp.tanh(h + x[t] + context)
        return h, out.at[t].set(h)

    return jax.lax.fori_loop(0, T, body, (jnp.zeros((B, F)), jnp.zeros((T, B, F))))[1]


def _mean_over_past(x, w):
    T, B, F = x.shape

    def body(t, c):
        h, out = c
        seen = (jnp.arange(T) < t)[:, None, None]
        past = jnp.sum(jnp.where(seen, out, 0.0), 0) / jnp.maximum(t, 1)
        h = jnp.tanh(h @ w + x[t] + past)
        return h, out.at[t].set(h)

    return jax.lax.fori_loop(0, T, body, (jnp.zeros((B, F)), jnp.zeros((T, B, F))))[1]


def _loop_args(T, B=8, F=64):
    kx, kw = jax.random.split(jax.random.key(0))
    return jax.random.normal(kx, (T, B, F)) * 0.5, jax.random.normal(kw, (F, F)) / np.sqrt(F)


def _mean_over_past_in_halves(x, w):
    """:func:`_mean_over_past` with its sum over the past taken in two halves: the same values
    but for float32 rounding, as a rewrite that reorders sums gives them."""
    T, B, F = x.shape

    def body(t, c):
        h, out = c
        seen = (jnp.arange(T) < t)[:, None, None]
        masked = jnp.where(seen, out, 0.0)
        past = (jnp.sum(masked[: T // 2], 0) + jnp.sum(masked[T // 2:], 0)) / jnp.maximum(t, 1)
        h = jnp.tanh(h @ w + x[t] + past)
        return h, out.at[t].set(h)

    return jax.lax.fori_loop(0, T, body, (jnp.zeros((B, F)), jnp.zeros((T, B, F))))[1]


@pytest.mark.slow
def test_defaults_pass_a_float32_rewrite_that_reorders_sums():
    """The reordering is written out: whether ``autota.transform``'s own rewrite of this loop
    changes the order of its sums depends on XLA (jax 0.12.1 computes it bit for bit)."""
    from autota.jaxpr import transform

    args = _loop_args(256)
    strict = verify(_mean_over_past, _mean_over_past_in_halves, *args, reordered_sums=False)
    assert not strict, strict  # the values and gradients really differ in the last bits
    report = verify(_mean_over_past, _mean_over_past_in_halves, *args)
    assert report, report
    assert "reordered sums" in str(report)
    assert verify(_mean_over_past, transform(_mean_over_past, rules=["AT2"]), *args)


def test_a_tenth_of_a_percent_still_fails():
    args = _loop_args(64, B=4, F=16)
    f = _attention_over_past

    def scaled_values(x, w):
        return f(x, w) * 1.001

    def scaled_gradient(x, w):  # same values, every gradient entry 0.1% larger
        y = f(x, w)
        return y + 0.001 * (y - jax.lax.stop_gradient(y))

    report = verify(f, scaled_values, *args)
    assert not report and not next(d for d in report.leaves if d.name == "out").ok
    report = verify(f, scaled_gradient, *args)
    assert not report and report.worst.name.startswith("grad ")
    assert all(d.ok for d in report.leaves if d.name == "out")
