"""The options a Ruff user reaches for, the workers, encodings, and linting without JAX."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autota.cli.commands import lint
from autota.cli.main import main
from tests.conftest import ROOT
from tests.cli.helpers import GROWTH, run


def autota(*argv: str, stdin: bytes = b"", cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autota", *argv], input=stdin, capture_output=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=300)


@pytest.fixture
def growth_file(tmp_path: Path) -> Path:
    path = tmp_path / "growth.py"
    path.write_text(GROWTH)
    return path


def test_stdin_check_and_fix(tmp_path):
    result = autota("check", "-", "--stdin-filename", "pkg/model.py", stdin=GROWTH.encode(), cwd=tmp_path)
    assert result.returncode == 1 and result.stdout.decode().startswith("pkg/model.py:7:15: AT101 [*] ")
    result = autota("fix", "-", stdin=GROWTH.encode(), cwd=tmp_path)
    assert result.returncode == 0
    assert "out_parts.append(jnp.copy(jnp.ravel(x)))" in result.stdout.decode()  # the fixed source, and nothing else
    compile(result.stdout, "fixed", "exec")
    assert result.stderr.decode() == "Fixed 1 finding, 0 remaining.\n"


def test_stdin_filename_is_excluded_with_force_exclude(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.autota]\nexclude = ["generated"]\n')
    argv = ("fix", "-", "--stdin-filename", "generated/g.py", "--force-exclude")
    result = autota(*argv, stdin=GROWTH.encode(), cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, GROWTH.encode(), b"")


def test_output_file_statistics_show_fixes_quiet(capsys, tmp_path, growth_file):
    report = tmp_path / "report.json"
    code, out, _ = run(capsys, "check", "--output-format", "json", "-o", str(report), str(growth_file))
    assert code == 1 and out == "" and json.loads(report.read_text())[0]["code"] == "AT101"

    code, out, _ = run(capsys, "check", "--statistics", str(growth_file))
    assert code == 1 and out == "1\tAT101\t[*] concat-growth\nFound 1 finding.\n[*] 1 fixable with autota fix.\n"
    code, out, _ = run(capsys, "check", "--statistics", "--output-format", "json", str(growth_file))
    assert json.loads(out) == [{"code": "AT101", "name": "concat-growth", "count": 1, "fixable": True}]

    code, out, _ = run(capsys, "check", "-q", str(growth_file))
    assert code == 1 and out.count("\n") == 1 and "AT101" in out  # no summary line
    assert run(capsys, "check", "-qq", str(growth_file))[:2] == (1, "")

    code, out, _ = run(capsys, "fix", "--show-fixes", str(growth_file))
    assert code == 0
    assert out.endswith(f"Fixed 1 finding:\n- {growth_file}:\n    1 \u00d7 AT101 (concat-growth)\n")


def test_verbose_says_settings_and_workers(capsys, tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.autota]\n")
    for n in range(3):
        (tmp_path / f"m{n}.py").write_text(GROWTH)
    code, _, err = run(capsys, "check", "-v", "-j", "1000", str(tmp_path))
    assert f"autota: settings from {tmp_path / 'pyproject.toml'} for 3 files" in err
    workers = min(3, lint.cores())  # capped at the files and the cores, not 1000
    assert f"autota: 3 files, {workers} worker{'s' * (workers > 1)} ({lint.cores()} cores)" in err


def _on_a_terminal(argv: list[str], env: dict) -> bytes:
    """What ``autota`` prints with its stdout on a pseudo-terminal."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "autota", *argv], stdout=follower, stderr=subprocess.DEVNULL,
                            cwd=ROOT, env={k: v for k, v in {**os.environ, **env}.items() if v is not None})
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO: the terminal's other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks)


def test_colour_on_a_terminal_only_and_never_with_no_color(growth_file):
    plain = {"NO_COLOR": None, "FORCE_COLOR": None, "TERM": "xterm"}
    assert b"\x1b[31m" in _on_a_terminal(["check", str(growth_file)], plain)
    assert b"\x1b[" not in _on_a_terminal(["check", str(growth_file)], {**plain, "NO_COLOR": "1"})
    piped = autota("check", str(growth_file), env={"TERM": "xterm"})
    assert b"\x1b[" not in piped.stdout
    forced = autota("check", str(growth_file), env={"FORCE_COLOR": "1"})
    assert b"\x1b[1m" in forced.stdout and forced.returncode == 1


