"""AT203 write-once rewrite: same values bit for bit, same gradients, O(T) residuals."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from autota.jaxpr import analyze, explain, transform

F = 3


def data(T, seed=0):
    return jax.random.normal(jax.random.key(seed), (T, F), jnp.float32)


def mean_over_past(x):
    T = x.shape[0]

    def body(t, c):
        h, out = c
        seen = (jnp.arange(T) < t)[:, None]
        past = jnp.sum(jnp.where(seen, out, 0.0), 0) / jnp.maximum(t, 1)
        h = jnp.tanh(h + x[t] + past)
        return h, out.at[t].set(h)

    return lax.fori_loop(0, T, body, (jnp.zeros(F), jnp.zeros((T, F))))


def attention(x):
    T = x.shape[0]

    def body(c, xt):
        i, h, out = c
        scores = jnp.where(jnp.arange(T) <= i, out @ h, -jnp.inf)
        h = jnp.tanh(h + xt + jax.nn.softmax(scores) @ out)
        return (i + 1, h, out.at[i].set(h)), h.sum()

    return lax.scan(body, (0, jnp.ones(F), jnp.zeros((T, F))), x)


def reverse_strided_axis1(x):
    """Reverse scan, index from ``arange`` xs, stride 2 and an offset, written along axis 1."""
    T = x.shape[0]

    def body(c, xs):
        t, xt = xs
        h, buf = c
        h = jnp.sin(h + xt + jnp.sum(buf * buf, 1) * 0.1)
        return (h, lax.dynamic_update_index_in_dim(buf, h, 2 * t + 1, 1)), buf[:, 2 * t + 1].sum()

    return lax.scan(body, (jnp.zeros(F), jnp.full((F, 2 * T + 2), 0.5)), (jnp.arange(T), x), reverse=True)


def static_while_descending(x, as_fori=False):
    """A static ``while_loop`` (AT202 makes it a scan) writing slots T-1 .. 0."""
    T = x.shape[0]

    def body(c):
        i, h, buf = c
        h = jnp.cos(h) + x[i] + jnp.max(buf, 0)
        return i + 1, h, buf.at[T - 1 - i].set(h)

    init = (0, jnp.zeros(F), jnp.zeros((T, F)))
    if as_fori:  # the same loop, which plain JAX can differentiate: the gradient reference
        return lax.fori_loop(0, T, lambda _, c: body(c), init)[1:]
    return lax.while_loop(lambda c: c[0] < T, body, init)[1:]


def runge_kutta_stages(x):
    """Each stage reads all earlier stages through a lower-triangular tableau."""
    S = 4
    a = jnp.tril(jnp.arange(1.0, 1.0 + S * S).reshape(S, S) / (S * S), -1)
    y0 = x[0]

    def body(s, k):
        y = y0 + a[s] @ k
        return k.at[s].set(jnp.tanh(y) * x[1])

    return lax.fori_loop(0, S, body, jnp.zeros((S, F)))


def bf16_buffer(x):
    """A float32 value written into a bfloat16 buffer: an exact widening cast, the write, a cast back."""
    T = x.shape[0]

    def body(t, buf):
        return buf.at[t].set(x[t] + jnp.tanh(buf.astype(jnp.float32)).sum(0))

    return lax.fori_loop(0, T, body, jnp.zeros((T, F), jnp.bfloat16))


def nested_in_jit_cond_and_scan(x):
    T = x.shape[0]

    @jax.jit
    def inner(row):
        def body(t, buf):
            return buf.at[t].set(jnp.tanh(row[t] + buf.sum() * 0.1))

        return lax.fori_loop(0, F, body, jnp.zeros(F))

    def outer(c, row):
        y = lax.cond(row.sum() > 0, inner, lambda r: r * 2.0, row)
        return c + y, y

    return lax.scan(outer, jnp.zeros(F), x)


REWRITTEN = {
    "mean_over_past": mean_over_past,
    "attention": attention,
    "reverse_strided_axis1": reverse_strided_axis1,
    "static_while_descending": static_while_descending,
    "runge_kutta_stages": runge_kutta_stages,
    "bf16_buffer": bf16_buffer,
    "nested_in_jit_cond_and_scan": nested_in_jit_cond_and_scan,
}


def loss(fn):
    def inner(x):
        leaves = jax.tree_util.tree_leaves(fn(x))
        return sum(jnp.sum(jnp.sin(leaf)) for leaf in leaves if jnp.issubdtype(leaf.dtype, jnp.floating))
    return inner


def assert_equal(a, b):
    assert jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)
    for u, v in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        assert u.dtype == v.dtype
        np.testing.assert_array_equal(np.asarray(u), np.asarray(v))


def assert_close(a, b):
    for u, v in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=1e-5, atol=1e-6)


def rewrite(fn):
    return transform(fn, rules=["AT2"])


@pytest.mark.filterwarnings("ignore:scatter inputs have incompatible types")
@pytest.mark.parametrize("name", sorted(REWRITTEN))
def test_values_gradients_vmap(name):
    fn = REWRITTEN[name]
    new = rewrite(fn)
    x = data(6)
    assert any(f.code == "AT203" and f.applied for f in analyze(new, x)), analyze(new, x)
    ref = jax.jit(fn)(x)  # like for like: XLA may fuse (and round) differently under jit
    assert_equal(ref, jax.jit(new)(x))
    assert_equal(ref, jax.jit(lambda x: jax.vjp(new, x)[0])(x))  # the forward pass under grad
    differentiable = functools.partial(fn, as_fori=True) if fn is static_while_descending else fn
    assert_close(jax.grad(loss(differentiable))(x), jax.jit(jax.grad(loss(new)))(x))
    if name not in ("attention", "nested_in_jit_cond_and_scan"):
        return
    xs = jnp.stack([x, x * -0.5])
    assert_close(jax.vmap(jax.grad(loss(differentiable)))(xs), jax.jit(jax.vmap(jax.grad(loss(new))))(xs))


def test_grad_of_grad():
    """The backward pass is built from differentiable JAX ops, so reverse-over-reverse works."""
    x = data(4)
    twice = lambda f: jax.grad(lambda x: jnp.sum(jax.grad(loss(f))(x) ** 2))
    np.testing.assert_allclose(twice(attention)(x), jax.jit(twice(rewrite(attention)))(x), rtol=1e-4, atol=1e-5)


def test_forward_mode_raises():
    """JAX has no forward mode for a custom VJP: the error says so (the reason AT203 is opt-in)."""
    x = data(4)
    with pytest.raises(TypeError, match="custom_vjp"):
        jax.jvp(rewrite(mean_over_past), (x,), (x,))
    assert jax.jvp(transform(mean_over_past), (x,), (x,))  # the default rules leave it alone


def _temp_bytes(fn, x):
    return jax.jit(jax.grad(loss(fn))).lower(x).compile().memory_analysis().temp_size_in_bytes


def test_residuals_grow_linearly():
    """Doubling T doubles the temp memory of jit(grad) (plain JAX quadruples it)."""
    small, large = (jax.random.normal(jax.random.key(0), (T, 16), jnp.float32) for T in (128, 256))

    def mean16(x):
        T = x.shape[0]

        def body(t, c):
            h, out = c
            past = jnp.sum(jnp.where((jnp.arange(T) < t)[:, None], out, 0.0), 0)
            h = jnp.tanh(h + x[t] + past / T)
            return h, out.at[t].set(h)

        return lax.fori_loop(0, T, body, (jnp.zeros(16), jnp.zeros((T, 16))))[1]

    ratio_new = _temp_bytes(rewrite(mean16), large) / _temp_bytes(rewrite(mean16), small)
    ratio_old = _temp_bytes(mean16, large) / _temp_bytes(mean16, small)
    assert ratio_new < 2.3 < 3.5 < ratio_old, (ratio_new, ratio_old)


# -- left alone, with the reason ---------------------------------------------------------------


def reads_after_write(x):
    T = x.shape[0]

    def body(t, c):
        h, buf = c
        new = buf.at[t].set(h + x[t])
        return jnp.tanh(new.sum(0)), new

    return lax.fori_loop(0, T, body, (jnp.zeros(F), jnp.zeros((T, F))))


def constant_index(x):
    T = x.shape[0]

    def body(t, buf):
        return buf.at[0].set(buf[0] * 0.5 + x[t])

    return lax.fori_loop(0, T, body, jnp.zeros((T, F)))


def out_of_range(x):
    T = x.shape[0]

    def body(t, buf):
        return buf.at[t + 1].set(x[t] + buf.sum(0))

    return lax.fori_loop(0, T, body, jnp.zeros((T, F)))


def with_write_only_buffer(x):
    T = x.shape[0]

    def body(t, c):
        a, b = c
        return a.at[t].set(x[t] + a.sum(0)), b.at[t].set(x[t] * 2)

    return lax.fori_loop(0, T, body, (jnp.zeros((T, F)), jnp.zeros((T, F))))


def side_effect(x):
    T = x.shape[0]

    def body(t, buf):
        jax.debug.callback(lambda v: None, t)
        return buf.at[t].set(x[t] + buf.sum(0))

    return lax.fori_loop(0, T, body, jnp.zeros((T, F)))


def returns_what_it_reads(x):
    T = x.shape[0]

    def body(c, xt):
        i, buf = c
        return (i + 1, buf.at[i].set(xt + buf.sum(0))), buf

    return lax.scan(body, (0, jnp.zeros((T, F))), x)


LEFT_ALONE = {
    "reads_after_write": (reads_after_write, "after writing it"),
    "constant_index": (constant_index, "does not change with the iteration"),
    "out_of_range": (out_of_range, "range"),
    "with_write_only_buffer": (with_write_only_buffer, "not read back"),
    "side_effect": (side_effect, "side effects"),
    "returns_what_it_reads": (returns_what_it_reads, "returns the buffer"),
}


@pytest.mark.parametrize("name", sorted(LEFT_ALONE))
def test_left_alone_with_reason(name):
    fn, why = LEFT_ALONE[name]
    x = data(4)
    new = rewrite(fn)
    findings = [f for f in analyze(new, x) if f.code == "AT203"]
    assert findings and all(not f.applied and why in f.reason for f in findings), findings
    if name != "side_effect":
        assert_equal(jax.jit(fn)(x), jax.jit(new)(x))
        assert_close(jax.grad(loss(fn))(x), jax.jit(jax.grad(loss(new)))(x))


def test_default_rules_report_but_do_not_rewrite():
    x = data(4)
    (finding,) = [f for f in analyze(mean_over_past, x) if f.code == "AT203"]
    assert not finding.applied and "provably write-once" in finding.reason and "AT203" in finding.reason
    assert "left alone" in explain(mean_over_past, x)
    assert "custom_vjp" not in str(jax.make_jaxpr(transform(mean_over_past))(x))
    assert "custom_vjp" in str(jax.make_jaxpr(rewrite(mean_over_past))(x))
