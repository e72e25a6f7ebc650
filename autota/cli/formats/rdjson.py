"""reviewdog's diagnostic format (``reviewdog -f=rdjson``), with fixes as suggestions.

Ranges are 1-based with an exclusive end and columns count UTF-8 bytes, as rdjson defines
them. The diagnostic's range is the finding's own. Its suggestion is the fix merged into one
*linewise* range (``start``/``end`` lines, no columns: lines ``start`` to ``end`` inclusive,
the text without the last line break): reviewdog comments on the suggestion's lines when they
are in the diff and posts it as a GitHub suggestion block, which must replace whole lines.
A notebook finding gets no range and no suggestion: its lines are the cell's, not the file's.
"""

from __future__ import annotations

import json

from autota.catalogue import Finding
from autota.cli.formats import Report, cell_of
from autota.cli.formats.suggestion import line_replacement
from autota.source.text import SourceText


def _position(source: SourceText | None, line: int, column: int) -> dict:
    if source is None or line > source.line_count:
        return {"line": line, "column": column}
    prefix = source.line(line)[: column - 1]
    return {"line": line, "column": len(prefix.encode("utf-8")) + 1}


def diagnostic(f: Finding, report: Report) -> dict:
    loc = f.location
    text = report.sources.get(loc.path)
    source = SourceText(text) if text is not None else None
    cell = cell_of(f)
    location: dict = {"path": loc.path}
    message = f.text
    if cell is None:
        location["range"] = {
            "start": _position(source, loc.line, loc.column),
            "end": _position(source, loc.end_line, loc.end_column),
        }
    else:
        message = f"cell {cell}, line {loc.line}, column {loc.column}: {message}"
    entry = {"message": message, "location": location, "severity": "WARNING", "code": {"value": f.code}}
    if report.offers_fix(f) and text is not None and cell is None:
        change = line_replacement(f.fix, text)
        if change is not None:
            entry["suggestions"] = [
                {"range": {"start": {"line": change.first}, "end": {"line": change.last}}, "text": change.new_lines}
            ]
    return entry


def render(report: Report) -> str:
    result = {
        "source": {"name": "autota"},
        "severity": "WARNING",
        "diagnostics": [diagnostic(f, report) for f in report.findings],
    }
    return json.dumps(result, indent=2, ensure_ascii=False) + "\n"