def test_help_has_exit_codes_and_examples():
    for argv in ([], ["check"], ["fix"], ["verify"], ["bench"]):
        result = autota(*argv, "--help")
        text = result.stdout.decode()
        assert result.returncode == 0
        assert "exit codes:" in text and "130  interrupted" in text and "examples:" in text, argv


@pytest.mark.parametrize("value", ["-1", "x", "-5"])
def test_bad_jobs_are_one_line_errors(capsys, growth_file, value):
    with pytest.raises(SystemExit) as exc:
        main(["check", "-j", value, str(growth_file)])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "expected a number of workers >= 1, or 0 for one per core" in err


def test_workers_are_capped_at_files_and_cores():
    cores = lint.cores()
    assert lint.workers_for(1000, 5) == min(5, cores)
    assert lint.workers_for(1000, 10_000) == cores
    assert lint.workers_for(0, 7) == 1  # too few files for a worker to pay for itself
    assert lint.workers_for(0, 10_000) == cores
    assert lint.workers_for(1, 10_000) == 1


def test_a_pool_run_matches_a_serial_run(capsys, tmp_path):
    for n in range(40):
        (tmp_path / f"m{n:02d}.py").write_text(GROWTH if n % 3 else "import jax\n")
    serial = run(capsys, "check", "-j", "1", str(tmp_path))
    pooled = run(capsys, "check", "-j", "2", str(tmp_path))
    assert serial == pooled and serial[1].count("AT101") == 26


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs the patch program to apply the diff")
def test_a_latin_1_diff_is_latin_1_and_applies(tmp_path):
    source = ("# -*- coding: latin-1 -*-\n# caf\xe9 au lait\n" + GROWTH.replace("jnp.zeros((0,))", "jnp.zeros((0,))  # \xe9t\xe9")).encode("latin-1")
    path = tmp_path / "latin.py"
    path.write_bytes(source)
    diff = autota("check", "--diff", "latin.py", cwd=tmp_path)
    assert diff.returncode == 1
    assert "\ufffd".encode() not in diff.stdout and b"# \xe9t\xe9" in diff.stdout
    subprocess.run(["patch", "-p0", "--quiet"], input=diff.stdout, cwd=tmp_path, check=True)
    assert autota("fix", "latin.py", cwd=tmp_path).returncode == 0
    fixed = tmp_path / "fixed.py"
    path.rename(fixed)
    path.write_bytes(source)
    subprocess.run(["patch", "-p0", "--quiet"], input=diff.stdout, cwd=tmp_path, check=True)
    assert path.read_bytes() == fixed.read_bytes()


_NO_JAX = """
import sys

class NoJax:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("jax", "jaxlib"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

if sys.argv[1] == "blocked":
    sys.meta_path.insert(0, NoJax())
from autota.cli.main import main
code = main(sys.argv[2:])
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("jax", "jaxlib", "numpy"))
print("LOADED", loaded, file=sys.stderr)
sys.exit(code)
"""


@pytest.mark.parametrize("command", ["check", "fix"])
def test_lint_imports_nothing_of_jax(tmp_path, command):
    for n in range(12):  # enough files for the worker pool
        (tmp_path / f"m{n}.py").write_text(GROWTH)
    result = subprocess.run([sys.executable, "-c", _NO_JAX, "allowed", command, "-j", "2", str(tmp_path)],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert "LOADED []" in result.stderr, result.stderr
    assert result.returncode == (1 if command == "check" else 0)


def test_without_jax_the_linter_works_and_the_rest_says_what_to_install(tmp_path, growth_file):
    result = subprocess.run([sys.executable, "-c", _NO_JAX, "blocked", "check", str(growth_file)],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 1 and "AT101" in result.stdout
    for command in ("verify", "bench"):
        result = subprocess.run([sys.executable, "-c", _NO_JAX, "blocked", command, "corpus"],
                                capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert result.returncode == 2 and f"autota: error: autota {command} needs JAX" in result.stderr
        assert "pip install 'jax-autota[jax]'" in result.stderr and "Traceback" not in result.stderr
    script = ("import sys\n" + _NO_JAX.split("if sys.argv")[0] + "sys.meta_path.insert(0, NoJax())\n"
              "import autota\nautota.transform\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "ModuleNotFoundError: autota.transform needs JAX, which is not installed here (jax is missing): "
        "pip install 'jax-autota[jax]'")
