"""Programs an adversarial review of the transform found wrong, kept so they stay right."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from autota.jaxpr import analyze, transform


def _same(a, b):
    for u, v in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True):
        assert type(u) is type(v) or isinstance(u, jax.Array) == isinstance(v, jax.Array)
        assert np.shape(u) == np.shape(v) and np.asarray(u).dtype == np.asarray(v).dtype
        np.testing.assert_array_equal(np.asarray(u), np.asarray(v))


def test_a_buffer_loop_inside_custom_linear_solve():
    def f(b):
        a = jnp.diag(jnp.array([2.0, 3.0, 4.0]))

        def solve(mv, b):
            def body(i, c):
                v, buf = c
                v = v + 0.5 * (b - mv(v))
                return v, buf.at[i].set(v)

            _, buf = lax.fori_loop(0, 4, body, (jnp.zeros_like(b), jnp.zeros((4, 3))))
            return b / jnp.array([2.0, 3.0, 4.0]) + 0 * buf.sum()

        return lax.custom_linear_solve(lambda v: a @ v, b, solve, symmetric=True)

    _same(f(jnp.ones(3)), transform(f)(jnp.ones(3)))


def test_an_index_that_wraps_in_a_narrow_dtype_is_not_affine():
    def f(x):
        def body(i, c):
            h, buf = c
            h = h + 1.0
            return h, buf.at[(i + 250).astype(jnp.uint8)].set(h)  # 250..255, then 0, 1

        return lax.fori_loop(0, 8, body, (x, jnp.zeros((300,))))[1]

    x = jnp.float32(0.0)
    _same(f(x), transform(f)(x))
    assert not any(f.code == "AT201" and f.applied for f in analyze(f, x))


def test_a_weakly_typed_buffer_keeps_its_weak_type():
    def f(x):
        def body(c, t):
            h, buf = c
            h = jnp.sin(h) + 0.1
            return (h, buf.at[t].set(h)), None

        return lax.scan(body, (x, lax.broadcast(0.0, (4,))), jnp.arange(4))[0][1]

    x = jnp.float32(0.3)
    bf16 = jnp.ones(4, jnp.bfloat16)
    assert (transform(f)(x) + bf16).dtype == (f(x) + bf16).dtype
    assert jax.make_jaxpr(transform(f))(x).out_avals == jax.make_jaxpr(f)(x).out_avals


def test_a_while_condition_with_effects_keeps_its_loop():
    def f(x):
        def cond(c):
            jax.debug.print("cond i={}", c[0])
            return c[0] < 3

        def body(c):
            i, h, buf = c
            h = h * 1.5
            return i + 1, h, buf.at[i].set(h)

        return lax.while_loop(cond, body, (0, x, jnp.ones((3,))))[2]

    x = jnp.float32(1.0)
    printed = []
    for fn in (f, transform(f)):
        out = io.StringIO()
        with redirect_stdout(out):
            jax.block_until_ready(fn(x))
            jax.effects_barrier()
        printed.append(out.getvalue().count("cond i="))
    assert printed[0] == printed[1] == 4
    assert not any(f.code == "AT202" and f.applied for f in analyze(f, x))


def test_grad_of_a_checkpointed_scan_keeps_its_rewrite():
    """jax 0.12 binds the residual program as ``eval_jaxpr``, which is read inline like jit."""

    def scan_buf(x):
        def body(c, t):
            h, buf = c
            h = jnp.sin(h) + 0.1 * t
            return (h, buf.at[t].set(h)), None

        return lax.scan(body, (x, jnp.zeros((6, 3))), jnp.arange(6))[0][1]

    f = lambda x: jax.grad(lambda x: jax.checkpoint(scan_buf)(x).sum())(x)
    x = jnp.linspace(0.1, 1.0, 3)
    assert any(f.code == "AT201" and f.applied for f in analyze(f, x))
    np.testing.assert_allclose(transform(f)(x), f(x), rtol=1e-6)


@pytest.mark.parametrize("name", ["expi", "expn"])
def test_stock_custom_jvp_functions_pass_strict(name):
    fn = getattr(jax.scipy.special, name)
    x = jnp.array([0.5, 1.5, 2.5])
    args = (jnp.array([1, 2, 3]), x) if name == "expn" else (x,)
    _same(fn(*args), transform(fn, strict=True)(*args))


def test_numpy_outputs_come_back_as_returned():
    f = lambda x: (x, np.arange(3))
    out = transform(f)(jnp.ones(2))[1]
    assert type(out) is np.ndarray and out.dtype == np.arange(3).dtype


# -- review 45 ---------------------------------------------------------------------------------
def test_a_while_counter_that_would_pass_its_dtype_keeps_its_loop():
    """A uint8 counter stepped past 255 wraps, and the loop runs on: the trip count Python's
    arithmetic gives is not the loop's, so no scan (R1)."""

    def f(x):
        def body(c):
            i, n, buf = c
            return i + jnp.uint8(3), n + 1, buf.at[n % 4].set(x + n)

        return lax.while_loop(lambda c: c[0] < jnp.uint8(255), body, (jnp.uint8(250), 0, jnp.zeros(4)))

    x = jnp.float32(1.0)
    assert not any(f_.applied for f_ in analyze(f, x))
    _same(jax.jit(f)(x), jax.jit(transform(f))(x))


