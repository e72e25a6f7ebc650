"""One ``path:line:col: CODE message`` line a finding and nothing else, for grep and editors."""

from __future__ import annotations

from autota.cli.formats import Report, where


def render(report: Report) -> str:
    return "".join(f"{where(f)}: {f.code} {f.text}\n" for f in report.findings)
