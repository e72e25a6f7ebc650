"""Report formats: each module renders a :class:`Report` to the text that goes to stdout.

``text``, ``concise`` and ``json`` are for people and scripts; ``github`` (workflow commands),
``rdjson`` (reviewdog) and ``sarif`` (code scanning) are for CI, where findings become
annotations and review comments with the fix as a suggestion.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from autota.catalogue import Finding

NAMES = ("text", "concise", "json", "github", "rdjson", "sarif")

CELL = "cell"
"""The key in ``Finding.details`` holding a notebook finding's 1-based cell number."""


@dataclass
class Report:
    """What one ``check``/``fix`` run found, for a format to render."""

    findings: list[Finding]
    errors: list[tuple[str, str]] = field(default_factory=list)
    command: str = "check"
    unsafe_fixes: bool = False
    fixed: int = 0
    sources: dict[str, str] = field(default_factory=dict)
    """The text each fixable finding's edits refer to, by path: suggestions are built from it.
    A path missing here gets no suggestion (notebooks: their raw JSON is not the cell text)."""
    color: bool = False
    """Whether ``text`` may colour its output (a terminal, no NO_COLOR)."""
    summary: bool = True
    """Whether ``text`` ends with its summary line (not under ``-q``)."""

    def offers_fix(self, finding: Finding) -> bool:
        """Whether ``autota fix`` (with this run's flags) would apply the finding's fix."""
        return finding.fix is not None and (finding.fix.applicability == "safe" or self.unsafe_fixes)


def cell_of(finding: Finding) -> int | None:
    """The notebook cell a finding is in (its lines count from the cell's first), else ``None``."""
    return finding.details.get(CELL)


def where(finding: Finding) -> str:
    """``path:line:col``, or ``nb.ipynb:cell 3:line:col`` for a notebook cell."""
    loc = finding.location
    cell = cell_of(finding)
    path = loc.path if cell is None else f"{loc.path}:cell {cell}"
    return f"{path}:{loc.line}:{loc.column}"


def render(name: str, report: Report) -> str:
    if name not in NAMES:
        raise ValueError(f"unknown output format {name!r}")
    return importlib.import_module(f"autota.cli.formats.{name}").render(report)
