"""TorchFix-style fixture pairs: ``<name>.in.py`` -> ``<name>.out.py``, with diagnostics beside.

For each ``fixtures/<CODE>/<name>.in.py``, with only the codes that start with ``<CODE>``
enabled (so that one rule family's fixtures do not depend on another's): ``autota check`` reports exactly the lines of
``<name>.expected`` (``line:col CODE``, with `` [*]`` where a safe fix is offered; the AT2xx snapshots also hold
each message, and its reason on an indented line below); ``autota
fix`` produces ``<name>.out.py`` (or changes nothing where that file is absent), and ``autota fix
--unsafe-fixes`` produces ``<name>.unsafe.py`` where that file exists; fixing the output again
changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autota.catalogue import RULES
from autota.source import check, fix

FIXTURES = sorted(Path(__file__).parent.joinpath("fixtures").glob("*/*.in.py"))


def _describe(findings, full: bool = False) -> list[str]:
    """``line:col CODE`` (`` [*]`` where a safe fix is offered); ``full``: with the message, and the
    reason on an indented line below (the AT2xx snapshots)."""
    lines = []
    for f in findings:
        line = f"{f.location.line}:{f.location.column} {f.code}" + (
            " [*]" if f.fix is not None and f.fix.applicability == "safe" else ""
        )
        if full:
            lines.append(f"{line} {f.message}")
            if f.reason is not None:
                lines.append(f"    reason: {f.reason}")
        else:
            lines.append(line)
    return lines


@pytest.mark.parametrize("path", FIXTURES, ids=[f"{p.parent.name}/{p.name[:-6]}" for p in FIXTURES])
def test_fixture(path: Path):
    expected_path = path.with_name(path.name[: -len(".in.py")] + ".expected")
    out_path = path.with_name(path.name[: -len(".in.py")] + ".out.py")
    enabled = frozenset(code for code in RULES if code.startswith(path.parent.name))
    data = path.read_bytes()
    expected = expected_path.read_text().splitlines()
    full = any(len(line.split(" ")) > 3 for line in expected)
    found = _describe(check(data, str(path), enabled).findings, full)
    assert found == expected
    result = fix(data, str(path), enabled)
    if out_path.exists():
        assert result.fixed_text is not None, "expected a fix"
        assert result.fixed_text.decode() == out_path.read_text()
        assert fix(result.fixed_text, str(path), enabled).fixed_text is None, "fix is not idempotent"
    else:
        assert result.fixed_text is None, "no fix expected"
    unsafe_path = path.with_name(path.name[: -len(".in.py")] + ".unsafe.py")
    if unsafe_path.exists():
        unsafe = fix(data, str(path), enabled, unsafe=True)
        assert unsafe.fixed_text is not None, "expected an unsafe fix"
        assert unsafe.fixed_text.decode() == unsafe_path.read_text()
        assert fix(unsafe.fixed_text, str(path), enabled, unsafe=True).fixed_text is None, "fix is not idempotent"
