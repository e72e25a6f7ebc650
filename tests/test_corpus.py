"""Every corpus case: before and after compute the same thing, and the tool agrees.

* ``before.py`` and ``after.py`` run under real JAX at each of the case's sizes: the outputs
  (pytree, shapes, dtypes, values) and the gradients with respect to ``grad_argnums`` match.
* ``autota check`` reports on ``before.py`` exactly the findings the case expects.
* ``autota fix`` turns ``before.py`` into ``after.py``, and fixing again changes nothing.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autota.catalogue import RULES
from autota.corpus import discover
from autota.source import check, fix
from autota.source.rules import IMPLEMENTED_CODES

from tests.conftest import CORPUS

CASES = discover(CORPUS)
ALL = frozenset(RULES)


def _ids(cases):
    return [c.name for c in cases]


def assert_same_tree(a, b, where: str) -> None:
    la, ta = jax.tree_util.tree_flatten(a)
    lb, tb = jax.tree_util.tree_flatten(b)
    assert ta == tb, f"{where}: pytree structure differs: {ta} vs {tb}"
    for i, (x, y) in enumerate(zip(la, lb)):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape, f"{where}[{i}]: shape {x.shape} vs {y.shape}"
        assert x.dtype == y.dtype, f"{where}[{i}]: dtype {x.dtype} vs {y.dtype}"
        if np.issubdtype(x.dtype, np.inexact):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6, err_msg=f"{where}[{i}]")
        else:
            np.testing.assert_array_equal(x, y, err_msg=f"{where}[{i}]")


def _scalar_loss(fn, argnums, args):
    def loss(*diff):
        full = list(args)
        for n, value in zip(argnums, diff):
            full[n] = value
        leaves = jax.tree_util.tree_leaves(fn(*full))
        return sum(jnp.sum(leaf) for leaf in leaves if jnp.issubdtype(jnp.result_type(leaf), jnp.inexact))

    return loss


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_before_and_after_agree(case):
    if not case.has_fix:
        pytest.skip("after.py is before.py: no fix to compare")
    before, after = case.entry_of(case.load_before()), case.entry_of(case.load_after())
    for T in case.sizes:
        args = case.make_args(T)
        assert_same_tree(before(*args), after(*args), f"{case.name} T={T} output")
        if case.grad_argnums:
            argnums = tuple(range(len(case.grad_argnums)))
            diff = [args[n] for n in case.grad_argnums]
            g_before = jax.grad(_scalar_loss(before, case.grad_argnums, args), argnums)(*diff)
            g_after = jax.grad(_scalar_loss(after, case.grad_argnums, args), argnums)(*diff)
            assert_same_tree(g_before, g_after, f"{case.name} T={T} grad")


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_check_reports_expected_findings(case):
    findings = check(case.before_path.read_bytes(), str(case.before_path), ALL).findings
    got = {(f.code, f.location.line, f.fix is not None and f.fix.applicability == "safe") for f in findings}
    want = {(e.code, e.line, e.fixable) for e in case.expect if e.code in IMPLEMENTED_CODES}
    assert {g for g in got if g[0] in IMPLEMENTED_CODES} == want


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_fix_turns_before_into_after(case):
    if not {e.code for e in case.expect} <= IMPLEMENTED_CODES:
        pytest.skip("the case expects codes without a source rule")
    result = fix(case.before_path.read_bytes(), str(case.before_path), ALL)
    fixed = result.fixed_text if result.fixed_text is not None else case.before_path.read_bytes()
    assert fixed.decode() == case.after_path.read_text()
    again = fix(fixed, str(case.before_path), ALL)
    assert again.fixed_text is None, "fix is not idempotent"
