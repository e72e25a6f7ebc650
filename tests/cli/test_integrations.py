"""What CI integrators use: the package metadata, the pre-commit hooks (run for real by
pre-commit in a temporary git repository) and the GitHub Action's script."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.cli.helpers import GROWTH

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


DISTRIBUTION = "jax-autota"


def test_the_linter_needs_libcst_alone_and_test_installs_everything():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION and project["scripts"] == {"autota": "autota.cli.main:main"}
    names = {re.split(r"[<>=;\[ ]", d)[0] for d in project["dependencies"]}
    assert names == {"libcst", "tomli"}
    extras = project["optional-dependencies"]
    assert {re.split(r"[<>=;\[ ]", d)[0] for d in extras["jax"]} == {"jax", "jaxlib", "numpy"}
    assert f"{DISTRIBUTION}[jax]" in extras["test"]


def test_docs_name_our_distribution():
    for doc in ("README.md", "docs/ci.md"):
        text = (ROOT / doc).read_text()
        assert "pip install autota" not in text, doc
        assert f"pip install {DISTRIBUTION}" in text, doc


def _git(repo: Path, *argv: str) -> None:
    subprocess.run(["git", *argv], cwd=repo, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


def _snapshot(into: Path) -> str:
    """This working tree (tracked and untracked, not ignored) committed to a new repository at
    ``into``, as pre-commit would clone it from a tag; its commit."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.split("\0")
    for rel in filter(None, listed):
        if (ROOT / rel).is_file():
            (into / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, into / rel)
    _git(into, "init", "-q")
    _git(into, "add", ".")
    _git(into, "commit", "-q", "-m", "snapshot")
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=into, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.mark.slow
@pytest.mark.parametrize("hook", ["autota-fix", "autota-check"])
def test_pre_commit_runs_the_hooks_and_keeps_excluded_files(tmp_path, hook):
    """pre-commit builds the hook's environment from this repository (the light install: no
    JAX) and passes the staged files; an excluded one stays untouched."""
    pre_commit = shutil.which("pre-commit") or str(Path(sys.executable).with_name("pre-commit"))
    if not Path(pre_commit).exists():
        pytest.skip("pre-commit is not installed (it comes with the test extra)")
    if not shutil.which("git") or subprocess.run(["git", "rev-parse"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("needs git and this checkout's git metadata to give pre-commit a repository")
    repo = tmp_path / "user-project"
    (repo / "src").mkdir(parents=True)
    (repo / "generated").mkdir()
    (repo / "pyproject.toml").write_text('[tool.autota]\nexclude = ["generated/*"]\n')
    (repo / "src" / "model.py").write_text(GROWTH)
    (repo / "generated" / "made.py").write_text(GROWTH)
    _git(repo, "init", "-q")
    rev = _snapshot(tmp_path / "autota-repo")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {tmp_path / 'autota-repo'}\n    rev: {rev}\n    hooks:\n      - id: {hook}\n")
    _git(repo, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    result = subprocess.run([pre_commit, "run", "--all-files"], cwd=repo, env=env,
                            capture_output=True, text=True, timeout=600)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert (repo / "generated" / "made.py").read_text() == GROWTH
    if hook == "autota-fix":
        assert "files were modified by this hook" in output
        assert "out_parts.append(jnp.copy(jnp.ravel(x)))" in (repo / "src" / "model.py").read_text()
    else:
        assert "src/model.py:7:15: AT101 [*]" in output and "made.py" not in output
    envs = list((tmp_path / "cache").glob("repo*/py_env-*"))
    assert envs, "no hook environment was made"
    installed = {p.name.split("-")[0].lower() for e in envs for p in e.glob("lib/python*/site-packages/*.dist-info")}
    assert "libcst" in installed and "jax" not in installed and "jaxlib" not in installed


def _action_script() -> str:
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    assert {"paths", "select", "ignore", "fail-on", "reporter"} <= set(action["inputs"])
    [step] = [s for s in action["runs"]["steps"] if s.get("name") == "autota check"]
    assert all(v.startswith("${{ inputs.") or v.startswith("${{ ") for v in step["env"].values())
    return step["run"]


def _run_action(tmp_path: Path, **inputs: str) -> subprocess.CompletedProcess:
    """The action's check step as the runner runs it: bash, the inputs in the environment."""
    defaults = {"paths": ".", "select": "", "ignore": "", "fail-on": "findings", "reporter": "github",
                "reviewdog-reporter": "github-pr-review", "args": ""}
    env = {**os.environ, **{f"INPUT_{k.upper().replace('-', '_')}": v for k, v in {**defaults, **inputs}.items()}}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    return subprocess.run(["bash", "-e", "-c", _action_script()], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_action_annotates_and_fails_as_asked(tmp_path):
    if not shutil.which("autota", path=str(Path(sys.executable).parent)):
        pytest.skip("the autota console script is not installed next to this Python")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text(GROWTH)
    (tmp_path / "other.py").write_text(GROWTH)
    result = _run_action(tmp_path, paths="src")
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("::warning file=src/m.py,line=7,") and "other.py" not in result.stdout
    assert _run_action(tmp_path, paths="src", **{"fail-on": "error"}).returncode == 0
    assert _run_action(tmp_path, paths="src", select="AT2").stdout == ""
    assert _run_action(tmp_path, paths="src missing.py", **{"fail-on": "error"}).returncode == 2
    assert _run_action(tmp_path, paths="src missing.py", **{"fail-on": "never"}).returncode == 0
    bad = _run_action(tmp_path, **{"fail-on": "sometimes"})
    assert bad.returncode == 2 and "fail-on must be findings, error or never" in bad.stdout


def _options(command: str) -> set[str]:
    from autota.cli.main import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    parser = sub.choices[command]
    return {s for a in parser._actions for s in a.option_strings if s.startswith("--") and s != "--help"}


def test_the_readme_lists_every_option_and_format():
    from autota.cli.formats import NAMES

    readme = (ROOT / "README.md").read_text()
    block = readme.split("## The command line", 1)[1].split("```", 2)[1]
    for command in ("check", "fix"):
        missing = {o for o in _options(command) if o not in block}
        assert not missing, f"README's CLI block lacks {sorted(missing)}"
    assert " | ".join(NAMES) in block
    for code in ("**0**", "**1**", "**2**", "**130**"):
        assert code in readme


def test_findings_left_in_corpus_after_files_say_why(capsys):
    from autota.cli.main import main

    after = sorted(str(p) for p in (ROOT / "corpus").glob("*/after.py"))
    main(["check", "--output-format", "json", "-j", "1", *after])
    import json

    findings = json.loads(capsys.readouterr().out)
    assert findings, "the README explains findings that no longer exist"
    from autota.catalogue import get

    for f in findings:
        assert f["fix"] is None or f["fix"]["applicability"] == "unsafe", f
        if get(f["code"]).fix == "none":  # a rule with no fix at all (AT203) says so in its doc
            continue
        reason = f.get("details", {}).get("reason")  # why the fix is refused, in its own field
        assert reason or any(why in f["message"] for why in ("no safe fix", "the fix is unsafe", "no fix")), f