def test_static_arguments_resolve_as_jit_resolves_them():
    """An index past the arguments passed is ignored, a static position passed by keyword and
    a static name passed by position are static (R2)."""

    def scaled(x, n=3, tag="a"):
        return x * n

    def sized(x, n):
        return jnp.zeros((n,)) + x.sum()

    x = jnp.ones(3)
    _same(jax.jit(scaled, static_argnums=2)(x, 2.0), transform(scaled, static_argnums=2)(x, 2.0))
    _same(jax.jit(scaled, static_argnums=1)(x, n=2), transform(scaled, static_argnums=1)(x, n=2))
    _same(jax.jit(sized, static_argnames="n")(x, 4), transform(sized, static_argnames="n")(x, 4))
    _same(jax.jit(scaled, static_argnums=-1)(x, 2), transform(scaled, static_argnums=-1)(x, 2))


def test_an_empty_rule_selection_rewrites_nothing():
    def f(xs):
        return lax.fori_loop(0, 4, lambda t, b: b.at[t].set(xs[t] + b.sum()), jnp.zeros((4, 3)))

    xs = jnp.ones((4, 3))
    assert analyze(transform(f, rules=[]), xs) == []
    assert analyze(transform(f, rules=()), xs) == []
    assert [f_.code for f_ in analyze(transform(f, rules="AT2"), xs)] == ["AT203"]


def test_outputs_are_arrays_without_jit():
    """A literal output of the rewritten program (a constant, a carry a scan forwards) comes
    back as the array the function returned, weak type included (R4)."""

    def constant(x):
        return x * 2, jnp.int32(3)

    def forwarded(x):
        def body(c):
            i, n, buf = c
            return i + 1, n, buf.at[i].set(x[i])

        return lax.while_loop(lambda c: c[0] < c[1], body, (0, 3, jnp.zeros(3)))

    x = jnp.arange(3.0)
    for f in (constant, forwarded):
        before, after = f(x), transform(f)(x)
        for u, v in zip(jax.tree_util.tree_leaves(before), jax.tree_util.tree_leaves(after), strict=True):
            assert isinstance(v, jax.Array) and type(v) is type(u)
            assert u.aval.weak_type == v.aval.weak_type and u.dtype == v.dtype
            np.testing.assert_array_equal(np.asarray(u), np.asarray(v))


C = np.arange(3, dtype=np.float32)


@jax.jit
def _put_shifted(buf, t, v):
    return buf.at[t].set(v + C)


def test_a_write_in_a_jitted_helper_with_constants_is_rewritten():
    """A `jit` whose program holds constants (a NumPy array it closes over) is read inline like
    any other, so its write is seen (R6)."""

    def f(x):
        return lax.fori_loop(0, 4, lambda t, b: _put_shifted(b, t, x[t]), jnp.zeros((4, 3)))

    x = jnp.arange(12.0).reshape(4, 3)
    assert [f_.applied for f_ in analyze(f, x)] == [True]
    _same(f(x), jax.jit(transform(f))(x))
    _same(jax.grad(lambda x: f(x).sum())(x), jax.grad(lambda x: transform(f)(x).sum())(x))


def test_a_write_inside_a_custom_jvp_function_is_reported():
    """The transform passes a `custom_jvp` function through; a buffer it writes in a loop is
    reported, left alone, not passed over in silence (R6)."""

    @jax.custom_jvp
    def put(buf, t, v):
        return buf.at[t].set(v)

    put.defjvp(lambda primals, tangents: (put(*primals), put(tangents[0], primals[1], tangents[2])))

    def f(x):
        return lax.fori_loop(0, 4, lambda t, b: put(b, t, x[t]), jnp.zeros((4, 3)))

    x = jnp.arange(12.0).reshape(4, 3)
    found = analyze(f, x)
    assert [(f_.code, f_.applied) for f_ in found] == [("AT201", False)]
    assert "custom_jvp_call" in found[0].reason
    _same(f(x), jax.jit(transform(f))(x))


# -- review 48 (jax 0.10 and 0.12) ----------------------------------------------------------------
V = jnp.linspace(-1.0, 2.0, 6, dtype=jnp.float32)


