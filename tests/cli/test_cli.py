"""The command line as a user meets it: exit codes, formats, selection, config, suppression."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autota.cli.main import main
from tests.cli.helpers import GROWTH


@pytest.fixture
def growth_file(tmp_path: Path) -> Path:
    path = tmp_path / "growth.py"
    path.write_text(GROWTH)
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_reports_and_exits_1(capsys, growth_file):
    code, out, _ = run(capsys, "check", str(growth_file))
    assert code == 1
    assert f"{growth_file}:7:15: AT101 [*] " in out
    assert out.rstrip().endswith("1 finding, 1 fixable with autota fix.")


def test_main_writes_to_a_text_stream_a_program_gives_it(growth_file):
    """Sweep 30b: a program calling ``main`` with stdout redirected to ``io.StringIO`` (no bytes
    under it) gets the report, not an internal error."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["check", "--output-format", "json", str(growth_file)])
    assert code == 1 and json.loads(out.getvalue())[0]["code"] == "AT101"


def test_clean_file_exits_0(capsys, tmp_path):
    (tmp_path / "ok.py").write_text("import jax.numpy as jnp\nx = jnp.ones(3)\n")
    code, out, _ = run(capsys, "check", str(tmp_path))
    assert code == 0 and "All checks passed." in out


def test_exit_zero(capsys, growth_file):
    assert run(capsys, "check", "--exit-zero", str(growth_file))[0] == 0


def test_json_format(capsys, growth_file):
    code, out, _ = run(capsys, "check", "--output-format", "json", str(growth_file))
    [item] = json.loads(out)
    assert code == 1
    assert {k: item[k] for k in ("code", "name", "line", "column", "end_line", "end_column")} == {
        "code": "AT101", "name": "concat-growth", "line": 7, "column": 15, "end_line": 7, "end_column": 33,
    }
    assert item["fix"]["applicability"] == "safe"
    assert {"line", "column", "end_line", "end_column", "content"} == set(item["fix"]["edits"][0])


def test_select_and_ignore_by_prefix(capsys, growth_file):
    assert run(capsys, "check", "--select", "AT10", str(growth_file))[0] == 1
    assert run(capsys, "check", "--select", "AT102", str(growth_file))[0] == 0
    assert run(capsys, "check", "--ignore", "AT1", str(growth_file))[0] == 0


def test_unknown_code_is_an_error(capsys, growth_file):
    code, _, err = run(capsys, "check", "--select", "AT999", str(growth_file))
    assert code == 2 and "unknown rule code" in err


def test_bad_option_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["check", "--no-such-option"])
    assert exc.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_missing_path_is_an_error_after_the_rest(capsys, growth_file, tmp_path):
    code, out, err = run(capsys, "check", str(tmp_path / "missing.py"), str(growth_file))
    assert code == 2
    assert f"{tmp_path / 'missing.py'}: error: no such file or directory" in err
    assert "AT101" in out


def test_diff_writes_nothing(capsys, growth_file):
    code, out, _ = run(capsys, "check", "--diff", str(growth_file))
    assert code == 1
    assert "+        out_parts.append(jnp.copy(jnp.ravel(x)))" in out and "-        out = jnp.append(out, x)" in out
    assert growth_file.read_text() == GROWTH
    code, out, _ = run(capsys, "fix", "--diff", str(growth_file))
    assert code == 1 and growth_file.read_text() == GROWTH


def test_fix_writes_and_is_idempotent(capsys, growth_file):
    code, out, _ = run(capsys, "fix", str(growth_file))
    assert code == 0 and "Fixed 1 finding, 0 remaining." in out
    fixed = growth_file.read_text()
    assert "out_parts.append(jnp.copy(jnp.ravel(x)))" in fixed
    assert run(capsys, "fix", str(growth_file))[0] == 0
    assert growth_file.read_text() == fixed


def test_pyproject_settings(capsys, tmp_path, growth_file):
    (tmp_path / "pyproject.toml").write_text('[tool.autota]\nignore = ["AT101"]\n')
    assert run(capsys, "check", str(tmp_path))[0] == 0
    (tmp_path / "pyproject.toml").write_text('[tool.autota]\nexclude = ["growth.py"]\n')
    assert run(capsys, "check", str(tmp_path))[0] == 0
    (tmp_path / "pyproject.toml").write_text('[tool.autota]\nbogus = 1\n')
    code, _, err = run(capsys, "check", str(tmp_path))
    assert code == 2 and "unknown key" in err


def test_exclude_option_and_skipped_directories(capsys, tmp_path):
    for folder in ("pkg", ".venv/lib", "build", "pkg/__pycache__", "gen"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "g.py").write_text(GROWTH)
    code, out, _ = run(capsys, "check", "--exclude", "gen", str(tmp_path))
    assert code == 1
    assert out.count("AT101") == 1 and f"{tmp_path / 'pkg' / 'g.py'}:" in out


