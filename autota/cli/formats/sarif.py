"""SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.

The driver lists every catalogue rule with its doc as help text, so each result links to the
rule's documentation. Regions are 1-based with an exclusive end and columns count characters
(``columnKind: unicodeCodePoints``). A fix is one replacement of whole lines, from column 1
of its first line to column 1 of the line after its last. A notebook result points at the
file and carries its cell, line and column in ``properties``; its fix is left out, since the
cell's lines are not lines of the ``.ipynb`` file. Errors become tool notifications.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from autota import __version__
from autota.catalogue import RULES, Finding, Rule
from autota.cli.formats import Report, cell_of
from autota.cli.formats.suggestion import line_replacement

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri(path: str) -> str:
    p = Path(path)
    return p.as_uri() if p.is_absolute() else quote(p.as_posix())


def _doc(rule: Rule) -> str | None:
    """The rule's Markdown doc; ``None`` for a rule whose doc is not written yet."""
    try:
        return rule.doc
    except OSError:
        return None


def _first_paragraph(doc: str) -> str | None:
    body = doc.split("## What it does", 1)[-1].strip().split("\n\n", 1)[0]
    lines = [line for line in body.splitlines() if not line.startswith("#")]
    return " ".join(lines).strip() or None


def descriptor(rule: Rule) -> dict:
    doc = _doc(rule)
    help_text = doc or f"{rule.summary}."
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": (doc and _first_paragraph(doc)) or rule.summary},
        "help": {"text": help_text, "markdown": help_text},
        "defaultConfiguration": {"level": "warning"},
        "properties": {"fix": rule.fix},
    }


def _fix(f: Finding, text: str) -> dict | None:
    change = line_replacement(f.fix, text)
    if change is None:
        return None
    end_line, end_column = change.end
    region = {"startLine": change.first, "startColumn": 1, "endLine": end_line, "endColumn": end_column}
    return {
        "description": {"text": f.fix.message},
        "artifactChanges": [
            {
                "artifactLocation": {"uri": _uri(f.location.path)},
                "replacements": [{"deletedRegion": region, "insertedContent": {"text": change.new}}],
            }
        ],
    }


def result(f: Finding, report: Report) -> dict:
    loc = f.location
    physical: dict = {"artifactLocation": {"uri": _uri(loc.path)}}
    entry: dict = {"ruleId": f.code, "level": "warning", "message": {"text": f.text}}
    if f.code in RULES:
        entry["ruleIndex"] = list(RULES).index(f.code)
    cell = cell_of(f)
    if cell is None:
        physical["region"] = {
            "startLine": loc.line,
            "startColumn": loc.column,
            "endLine": loc.end_line,
            "endColumn": loc.end_column,
        }
    else:
        entry["message"]["text"] = f"cell {cell}, line {loc.line}, column {loc.column}: {f.text}"
        entry["properties"] = {"cell": cell, "line": loc.line, "column": loc.column}
    if f.reason is not None:
        entry.setdefault("properties", {})["reason"] = f.reason
    entry["locations"] = [{"physicalLocation": physical}]
    text = report.sources.get(loc.path)
    if report.offers_fix(f) and text is not None and cell is None:
        fix = _fix(f, text)
        if fix is not None:
            entry["fixes"] = [fix]
    return entry


def render(report: Report) -> str:
    notifications = [
        {
            "level": "error",
            "message": {"text": why},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(path)}}}],
        }
        for path, why in report.errors
    ]
    run = {
        "tool": {"driver": {"name": "autota", "version": __version__, "rules": [descriptor(r) for r in RULES.values()]}},
        "invocations": [{"executionSuccessful": not report.errors, "toolExecutionNotifications": notifications}],
        "columnKind": "unicodeCodePoints",
        "results": [result(f, report) for f in report.findings],
    }
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False) + "\n"
