"""Bad input and a changing filesystem: a clear error, exit 2, every other file processed,
nothing written half. And the pre-commit hooks that run autota."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from autota.cli import notebooks
from autota.cli.commands import lint, one_file
from tests.conftest import ROOT
from tests.cli.helpers import GROWTH, run


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text(GROWTH)
    (tmp_path / "z.py").write_text(GROWTH)
    return tmp_path


def test_invalid_notebooks_are_errors_and_the_rest_is_fixed(capsys, tree):
    (tree / "bad.ipynb").write_text('{"cells": [\n')
    (tree / "latin.ipynb").write_bytes('{"cells": [], "x": "caf\xe9"}'.encode("latin-1"))
    (tree / "list.ipynb").write_text("[1, 2]")
    code, out, err = run(capsys, "fix", str(tree))
    assert code == 2
    assert f"{tree / 'bad.ipynb'}: error: notebook is not valid JSON: Expecting value at 2:1" in err
    assert f"{tree / 'latin.ipynb'}: error: notebook is not UTF-8" in err
    assert f"{tree / 'list.ipynb'}: error: not a Jupyter notebook" in err
    assert out == "Fixed 2 findings, 0 remaining.\n"
    assert (tree / "bad.ipynb").read_text() == '{"cells": [\n'


def test_a_file_that_disappears_before_it_is_read(capsys, tree, monkeypatch):
    real = lint.discover

    def discover_then_delete(*args, **kwargs):
        files, errors = real(*args, **kwargs)
        (tree / "a.py").unlink()
        return files, errors

    monkeypatch.setattr(lint, "discover", discover_then_delete)
    code, out, err = run(capsys, "check", "-j", "1", str(tree))
    assert code == 2
    assert f"{tree / 'a.py'}: error: cannot read: No such file or directory" in err
    assert out.startswith(f"{tree / 'z.py'}:7:")


def test_a_file_that_disappears_before_it_is_written(capsys, tree, monkeypatch):
    real = one_file.write_atomic

    def delete_then_write(path: Path, data: bytes) -> None:
        if path.name == "a.py":
            path.unlink()
        real(path, data)

    monkeypatch.setattr(one_file, "write_atomic", delete_then_write)
    code, out, err = run(capsys, "fix", "-j", "1", str(tree))
    assert code == 2
    assert f"{tree / 'a.py'}: error: cannot write: No such file or directory" in err
    assert sorted(p.name for p in tree.iterdir()) == ["z.py"]  # not recreated, no temp file
    assert "out_parts" in (tree / "z.py").read_text()


def test_a_failed_write_leaves_the_file_whole(capsys, tree, monkeypatch):
    def disk_full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", disk_full)
    code, out, err = run(capsys, "fix", "-j", "1", str(tree))
    assert code == 2 and "cannot write: No space left on device" in err
    assert (tree / "a.py").read_text() == GROWTH and (tree / "z.py").read_text() == GROWTH
    assert sorted(p.name for p in tree.iterdir()) == ["a.py", "z.py"]
    assert "a.py:7:" in out  # the findings are still reported


def test_an_error_raised_while_an_interrupt_unwinds_is_the_interrupt(capsys, tree, monkeypatch):
    """libcst's position provider, interrupted mid-file, raises KeyError from a ``finally``
    clause: that is the Ctrl-C, not the file's internal error."""

    def interrupted(data, path, enabled, **options):
        try:
            raise KeyboardInterrupt
        finally:
            raise KeyError("IndentedBlock(...)")

    monkeypatch.setattr(one_file.source, "check", interrupted)
    code, out, err = run(capsys, "check", "-j", "1", str(tree))
    assert code == 130 and "internal error" not in err and "interrupted" in err


def test_an_internal_error_costs_only_its_file(capsys, tree, monkeypatch):
    real = one_file.source.check

    def crash_on_a(data, path, enabled, **options):  # (`imported=`: what the run's other modules define)
        if path.endswith("a.py"):
            raise RuntimeError("boom")
        return real(data, path, enabled, **options)

    monkeypatch.setattr(one_file.source, "check", crash_on_a)
    code, out, err = run(capsys, "check", "-j", "1", str(tree))
    assert code == 2
    assert f"{tree / 'a.py'}: error: internal error: RuntimeError: boom" in err
    assert out.startswith(f"{tree / 'z.py'}:7:")


def test_a_notebook_fix_that_moves_a_cell_boundary_is_not_written():
    data = b'{"cells": [{"cell_type": "code", "source": "x = 1\\n"}, {"cell_type": "code", "source": "y"}]}'
    program = notebooks.Program.build(notebooks.Notebook.read(data))
    assert program.split(program.text.replace("x = 1\n", "x = 2\n")) == {1: "x = 2\n"}
    assert program.split(program.text.replace("# <autota-cell 2>\n", "")) is None


def test_pre_commit_hooks():
    yaml = pytest.importorskip("yaml")
    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"autota-check", "autota-fix"}
    for name, hook in hooks.items():
        assert hook["entry"] == name.replace("-", " ") + " --force-exclude" and hook["language"] == "python"
        assert {"python", "jupyter"} <= set(hook["types_or"])
