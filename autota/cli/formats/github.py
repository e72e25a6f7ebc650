"""GitHub Actions workflow commands: one ``::warning`` a finding, shown as an annotation.

The message is workflow-command *data* (``%``, CR and LF escaped); the properties (``file``,
``title``) also escape ``:`` and ``,``, which would otherwise end them. Columns count
characters. A notebook finding is annotated on the file, its cell and line in the message:
the cell's lines are not lines of the ``.ipynb`` file GitHub shows.
"""

from __future__ import annotations

from autota.cli.formats import Report, cell_of


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report) -> str:
    out = []
    for f in report.findings:
        loc = f.location
        props = {"file": loc.path}
        message = f.text
        cell = cell_of(f)
        if cell is None:
            props |= {"line": loc.line, "endLine": loc.end_line, "col": loc.column, "endColumn": loc.end_column}
        else:
            message = f"cell {cell}, line {loc.line}, column {loc.column}: {message}"
        props["title"] = f.code
        if report.offers_fix(f):
            message += f"\nFix ({f.fix.applicability}, autota fix): {f.fix.message}"
        fields = ",".join(f"{key}={escape_property(str(value))}" for key, value in props.items())
        out.append(f"::warning {fields}::{escape_data(message)}\n")
    return "".join(out)