def test_skip_file_comment(capsys, tmp_path):
    path = tmp_path / "s.py"
    path.write_text("# autota: skip-file\n" + GROWTH)
    assert run(capsys, "check", str(path))[0] == 0


def test_unparsable_file_exits_2_and_stays_untouched(capsys, tmp_path, growth_file):
    bad = tmp_path / "bad.py"
    content = b"import jax\ndef f(:\n    pass\n"  # nothing a rule looks for: still checked
    bad.write_bytes(content)
    code, out, err = run(capsys, "fix", str(tmp_path))
    assert code == 2
    assert f"{bad}: error: syntax error" in err and "Traceback" not in err
    assert bad.read_bytes() == content
    assert "out_parts" in growth_file.read_text()  # the other file was still fixed


def test_binary_and_non_utf8_files_are_errors(capsys, tmp_path):
    (tmp_path / "bin.py").write_bytes(b"jax\x00\x01\x02")
    (tmp_path / "latin.py").write_bytes("# jax: caf\xe9\n".encode("latin-1"))
    code, _, err = run(capsys, "check", str(tmp_path))
    assert code == 2
    assert "bin.py: error: binary file" in err and "latin.py: error: cannot decode" in err


def test_crlf_comments_and_encoding_survive_a_fix(capsys, tmp_path):
    source = (
        "# -*- coding: latin-1 -*-\r\n"
        "import jax.numpy as jnp  # caf\xe9\r\n"
        "\r\n"
        "def f(xs):\r\n"
        "    out = jnp.zeros((0,))   # odd   spacing kept\r\n"
        "    for x in xs:\r\n"
        "        # a comment in the loop\r\n"
        "        out = jnp.concatenate([out, x[None]])  # grow\r\n"
        "    return out\r\n"
    )
    path = tmp_path / "crlf.py"
    path.write_bytes(source.encode("latin-1"))
    assert run(capsys, "fix", str(path))[0] == 0
    data = path.read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")
    text = data.decode("latin-1")
    for kept in ("# caf\xe9", "# odd   spacing kept", "# a comment in the loop", "# grow"):
        assert kept in text
    assert "out_parts.append(jnp.copy(jnp.squeeze(x[None], ())))  # grow\r\n" in text


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_noqa_holds_whatever_the_line_endings_and_a_fix_is_idempotent(capsys, tmp_path, newline):
    """Review 47: with CR-only line endings `# noqa` was read on the wrong line, so AT101 rewrote
    its own `# noqa: AT101` fallback loop again on every run."""
    lines = [
        "import jax.numpy as jnp",
        "",
        "def fill(n):",
        "    buf = jnp.zeros((n,))",
        "    for i in range(n):",
        "        buf = buf.at[i].set(i * 1.5)  # noqa: AT102",
        "    return buf",
        "",
        "def grow(xs):",
        "    out = jnp.zeros((0,))",
        "    for x in xs:",
        "        out = jnp.concatenate([out, x[None]])",
        "    return out",
        "",
    ]
    path = tmp_path / "endings.py"
    path.write_bytes(newline.join(lines).encode())
    assert run(capsys, "fix", str(path))[0] == 0
    once = path.read_bytes()
    assert run(capsys, "check", str(path))[0] == 0
    assert run(capsys, "fix", str(path))[0] == 0
    assert path.read_bytes() == once


def test_parallel_run_matches_serial(capsys, tmp_path):
    for i in range(10):
        (tmp_path / f"m{i}.py").write_text(GROWTH)
    serial = run(capsys, "check", "-j", "1", "--output-format", "json", str(tmp_path))
    parallel = run(capsys, "check", "-j", "2", "--output-format", "json", str(tmp_path))
    assert serial[0] == parallel[0] == 1
    assert json.loads(serial[1]) == json.loads(parallel[1])


def test_rule_command(capsys):
    code, out, _ = run(capsys, "rule", "AT101")
    assert code == 0 and "# AT101 concat-growth" in out and "## Fix safety" in out
    code, out, _ = run(capsys, "rule", "--all")
    assert code == 0 and "AT401" in out
    assert run(capsys, "rule", "AT999")[0] == 2


def test_console_script_runs_as_module(growth_file):
    proc = subprocess.run(
        [sys.executable, "-m", "autota", "check", str(growth_file)], capture_output=True, text=True
    )
    assert proc.returncode == 1 and "AT101" in proc.stdout


def test_module_run_beside_files_named_like_the_standard_library(growth_file, tmp_path):
    """`python -m autota` in a project with its own `copy.py`: Python puts the working folder first
    on `sys.path`, which must not make autota import that file for the standard `copy`."""
    (tmp_path / "copy.py").write_text("x = 1\n")
    (tmp_path / "time.py").write_text("x = 1\n")
    proc = subprocess.run(
        [sys.executable, "-m", "autota", "check", str(growth_file)], capture_output=True, text=True, cwd=tmp_path
    )
    assert proc.returncode == 1 and "AT101" in proc.stdout and not proc.stderr
