"""``autota verify`` and ``autota bench``: tables, exit codes, and one-line errors."""

from __future__ import annotations

import argparse
import textwrap

import pytest

from autota.cli.commands import bench, verify


def _run(module, argv):
    parser = argparse.ArgumentParser()
    module.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def test_verify_passes_on_a_good_corpus(good_corpus, capsys):
    assert _run(verify, ["verify", str(good_corpus)]) == 0
    out = capsys.readouterr().out
    assert "grow_ok" in out and "1 cases: 1 ok, 0 mismatched, 0 errors" in out


def test_verify_exits_1_on_a_mismatch(bad_corpus, capsys):
    assert _run(verify, ["verify", str(bad_corpus)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out and "grow_wrong T=1 before vs after: FAIL" in out


def test_verify_missing_path_is_one_line_exit_2(tmp_path, capsys):
    missing = tmp_path / "nowhere"
    assert _run(verify, ["verify", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err == f"{missing}: error: no such file or directory\n"


def test_bench_corpus_markdown_and_plot(good_corpus, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "bench.png"
    argv = ["bench", str(good_corpus), "--sizes", "4,8,16", "--modes", "fwd", "--repeats", "1",
            "--markdown", "--plot", str(png)]
    assert _run(bench, argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("| case | mode | time before | time after | speedup |")
    assert "| grow_ok | fwd |" in out and "n/a (eager)" in out
    assert f"![run time and memory against T]({png})" in out
    assert png.stat().st_size > 1000


@pytest.fixture
def user_code(tmp_path):
    (tmp_path / "model.py").write_text(textwrap.dedent("""
        import jax.numpy as jnp

        def cumulative(x):
            return jnp.cumsum(x)
    """))
    (tmp_path / "inputs.py").write_text(textwrap.dedent("""
        import jax.numpy as jnp

        def make_args(T):
            return (jnp.ones(T),)

        def broken(T):
            raise ValueError("bad size")
    """))
    return tmp_path


def test_bench_a_users_function(user_code, capsys):
    argv = ["bench", f"{user_code}/model.py::cumulative", "--args", f"{user_code}/inputs.py:make_args",
            "--sizes", "8,16", "--repeats", "1", "--no-transform"]
    assert _run(bench, argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("cumulative (jit)") and "temp memory" in out


@pytest.mark.parametrize(
    "target, factory, message",
    [
        ("model.py::missing", "inputs.py:make_args", "no 'missing' in"),
        ("nofile.py::f", "inputs.py:make_args", "error: no such file"),
        ("model.py::cumulative", "inputs.py:broken", "make_args(8) raised ValueError: bad size"),
        ("model.py::cumulative", "no_such_module:make_args", "cannot import no_such_module"),
        ("model.py::cumulative", None, "needs --args"),
    ],
)
def test_bench_bad_input_is_one_line_exit_2(user_code, capsys, target, factory, message):
    argv = ["bench", f"{user_code}/{target}", "--sizes", "8,16", "--repeats", "1", "--no-transform"]
    if factory:
        argv += ["--args", factory if factory.startswith("no_") else f"{user_code}/{factory}"]
    assert _run(bench, argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_bench_missing_corpus_is_exit_2(tmp_path, capsys):
    assert _run(bench, ["bench", str(tmp_path / "nope")]) == 2
    assert "error: no such file or directory" in capsys.readouterr().err
