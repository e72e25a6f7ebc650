"""The differential generator in CI: generated programs, fixed and run before and after under JAX.

A bounded number of programs per rule, drawn with a fixed seed (the same programs every run);
``benchmarks/differential.py --examples 2000`` is the long run. A safe fix must change nothing
(values, shapes, dtypes, weak types, exceptions, gradients); AT401's unsafe fix may change only
what its doc names. Each leg also checks that the generator still reaches the fix: a family
whose programs autota stopped fixing would pass without testing anything.

:data:`KNOWN` keeps one generated program of each AT2xx class found on the code of the day the
generator was written. The loop model fixed the tuple-row classes; one class is still open, so
it and the AT201 leg (which draws it) are ``xfail(strict=False)``: a zero-length buffer, where
``.at[i].set`` raises IndexError while the loop body is traced and the stacked-output fix returns
an empty buffer instead.
"""

from __future__ import annotations

import pytest

from tests.differential.generate import draw_programs
from tests.differential.harness import Program, judge
from tests.differential.known import KNOWN
from tests.differential.report import undocumented

AT2XX = "issue 12, an AT2xx class still open: "
OPEN = "zero-length buffer: IndexError became a value"
LEGS = {
    # rule: (programs, least share fixed, why a leg may fail)
    "AT101": (50, 0.5, None),
    "AT102": (50, 0.5, None),
    "AT401": (20, 0.3, None),
    "AT201": (16, 0.3, AT2XX + OPEN),
    "AT202": (16, 0.2, None),
    "AT204": (16, 0.2, None),  # Python-number rows are unsafe fixes now, so fewer are fixed
}


def _leg(rule):
    count, least, known = LEGS[rule]
    marks = [pytest.mark.xfail(strict=False, reason=known)] if known else []
    return pytest.param(rule, count, least, id=rule, marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize(("rule", "count", "least"), [_leg(rule) for rule in LEGS])
def test_generated_fixes_keep_results(rule: str, count: int, least: float):
    verdicts = judge(draw_programs(rule, count, seed_value=12))
    fixed = [v for v in verdicts if v.fixed is not None]
    assert len(fixed) >= least * len(verdicts), f"only {len(fixed)} of {len(verdicts)} generated {rule} programs were fixed"
    changed = [v for v in fixed if (undocumented(v) if v.program.unsafe else v.changes)]
    assert not changed, f"{len(changed)} fixes changed results:\n\n" + "\n\n".join(v.report() for v in changed[:3])


@pytest.mark.slow
@pytest.mark.parametrize(
    "program",
    [
        pytest.param(p, id=f"{p.rule}-{name}", marks=[pytest.mark.xfail(strict=False, reason=AT2XX + name)] if name == OPEN else [])
        for name, p in KNOWN.items()
    ],
)
def test_known_class(program: Program):
    (verdict,) = judge([program])
    assert verdict.fixed is None or not verdict.changes, verdict.report()
