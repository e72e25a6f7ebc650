"""Settings a CI job can rely on: each file gets the nearest ``[tool.autota]``, excludes are
relative to the file that holds them, broken settings are one-line errors (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import GROWTH, run


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """``pyproject.toml`` excluding ``generated/*``, with ``src/a.py`` and ``generated/g.py``."""
    (tmp_path / "pyproject.toml").write_text('[tool.autota]\nexclude = ["generated/*"]\n')
    for rel in ("src/a.py", "generated/g.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(GROWTH)
    return tmp_path


@pytest.mark.parametrize("text, why", [
    ("[tool]\nautota = 5\n", "[tool.autota] must be a table, got int"),
    ("tool = 5\n", "[tool] must be a table"),
    ("[tool.autota\nselect = 1\n", "invalid TOML: "),
    ("[tool.autota]\nselect = 'AT1'\n", "[tool.autota] select must be a list of strings"),
    ("[tool.autota]\nunsafe-fixes = 'yes'\n", "[tool.autota] unsafe-fixes must be true or false"),
    ("[tool.autota]\nselect = ['AT999']\n", "unknown rule code"),
])
def test_broken_settings_are_one_line_errors(capsys, tmp_path, text, why):
    (tmp_path / "pyproject.toml").write_text(text)
    (tmp_path / "a.py").write_text(GROWTH)
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 2 and out == ""
    assert err.startswith(f"autota: error: {tmp_path / 'pyproject.toml'}: ") and why in err
    assert err.count("\n") == 1


def test_excludes_are_relative_to_their_pyproject(capsys, project, monkeypatch):
    for cwd, target in ((project, "."), (project, "src"), (project / "src", ".."), (project.parent, project.name)):
        monkeypatch.chdir(cwd)
        code, out, _ = run(capsys, "check", "-j", "1", target)
        assert code == 1 and out.count("AT101") == 1 and "a.py:7:" in out and "g.py" not in out, (cwd, target)


def test_a_named_file_is_excluded_with_force_exclude(capsys, project, monkeypatch):
    monkeypatch.chdir(project)
    generated = "generated/g.py"
    assert run(capsys, "check", generated)[0] == 1  # named: checked, as Ruff does
    code, out, _ = run(capsys, "check", "--force-exclude", generated, "src/a.py")
    assert code == 1 and "g.py" not in out and out.count("AT101") == 1
    code, out, _ = run(capsys, "fix", "--force-exclude", generated)
    assert code == 0 and (project / generated).read_text() == GROWTH
    (project / "pyproject.toml").write_text('[tool.autota]\nexclude = ["generated"]\nforce-exclude = true\n')
    assert run(capsys, "check", generated) == (0, "All checks passed.\n", "")


def test_each_file_gets_its_nearest_settings_whatever_the_order(capsys, tmp_path):
    for name, table in (("p1", 'ignore = ["AT101"]'), ("p2", "")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "pyproject.toml").write_text(f"[tool.autota]\n{table}\n")
        (tmp_path / name / "m.py").write_text(GROWTH)
    one = run(capsys, "check", "-j", "1", str(tmp_path / "p1"), str(tmp_path / "p2"))
    other = run(capsys, "check", "-j", "1", str(tmp_path / "p2"), str(tmp_path / "p1"))
    assert one == other
    assert one[0] == 1 and "p2/m.py:7:" in one[1] and "p1" not in one[1]


def test_config_option_file_and_inline(capsys, project, monkeypatch):
    monkeypatch.chdir(project)
    other = project / "autota.toml"
    other.write_text('ignore = ["AT1"]\n')
    assert run(capsys, "check", "--config", str(other), ".")[0] == 0
    code, out, _ = run(capsys, "check", "--config", "exclude = []", "-j", "1", ".")
    assert code == 1 and out.count("AT101") == 2  # the inline setting replaced the file's exclude
    code, _, err = run(capsys, "check", "--config", "bogus = 1", ".")
    assert code == 2 and "unknown key(s) in [tool.autota]: bogus" in err
    code, _, err = run(capsys, "check", "--config", "not toml at all", ".")
    assert code == 2 and "neither a file nor a TOML key = value" in err
