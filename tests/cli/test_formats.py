"""Each output format's structure: what CI tools (GitHub, reviewdog, SARIF viewers) parse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autota.catalogue import RULES, Edit, Finding, Fix, Location
from autota.cli.formats import NAMES, Report, render
from autota.cli.formats.github import escape_data, escape_property
from autota.cli.formats.suggestion import line_replacement
from autota.cli.main import main
from autota.source.text import SourceText
from tests.conftest import SHARED

GROWTH = """import jax.numpy as jnp


def f(xs):
    out = jnp.zeros((0, 3))  # ünïcode before the call
    for x in xs:
        out = jnp.concatenate([out, x[None]], axis=0)
    return out
"""
SARIF_SCHEMA = SHARED / "data" / "sarif-schema-2.1.0.json"


@pytest.fixture
def growth_file(tmp_path: Path) -> Path:
    path = tmp_path / "growth.py"
    path.write_text(GROWTH, encoding="utf-8")
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def fixed(text: str, change) -> str:
    """``text`` with a line replacement applied, as a suggestion's user would apply it."""
    source = SourceText(text)
    start, end = source.offset(change.first, 1), source.offset(change.last + 1, 1)
    return text[:start] + change.new + text[end:]


# -- line-aligned suggestions ---------------------------------------------------------------


def test_fix_edits_merge_into_one_whole_line_replacement(capsys, growth_file):
    fix = json.loads(run(capsys, "check", "--output-format", "json", str(growth_file))[1])[0]["fix"]
    edits = tuple(Edit(**e) for e in fix["edits"])
    change = line_replacement(Fix("safe", fix["message"], edits), GROWTH)
    assert (change.first, change.last) == (6, 7)  # the loop header and the grown line
    assert change.old == "    for x in xs:\n        out = jnp.concatenate([out, x[None]], axis=0)\n"
    assert fixed(GROWTH, change) == SourceText(GROWTH).apply(edits)
    assert change.end == (8, 1)
    assert not change.new_lines.endswith("\n") and change.new_lines + "\n" == change.new


@pytest.mark.parametrize(
    "edits, first, last",
    [
        ((Edit(2, 1, 2, 1, "inserted\n"),), 2, 2),  # a lone insertion claims the line it precedes
        ((Edit(2, 3, 2, 3, "x"),), 2, 2),
        ((Edit(1, 1, 3, 1, ""),), 1, 2),  # whole lines deleted: line 3 is not touched
        ((Edit(1, 2, 2, 1, ""),), 1, 2),  # removes line 1's line break: line 2 joins
        ((Edit(1, 2, 3, 1, ""),), 1, 3),
        ((Edit(4, 1, 4, 1, "tail\n"),), 3, 3),  # at the end of the file: the last line
        ((Edit(3, 1, 3, 1, "a\n"), Edit(1, 1, 1, 2, "B")), 1, 2),
    ],
)
def test_line_replacement_is_exact_and_line_aligned(edits, first, last):
    text = "abc\ndef\nghi\n"
    change = line_replacement(Fix("safe", "m", edits), text)
    assert (change.first, change.last) == (first, last)
    assert fixed(text, change) == SourceText(text).apply(edits)
    assert change.new == "" or change.new.endswith("\n") == change.old.endswith("\n")


def test_line_replacement_without_final_newline():
    text = "abc\ndef"
    change = line_replacement(Fix("safe", "m", (Edit(2, 4, 2, 4, "!"),)), text)
    assert (change.first, change.last, change.end, change.new_lines) == (2, 2, (2, 4), "def!")


# -- people's formats --------------------------------------------------------------------------


def test_text_and_concise(capsys, growth_file):
    code, out, _ = run(capsys, "check", str(growth_file))
    assert code == 1 and out.splitlines()[-1] == "1 finding, 1 fixable with autota fix."
    code, out, _ = run(capsys, "check", "--output-format", "concise", str(growth_file))
    assert code == 1
    assert out == f"{growth_file}:7:15: AT101 " + out.split(" AT101 ", 1)[1]
    assert out.count("\n") == 1  # one line a finding, no summary


def test_every_format_renders_an_empty_report():
    for name in NAMES:
        assert isinstance(render(name, Report([])), str)


# -- GitHub workflow commands -------------------------------------------------------------------


def test_github_workflow_command(capsys, growth_file):
    code, out, _ = run(capsys, "check", "--output-format", "github", str(growth_file))
    assert code == 1
    line, = out.splitlines()
    props, message = line[len("::warning ") :].split("::", 1)
    fields = dict(item.split("=", 1) for item in props.split(","))
    assert fields == {
        "file": escape_property(str(growth_file)),
        "line": "7",
        "endLine": "7",
        "col": "15",
        "endColumn": "54",
        "title": "AT101",
    }
    assert "%0AFix (safe, autota fix): " in message and "\n" not in message


