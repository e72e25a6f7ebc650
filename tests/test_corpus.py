"""Every corpus case: before and after compute the same thing, and the tool agrees.

* ``before.py`` and ``after.py`` run under real JAX at each of the case's sizes: the outputs
  (pytree, shapes, dtypes, values) and the gradients with respect to ``grad_argnums`` match.
  So do ``before.py`` and ``unsafe.py`` where the case has one.
* ``autota check`` reports on ``before.py`` exactly the findings the case expects.
* ``autota fix`` turns ``before.py`` into ``after.py``, and fixing again changes nothing.
* ``autota fix --unsafe-fixes`` turns it into ``unsafe.py``, or into ``after.py`` where the case
  has no ``unsafe.py``: an unsafe fix no case proves fails here.
"""

from __future__ import annotations

import jax
import pytest

from autota.catalogue import RULES
from autota.corpus import discover
from autota.source import check, fix
from autota.source.rules import IMPLEMENTED_CODES

from tests.conftest import CORPUS
from tests.equivalence import assert_same_tree, scalar_loss

CASES = discover(CORPUS)
ALL = frozenset(RULES)


def _ids(cases):
    return [c.name for c in cases]


def _grad(fn, case, T):
    args = case.make_args(T)
    diff = [args[n] for n in case.grad_argnums]
    return jax.grad(scalar_loss(fn, case.grad_argnums, args), tuple(range(len(diff))))(*diff)


def assert_entries_agree(case, module, label: str) -> None:
    """``case.entry`` of ``before.py`` and of ``module`` agree at every size, outputs and gradients.

    Every call takes fresh arguments (``make_args`` is deterministic): an unsafe fix may donate
    its arguments, which deletes them, and the proof is for a caller that does not reuse them.
    """
    before, other = case.entry_of(case.load_before()), case.entry_of(module)
    for T in case.sizes:
        where = f"{case.name} T={T} {label}"
        assert_same_tree(before(*case.make_args(T)), other(*case.make_args(T)), f"{where} output")
        if case.grad_argnums:
            assert_same_tree(_grad(before, case, T), _grad(other, case, T), f"{where} grad")


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_before_and_after_agree(case):
    if not case.has_fix:
        pytest.skip("after.py is before.py: no fix to compare")
    assert_entries_agree(case, case.load_after(), "after")


UNSAFE_CASES = [c for c in CASES if c.has_unsafe_fix]


@pytest.mark.parametrize("case", UNSAFE_CASES, ids=_ids(UNSAFE_CASES))
def test_before_and_unsafe_agree(case):
    assert_entries_agree(case, case.load_unsafe(), "unsafe")


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_check_reports_expected_findings(case):
    findings = check(case.before_path.read_bytes(), str(case.before_path), ALL).findings
    got = {(f.code, f.location.line, f.fix is not None and f.fix.applicability == "safe") for f in findings}
    want = {(e.code, e.line, e.fixable) for e in case.expect if e.code in IMPLEMENTED_CODES}
    assert {g for g in got if g[0] in IMPLEMENTED_CODES} == want


def _assert_fixes_into(case, expected, unsafe: bool) -> None:
    """``fix`` turns ``before.py`` into the text of ``expected``, and fixing again changes nothing."""
    data = case.before_path.read_bytes()
    result = fix(data, str(case.before_path), ALL, unsafe=unsafe)
    fixed = result.fixed_text if result.fixed_text is not None else data
    assert fixed.decode() == expected.read_text()
    again = fix(fixed, str(case.before_path), ALL, unsafe=unsafe)
    assert again.fixed_text is None, "fix is not idempotent"


def _needs_source_rules(case):
    if not {e.code for e in case.expect} <= IMPLEMENTED_CODES:
        pytest.skip("the case expects codes without a source rule")


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_fix_turns_before_into_after(case):
    _needs_source_rules(case)
    _assert_fixes_into(case, case.after_path, unsafe=False)


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_unsafe_fix_turns_before_into_unsafe_or_after(case):
    """Into ``unsafe.py`` where the case proves an unsafe fix; elsewhere there must be none."""
    _needs_source_rules(case)
    _assert_fixes_into(case, case.unsafe_path if case.has_unsafe_fix else case.after_path, unsafe=True)
