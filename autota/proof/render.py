"""Tables of measurements, as aligned text for a terminal or Markdown for a README or a PR.

Rendering is kept apart from measuring so the CLI, ``__str__`` and the benchmarks print the
same thing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from autota.proof.comparison import Comparison
    from autota.proof.measure import Measurement

LABELS = {
    "run_s": "run time",
    "compile_s": "compile time",
    "temp_bytes": "temp memory",
    "argument_bytes": "argument memory",
    "output_bytes": "output memory",
    "eqns": "equations",
}

BENCH_HEADERS = ("case", "mode", "time before", "time after", "speedup", "temp before", "temp after", "memory saved")


def text_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Left-aligned columns separated by two spaces, with a rule under the header."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-flavoured Markdown table (pipes in cells escaped)."""

    def line(cells):
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(headers), line(["---"] * len(headers)), *(line(r) for r in rows)])


def human(figure: str, value: Any) -> str:
    """A figure's value with its unit: ``1.23 ms``, ``4.0 MiB``, ``42``."""
    if value is None:
        return "-"
    if figure.endswith("_s"):
        for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
            if value >= scale:
                return f"{value / scale:.3g} {unit}"
        return f"{value / 1e-9:.3g} ns"
    if figure.endswith("_bytes"):
        for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
            if value >= scale:
                return f"{value / scale:.3g} {unit}"
        return f"{value} B"
    return str(value)


def ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}x"


def measurement_rows(m: Measurement) -> tuple[list[str], list[list[Any]]]:
    """Headers and rows: each figure at each size, with its fitted exponent and class."""
    headers = ["figure", "mode", *(f"T={t}" for t in m.sizes), "fit"]
    rows = []
    for mode in m.modes:
        for figure in _figures_present(m, mode):
            values = m.values(mode, figure)
            rows.append([LABELS[figure], mode, *(human(figure, v) for v in values), m.fit(mode, figure)])
    return headers, rows


def measurement_table(m: Measurement) -> str:
    title = f"{m.name} ({m.how}{': ' + m.note if m.note else ''})"
    return f"{title}\n{text_table(*measurement_rows(m))}{_uncertain_notes(m)}"


def comparison_table(c: Comparison) -> str:
    """Fits before and after, and the before/after ratio at each size."""
    headers = ["figure", "mode", "before", "after", *(f"ratio T={t}" for t in c.sizes)]
    rows = []
    for mode in c.modes:
        for figure in _figures_present(c.before, mode):
            rows.append(
                [LABELS[figure], mode, c.before.fit(mode, figure), c.after.fit(mode, figure),
                 *(ratio(r) for r in c.ratios(mode, figure))]
            )
    lines = [f"{c.before.name} vs {c.after.name}"]
    lines += [f"  {m.name}: {m.note}" for m in (c.before, c.after) if m.note]
    return "\n".join(lines) + "\n" + text_table(headers, rows) + _uncertain_notes(c.before) + _uncertain_notes(c.after)


def bench_rows(name: str, c: Comparison) -> list[list[str]]:
    """One row per mode for ``autota bench``: fits of run time and temp memory before and
    after, and the ratios at the largest size."""
    rows = []
    largest = f"@T={c.sizes[-1]}" if c.sizes else ""
    for mode in c.modes:
        time_ratio = c.ratios(mode, "run_s")[-1]
        mem_ratio = c.ratios(mode, "temp_bytes")[-1]
        rows.append([
            name, mode,
            str(c.before.fit(mode, "run_s")), str(c.after.fit(mode, "run_s")),
            f"{ratio(time_ratio)} {largest}" if time_ratio is not None else "-",
            _memory_fit(c.before, mode), _memory_fit(c.after, mode),
            f"{ratio(mem_ratio)} {largest}" if mem_ratio is not None else "-",
        ])
    return rows


def _memory_fit(m: Measurement, mode: str) -> str:
    return "n/a (eager)" if m.how == "eager" else str(m.fit(mode, "temp_bytes"))


def _figures_present(m: Measurement, mode: str) -> list[str]:
    from autota.proof.measure import FIGURES

    return [f for f in FIGURES if any(v is not None for v in m.values(mode, f))]


def _uncertain_notes(m: Measurement) -> str:
    notes = []
    for mode in m.modes:
        for figure in _figures_present(m, mode):
            f = m.fit(mode, figure)
            if f.uncertain and f.why:
                notes.append(f"\n  ? {m.name} {mode} {LABELS[figure]}: {f.why}")
    return "".join(notes)
