"""The corpus's jaxpr cases: same values and gradients, and every loop explained."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autota.corpus import default_root, discover
from autota.jaxpr import analyze, explain, transform

CASES = [c for c in discover(default_root()) if c.name.startswith("jaxpr_")]
EXPECTED = {  # code, applied
    "jaxpr_rnn_hidden_buffer": ("AT201", True),
    "jaxpr_scan_dict_counter": ("AT201", True),
    "jaxpr_static_while": ("AT202", True),
    "jaxpr_vmap_batched_predicate": ("AT204", True),
    "jaxpr_reads_own_buffer": ("AT203", False),
}


def test_all_cases_present():
    assert {c.name for c in CASES} == set(EXPECTED)


def _leaves(tree):
    return [np.asarray(leaf, np.float64) for leaf in jax.tree_util.tree_leaves(tree)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case(case):
    fn = case.entry_of(case.load_before())
    new = transform(fn, static_argnums=case.static_argnums)
    for T in case.sizes[:2]:
        args = case.make_args(T)
        for u, v in zip(_leaves(jax.jit(fn)(*args)), _leaves(jax.jit(new)(*args))):
            np.testing.assert_array_equal(u, v)  # compiled both: XLA may fuse a sum otherwise than eager ops do
        if case.grad_argnums and EXPECTED[case.name][0] != "AT202":
            loss = lambda f: lambda *a: sum(jnp.sum(jnp.sin(x)) for x in jax.tree_util.tree_leaves(f(*a)))
            ga = jax.grad(loss(fn), argnums=case.grad_argnums)(*args)
            gb = jax.jit(jax.grad(loss(new), argnums=case.grad_argnums))(*args)
            for u, v in zip(_leaves(ga), _leaves(gb)):
                np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)
    code, applied = EXPECTED[case.name]
    findings = analyze(new, *case.make_args(case.sizes[-1]))
    assert any(f.code == code and f.applied == applied for f in findings), findings
    assert all(f.source and f.source.endswith(".py:" + f.source.rsplit(":", 1)[1]) for f in findings)
    assert code in explain(new, *case.make_args(case.sizes[-1]))
