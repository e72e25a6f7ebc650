"""A JSON array, one object per finding, with 1-based positions and the fix's edits.

A notebook finding also has ``cell`` (1-based, counting every cell); its ``line``/``column``
and its edits' positions then count from that cell's first line.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from autota.catalogue import Finding
from autota.cli.formats import Report, cell_of


def finding_to_dict(f: Finding) -> dict:
    loc = f.location
    fix = None
    if f.fix is not None:
        fix = {
            "applicability": f.fix.applicability,
            "message": f.fix.message,
            "edits": [asdict(e) for e in f.fix.edits],
        }
    entry = {
        "code": f.code,
        "name": f.name,
        "message": f.message,
        "path": loc.path,
        "line": loc.line,
        "column": loc.column,
        "end_line": loc.end_line,
        "end_column": loc.end_column,
        "fix": fix,
    }
    if f.reason is not None:
        entry["details"] = {"reason": f.reason}
    if cell_of(f) is not None:
        entry["cell"] = cell_of(f)
    return entry


def render(report: Report) -> str:
    return json.dumps([finding_to_dict(f) for f in report.findings], indent=2) + "\n"
