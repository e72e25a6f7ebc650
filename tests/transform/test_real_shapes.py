"""Loop shapes met in real programs (Flax linen, numpyro-style samplers, batched conds,
checkpointed bodies), run under the real libraries: what is rewritten, what is reported, and
where the findings point."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import autota
from autota.jaxpr import jaxcompat as jc
from autota.proof.timing import side_by_side

T, F, B = 8, 4, 3
HERE = __file__.rsplit("/", 1)[-1]


def data(shape, seed=0):
    return jax.random.normal(jax.random.key(seed), shape)


def loss(fn):
    return lambda *a: jnp.sum(jnp.cos(fn(*a)) * jnp.arange(F))


def same_values_and_grads(fn, *args, argnums=0):
    new = autota.transform(fn)
    for u, v in zip(jax.tree_util.tree_leaves(fn(*args)), jax.tree_util.tree_leaves(new(*args)), strict=True):
        np.testing.assert_array_equal(u, v)
    g_ref = jax.grad(loss(fn), argnums)(*args)
    g_new = jax.jit(jax.grad(loss(new), argnums))(*args)
    for u, v in zip(jax.tree_util.tree_leaves(g_ref), jax.tree_util.tree_leaves(g_new), strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)
    return new


# -- a sampler: state carries are not buffers ---------------------------------------------------


def collect_samples(x0, n):
    """numpyro's fori_collect shape: a sampler state (positions, key, step size, a leapfrog
    while_loop inside) and one collection buffer the loop writes."""

    def leapfrog(q, p, eps):
        def cond(c):
            return c[0] < 4

        def body(c):
            i, q, p = c
            p = p - 0.5 * eps * q
            q = q + eps * p
            return i + 1, q, p

        return lax.while_loop(cond, body, (0, q, p))[1:]

    def step(i, c):
        q, key, eps, samples = c
        key, sub = jax.random.split(key)
        p = jax.random.normal(sub, q.shape)
        q_new, _ = leapfrog(q, p, eps)
        accept = jax.random.uniform(sub) < jnp.exp(-0.5 * (q_new @ q_new - q @ q))
        q = jnp.where(accept, q_new, q)
        eps = jnp.where(accept, eps * 1.01, eps * 0.99)
        return q, key, eps, samples.at[i].set(q)

    init = (x0, jax.random.key(0), jnp.float32(0.1), jnp.zeros((n, x0.shape[0])))
    return lax.fori_loop(0, n, step, init)[3]


def test_sampler_state_is_not_reported_only_the_buffer_is():
    x0 = jnp.ones(3)
    findings = autota.analyze(autota.transform(collect_samples, static_argnums=1), x0, 16)
    assert [f.buffer_shape for f in findings if f.code.startswith("AT20")] == [(16, 3)], findings
    assert all(f.applied for f in findings), findings
    np.testing.assert_array_equal(collect_samples(x0, 16), autota.transform(collect_samples, static_argnums=1)(x0, 16))


# -- findings point at the user's lines, past Flax --------------------------------------------


def test_flax_linen_scan_findings_point_at_the_model():
    nn = pytest.importorskip("flax.linen")

    class Cell(nn.Module):
        @nn.compact
        def __call__(self, carry, x):
            h, buf, t = carry
            h = jnp.tanh(nn.Dense(F)(h) + x)
            buf = buf.at[t].set(h)  # the write
            return (h, buf, t + 1), None

    class Model(nn.Module):
        @nn.compact
        def __call__(self, xs):
            scan = nn.scan(Cell, variable_broadcast="params", split_rngs={"params": False}, length=xs.shape[0])
            (h, buf, _), _ = scan()((jnp.zeros(F), jnp.zeros((xs.shape[0], F)), 0), xs)  # the loop call
            return buf

    xs = data((T, F))
    model = Model()
    params = model.init(jax.random.key(0), xs)
    findings = autota.analyze(model.apply, params, xs)
    buffers = [f for f in findings if f.code == "AT201"]
    assert buffers and buffers[0].applied, findings
    lines = open(__file__).read().splitlines()
    for f in buffers:
        assert f.source.split(":")[0].endswith(HERE) and f.write_source.split(":")[0].endswith(HERE), f
        assert "# the loop call" in lines[int(f.source.rsplit(":", 1)[1]) - 1]
        assert "# the write" in lines[int(f.write_source.rsplit(":", 1)[1]) - 1]
    new = autota.transform(model.apply)
    np.testing.assert_array_equal(model.apply(params, xs), new(params, xs))


def test_flax_nnx_scan_findings_point_at_the_user():
    nnx = pytest.importorskip("flax.nnx")

    def run(xs):
        @nnx.scan(in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)
        def step(carry, x):
            h, buf, t = carry
            h = jnp.tanh(h + x)
            return (h, buf.at[t].set(h), t + 1)  # the write

        return step((jnp.zeros(F), jnp.zeros((T, F)), 0), xs)[1]  # the loop call

    xs = data((T, F))
    (finding,) = [f for f in autota.analyze(run, xs) if f.code == "AT201"]
    lines = open(__file__).read().splitlines()
    assert finding.applied and finding.source.split(":")[0].endswith(HERE)
    assert "# the loop call" in lines[int(finding.source.rsplit(":", 1)[1]) - 1]
    assert "# the write" in lines[int(finding.write_source.rsplit(":", 1)[1]) - 1]
    np.testing.assert_array_equal(run(xs), autota.transform(run)(xs))


# -- the misses, rewritten -------------------------------------------------------------------------


def cond_write(x):
    def body(t, buf):
        return lax.cond(x[t, 0] > 0, lambda b: b.at[t].set(jnp.sin(x[t])), lambda b: b, buf)

    return lax.fori_loop(0, x.shape[0], body, jnp.zeros((x.shape[0], F)))


def test_cond_around_the_write_under_vmap_is_narrowed():
    xs = data((B, 64, F))
    fn = jax.vmap(cond_write)
    new = same_values_and_grads(fn, xs)
    findings = autota.analyze(fn, xs)
    assert any(f.code == "AT204" and f.applied for f in findings), findings
    assert "transform(jax.vmap(f))" not in autota.explain(fn, xs)
    mem = {k: m for k, (_, m) in side_by_side(
        {"jax": jax.grad(loss(fn)), "autota": jax.grad(loss(new))}, (xs,), repeats=1, min_time=1e-4
    ).items()}
    assert mem["autota"] * 2 < mem["jax"], mem


def both_branches_write(x):
    def body(t, buf):
        return lax.cond(
            x[t, 0] > 0, lambda b: b.at[t].set(jnp.sin(x[t])), lambda b: b.at[t].set(2 * jnp.cos(x[t])), buf
        )

    return lax.fori_loop(0, x.shape[0], body, jnp.zeros((x.shape[0], F)))


def checkpointed_body(x):
    w = jnp.eye(F) * 0.5

    @jax.checkpoint
    def body(t, c):
        h, buf = c
        h = jnp.tanh(h @ w + x[t])
        return h, buf.at[t].set(h)

    return lax.fori_loop(0, x.shape[0], body, (jnp.zeros(F), jnp.zeros((x.shape[0], F))))[1]


def checkpointed_scan_body(x):
    @jax.checkpoint
    def body(c, xt):
        h, buf, t = c
        h = jnp.sin(h + xt)
        return (h, lax.dynamic_update_index_in_dim(buf, h, t, 0), t + 1), h.sum()

    (h, buf, _), sums = lax.scan(body, (jnp.zeros(F), jnp.zeros((x.shape[0], F)), 0), x)
    return buf + sums[:, None] + h


@pytest.mark.parametrize("fn", [both_branches_write, checkpointed_body, checkpointed_scan_body])
def test_writes_inside_cond_branches_and_checkpoints_are_rewritten(fn):
    x = data((T, F))
    new = same_values_and_grads(fn, x)
    assert any(f.code == "AT201" and f.applied for f in autota.analyze(fn, x)), autota.explain(fn, x)
    xs = jnp.stack([x, -x])
    np.testing.assert_array_equal(
        np.asarray(jax.tree_util.tree_leaves(jax.vmap(fn)(xs))[0]),
        np.asarray(jax.tree_util.tree_leaves(jax.vmap(new)(xs))[0]),
    )
    scan_carries = []
    for e in jax.make_jaxpr(new)(x).jaxpr.eqns:
        sp = jc.scan_params(e.params) if e.primitive.name == "scan" else None
        if sp is not None:
            carries = e.invars[sp.num_consts : sp.num_consts + sp.num_carry]
            scan_carries += [tuple(v.aval.shape) for v in carries]
    assert (T, F) not in scan_carries  # the buffer left the loop


def different_slots(x):
    def body(t, buf):
        return lax.cond(x[t, 0] > 0, lambda b: b.at[t].set(x[t]), lambda b: b.at[0].set(x[t]), buf)

    return lax.fori_loop(0, x.shape[0], body, jnp.zeros((x.shape[0], F)))


def test_branches_writing_different_slots_are_left_alone():
    x = data((T, F))
    findings = autota.analyze(different_slots, x)
    assert findings and not any(f.applied for f in findings)
    assert "do not all write the same slot" in findings[0].reason
    same_values_and_grads(different_slots, x)


# -- reason texts say what the code does -----------------------------------------------------------


def two_d_index(x):
    def body(t, big):
        return big.at[1, t].set(x[t, 0])

    return lax.fori_loop(0, x.shape[0], body, jnp.zeros((2, x.shape[0])))


def reordered(x):
    perm = jnp.arange(x.shape[0])[::-1]

    def body(t, buf):
        return buf.at[t].set(x[t])[perm]

    return lax.fori_loop(0, x.shape[0], body, jnp.zeros((x.shape[0], F)))


@pytest.mark.parametrize(
    "fn, says",
    [(two_d_index, "indexes 2 axes at once"), (reordered, "reorders the buffer (a gather)"),
     (cond_write, "a cond whose branches do not all write the same slot")],
)
def test_reasons_describe_the_code(fn, says):
    x = data((T, F))
    findings = autota.analyze(fn, x)
    assert any(f.code == "AT201" and not f.applied and says in f.reason for f in findings), findings
    assert not any("unconditionally" in (f.reason or "") for f in findings)
