"""``compare``: a function before and after a rewrite, measured side by side in one run.

A shared machine drifts over a benchmark; two functions measured a minute apart can differ by
more than the rewrite does. ``compare`` measures both on the same arguments with their timing
samples interleaved, so the ratio at each size is as trustworthy as the machine allows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from autota.proof.measure import DEFAULT_SIZES, MODES, Measurement, measure_together


@dataclass(frozen=True)
class Comparison:
    """Two measurements over the same sizes and modes, and their ratios."""

    before: Measurement
    after: Measurement

    @property
    def sizes(self) -> tuple[int, ...]:
        return self.before.sizes

    @property
    def modes(self) -> tuple[str, ...]:
        return self.before.modes

    def ratios(self, mode: str, figure: str = "run_s") -> list[float | None]:
        """``before / after`` of ``figure`` at each size: above 1, the rewrite saves."""
        return [
            b / a if b is not None and a else None
            for b, a in zip(self.before.values(mode, figure), self.after.values(mode, figure))
        ]

    def __str__(self) -> str:
        from autota.proof.render import comparison_table

        return comparison_table(self)


def compare(
    before: Callable,
    after: Callable,
    make_args: Callable[[int], tuple],
    sizes: Sequence[int] = DEFAULT_SIZES,
    modes: Sequence[str] = MODES,
    *,
    static_argnums: Sequence[int] = (),
    grad_argnums: Sequence[int] | None = None,
    jit: bool | None = None,
    repeats: int = 5,
    min_time: float = 2e-3,
    names: tuple[str, str] = ("before", "after"),
    progress: Callable[[], None] | None = None,
) -> Comparison:
    """Measure ``before`` and ``after`` interleaved; the options are those of
    :func:`autota.measure`, applied to both."""
    b, a = measure_together(
        [before, after], names, make_args, sizes, modes, static_argnums, grad_argnums, jit, repeats, min_time, progress
    )
    return Comparison(b, a)