def test_github_escaping_of_commas_colons_and_newlines():
    finding = Finding(
        "AT101",
        "50% of a, b: c\r\nnext line",
        Location("dir,1/a:b.py", 3, 1, 3, 5),
    )
    out = render("github", Report([finding]))
    assert out == (
        "::warning file=dir%2C1/a%3Ab.py,line=3,endLine=3,col=1,endColumn=5,title=AT101"
        "::50%25 of a, b: c%0D%0Anext line\n"
    )
    assert escape_data("a%0A") == "a%250A"  # % first, so an escape is never read twice


# -- reviewdog ----------------------------------------------------------------------------------


def test_rdjson_fields_and_a_suggestion_that_applies(capsys, growth_file):
    code, out, _ = run(capsys, "check", "--output-format", "rdjson", str(growth_file))
    assert code == 1
    result = json.loads(out)
    assert result["source"]["name"] == "autota"
    diagnostic, = result["diagnostics"]
    assert set(diagnostic) == {"message", "location", "severity", "code", "suggestions"}
    assert diagnostic["code"] == {"value": "AT101"} and diagnostic["severity"] == "WARNING"
    assert diagnostic["location"] == {
        "path": str(growth_file),
        "range": {"start": {"line": 7, "column": 15}, "end": {"line": 7, "column": 54}},
    }
    suggestion, = diagnostic["suggestions"]
    assert suggestion["range"] == {"start": {"line": 6}, "end": {"line": 7}}  # linewise, inclusive
    lines = GROWTH.splitlines(keepends=True)
    suggested = "".join(lines[:5]) + suggestion["text"] + "\n" + "".join(lines[7:])
    assert run(capsys, "fix", str(growth_file))[0] == 0
    assert suggested == growth_file.read_text(encoding="utf-8")


def test_rdjson_columns_are_utf8_bytes():
    text = "é = 1; bad()\n"
    finding = Finding("AT101", "m", Location("a.py", 1, 8, 1, 13))
    out = json.loads(render("rdjson", Report([finding], sources={"a.py": text})))
    assert out["diagnostics"][0]["location"]["range"] == {
        "start": {"line": 1, "column": 9},
        "end": {"line": 1, "column": 14},
    }


def test_unsafe_fix_is_no_suggestion_unless_asked():
    fix = Fix("unsafe", "m", (Edit(1, 1, 1, 4, "xyz"),))
    finding = Finding("AT101", "m", Location("a.py", 1, 1, 1, 4), fix)
    sources = {"a.py": "abc\n"}
    assert "suggestions" not in json.loads(render("rdjson", Report([finding], sources=sources)))["diagnostics"][0]
    report = Report([finding], sources=sources, unsafe_fixes=True)
    assert json.loads(render("rdjson", report))["diagnostics"][0]["suggestions"][0]["text"] == "xyz"


# -- SARIF --------------------------------------------------------------------------------------


def _sarif_schema() -> dict:
    if not SARIF_SCHEMA.is_file():
        pytest.skip(f"the SARIF 2.1.0 schema is not at {SARIF_SCHEMA} (../shared beside the project)")
    return json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))


def test_sarif_validates_and_carries_rules_and_fixes(capsys, growth_file, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = _sarif_schema()
    (tmp_path / "broken.py").write_text("import jax\ndef f(:\n")
    code, out, _ = run(capsys, "check", "--output-format", "sarif", str(tmp_path))
    assert code == 2
    log = json.loads(out)
    jsonschema.validate(log, schema)
    assert log["version"] == "2.1.0"
    run_ = log["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    for rule in rules:
        assert rule["name"] and rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"]
    result, = run_["results"]
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == "AT101"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 7, "startColumn": 15, "endLine": 7, "endColumn": 54}
    change, = result["fixes"][0]["artifactChanges"]
    replacement, = change["replacements"]
    assert replacement["deletedRegion"] == {"startLine": 6, "startColumn": 1, "endLine": 8, "endColumn": 1}
    assert replacement["insertedContent"]["text"].startswith("    out_parts = []\n    for x in xs:\n")
    notification, = run_["invocations"][0]["toolExecutionNotifications"]
    assert "syntax error" in notification["message"]["text"]
    assert run_["invocations"][0]["executionSuccessful"] is False


def test_sarif_help_falls_back_to_the_summary_without_a_doc():
    from autota.catalogue import Rule
    from autota.cli.formats import sarif

    rule = Rule("AT999", "no-doc-yet", "A rule without a doc", "none")
    descriptor = sarif.descriptor(rule)
    assert descriptor["help"]["text"] == "A rule without a doc."
    assert descriptor["fullDescription"]["text"] == "A rule without a doc"


# -- diff ---------------------------------------------------------------------------------------


def test_diff_is_one_patch_for_the_tree(capsys, tmp_path):
    (tmp_path / "a.py").write_text(GROWTH, encoding="utf-8")
    (tmp_path / "b.py").write_text(GROWTH.rstrip("\n"), encoding="utf-8")  # no final newline
    code, out, _ = run(capsys, "check", "--diff", str(tmp_path))
    assert code == 1
    assert out.count("\n--- ") + out.startswith("--- ") == 2
    assert "\n\\ No newline at end of file\n" in out
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == GROWTH  # nothing written