def test_a_lifted_write_leaves_its_value_to_the_branch_that_computes_it():
    """Lifting `cond(p, b.at[i].set(f(x)), b.at[i].set(g(x)))` moves the write, not the value's
    computation: a two-output primitive (`top_k`) in a branch, a key split in a checkpointed step
    (`unstack` on jax 0.12), and an effect in the branch not taken all stay where they were."""

    def topk(x):
        def body(i, b):
            return lax.cond(x[i, 0] > 0, lambda b: b.at[i].set(lax.top_k(x[i], 2)[0].sum()),
                            lambda b: b.at[i].set(lax.top_k(-x[i], 2)[0].sum()), b)
        return lax.fori_loop(0, 6, body, jnp.zeros(6))

    def keys(v, key):
        @jax.checkpoint
        def step(i, c):
            b, k = c
            k, sub = jax.random.split(k)
            return b.at[i].set(jax.random.normal(sub) * v[i]), k
        return lax.fori_loop(0, 6, step, (jnp.zeros(6), key))

    x = jnp.arange(24.0).reshape(6, 4) / 5 - 2
    _same(topk(x), transform(topk)(x))
    _same(keys(V, jax.random.PRNGKey(0)), transform(keys)(V, jax.random.PRNGKey(0)))
    assert any(f.code == "AT201" and f.applied for f in analyze(topk, x))

    calls = []

    def effects(v):
        def body(i, b):
            def untaken(b):
                jax.debug.callback(lambda: calls.append(1))
                return b.at[i].set(v[i] * 2)
            return lax.cond(v[i] > -10.0, lambda b: b.at[i].set(v[i]), untaken, b)
        return lax.fori_loop(0, 6, body, jnp.zeros(6))

    _same(effects(V), transform(effects)(V))
    jax.effects_barrier()
    assert calls == []


def test_a_typed_key_beside_a_lifted_write_is_no_index():
    def f(v, k):
        def body(i, c):
            b, k = c
            ks = jax.random.split(k)
            return lax.cond(v[i] > 0, lambda b: (b.at[i].set(v[i]), ks[1]), lambda b: (b.at[i].set(-v[i]), ks[1]), b)
        return lax.fori_loop(0, 6, body, (jnp.zeros(6), k))[0]

    k = jax.random.key(0)
    _same(f(V, k), transform(f)(V, k))


def test_dynamic_update_slice_into_a_weak_buffer_comes_back_as_the_loop_left_it():
    def f(v):
        return lax.fori_loop(0, 6, lambda i, b: lax.dynamic_update_slice(b, v[i][None], (i,)), jnp.full(6, 2.0))

    out, new = f(V), transform(f)(V)
    _same(out, new)
    assert new.weak_type == out.weak_type
    assert (new + jnp.ones(6, jnp.bfloat16)).dtype == (out + jnp.ones(6, jnp.bfloat16)).dtype


def test_a_numpy_buffer_written_every_other_slot():
    def f(v):
        return lax.fori_loop(0, 6, lambda i, b: b.at[2 * i].set(v[i]), np.zeros(12, np.float32))

    _same(f(V), transform(f)(V))


def test_a_select_around_a_write_whose_start_is_still_negative():
    """The jaxpr's starts are normalised already: the old slice is read as the primitive clamps
    it, not normalised a second time."""
    def f(v, p, k):
        b = jnp.arange(6, dtype=jnp.float32) * 10
        return jnp.where(p, lax.dynamic_update_slice(b, v[:2], (k,)), b)

    for p, k in [(False, -9), (True, -9), (False, -1), (True, 5), (False, 3)]:
        args = (V, jnp.bool_(p), jnp.int32(k))
        _same(f(*args), transform(f)(*args))


def test_a_loop_inside_shard_map_or_pmap_keeps_its_axis_context():
    mesh = jax.make_mesh((1,), ("d",))
    spec = jax.sharding.PartitionSpec()

    def f(v):
        def g(v):
            b = lax.fori_loop(0, 6, lambda i, b: b.at[2 * i].set(v[i] * 2), jnp.zeros(12))
            return lax.psum(b, "d")
        return jax.shard_map(g, mesh=mesh, in_specs=spec, out_specs=spec)(v)

    def p(v):
        def g(v):
            b = lax.fori_loop(0, 3, lambda i, b: b.at[2 * i].set(v[i] * 2), jnp.zeros(6))
            return lax.psum(b, "d")
        return jax.pmap(g, axis_name="d")(v[None])

    for fn in (f, p):  # kept as it was, and said so
        lenient = transform(fn, strict=False)
        _same(fn(V), lenient(V))
        assert any(x.code == "AT001" and "axis name" in str(x) for x in analyze(lenient, V))


def test_static_arguments_equal_across_types_trace_apart():
    def g(v, n):
        return lax.fori_loop(0, 6, lambda i, b: b.at[i].set(v[i]), jnp.zeros(6)), jnp.arange(n + 2)

    jitted, transformed = jax.jit(g, static_argnums=1), transform(g, static_argnums=1)
    for n in (1, True, 1.0):
        _same(jitted(V, n), transformed(V, n))
