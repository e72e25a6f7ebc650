"""The differential generator in CI: generated programs, fixed and run before and after under JAX.

A bounded number of programs per rule, drawn with a fixed seed (the same programs every run);
``benchmarks/differential.py --examples 2000`` is the long run. A safe fix must change nothing
(values, shapes, dtypes, weak types, exceptions, gradients); AT401's unsafe fix may change only
what its doc names. Each leg also checks that the generator still reaches the fix: a family
whose programs autota stopped fixing would pass without testing anything.

:data:`KNOWN` keeps one generated program of each AT2xx class found on the code of the day the
generator was written; each must now keep its results. The loop model fixed the tuple-row
classes; the zero-length buffer (``.at[i].set`` raises IndexError while the body is traced, the
stacked rows would go into it silently) is kept by the fix's guard on the buffer's static length.
"""

from __future__ import annotations

import pytest

from tests.differential.generate import draw_programs
from tests.differential.harness import Program, judge
from tests.differential.known import KNOWN
from tests.differential.report import undocumented

LEGS = {
    # rule: (programs, least share fixed)
    "AT101": (50, 0.5),
    "AT102": (50, 0.4),
    "AT401": (20, 0.3),
    "AT201": (40, 0.2),  # integer buffers are not reported, NumPy and Python rows are unsafe fixes
    "AT202": (16, 0.2),
    "AT204": (40, 0.2),  # rows of unproven dtype into buffers not proven strong floats are unsafe fixes
}


@pytest.mark.slow
@pytest.mark.parametrize(("rule", "count", "least"), [pytest.param(r, *LEGS[r], id=r) for r in LEGS])
def test_generated_fixes_keep_results(rule: str, count: int, least: float):
    verdicts = judge(draw_programs(rule, count, seed_value=12))
    fixed = [v for v in verdicts if v.fixed is not None]
    assert len(fixed) >= least * len(verdicts), f"only {len(fixed)} of {len(verdicts)} generated {rule} programs were fixed"
    changed = [v for v in fixed if (undocumented(v) if v.program.unsafe else v.changes)]
    assert not changed, f"{len(changed)} fixes changed results:\n\n" + "\n\n".join(v.report() for v in changed[:3])


@pytest.mark.slow
@pytest.mark.parametrize(
    "program",
    [pytest.param(p, id=f"{p.rule}-{name}") for name, p in KNOWN.items()],
)
def test_known_class(program: Program):
    (verdict,) = judge([program])
    assert verdict.fixed is None or not verdict.changes, verdict.report()
