"""``autota verify`` and ``autota bench``: tables, exit codes, and one-line errors."""

from __future__ import annotations

import argparse
import textwrap

import pytest

from autota.cli.commands import bench, verify

from tests.proof.conftest import write_case


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


STEP = """
    import jax


    @jax.jit{decorator}
    def step(buf, x):
        return buf + {scale} * x


    def run(buf, xs):
        for i in range(xs.shape[0]):
            buf = step(buf, xs[i])
        return buf
"""

STEP_INPUTS = """
    import jax.numpy as jnp


    def make_args(T):
        return jnp.zeros(3), jnp.arange(3.0 * T).reshape(T, 3)
"""

STEP_TOML = """
    summary = "a jitted step in a Python loop"
    entry = "run"
    sizes = [1, 3]
    grad_argnums = [1]
"""


def test_verify_compares_unsafe_fixes_on_fresh_arguments(tmp_path, capsys):
    """``unsafe.py`` is compared too. The donating fix deletes the arguments ``verify`` reuses
    for the gradient check; it still passes, so each call gets its own copies."""
    before = STEP.format(decorator="", scale=1)
    for name, unsafe in [("donates", STEP.format(decorator="(donate_argnums=(0,))", scale=1)),
                         ("wrong", STEP.format(decorator="", scale=2))]:
        case = write_case(tmp_path, name, before, before, STEP_INPUTS, STEP_TOML)
        (case / "unsafe.py").write_text(textwrap.dedent(unsafe))
    assert _run(verify, ["verify", str(tmp_path)]) == 1  # a mismatch, and no case that errors
    out = capsys.readouterr().out
    assert "before = unsafe" in out and "wrong T=1 before vs unsafe: FAIL" in out
    assert "2 cases: 1 ok, 1 mismatched, 0 errors" in out


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


def test_bench_a_users_function_against_its_transform(user_code, capsys):
    argv = ["bench", f"{user_code}/model.py::cumulative", "--args", f"{user_code}/inputs.py:make_args",
            "--sizes", "8,16", "--repeats", "1", "--modes", "fwd"]
    assert _run(bench, argv) == 0
    out = capsys.readouterr().out
    assert "transform(cumulative)" in out and "| cumulative | fwd |" not in out


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


NOTHING_TO_REWRITE = """
    import jax.numpy as jnp
    from jax import lax


    def running(x):
        return lax.scan(lambda c, xt: (c + xt, c), jnp.zeros(x.shape[1:]), x)[1]
"""

RUNNING_TOML = """
    summary = "a scan with no buffer, wrongly marked as rewritten"
    entry = "running"
    sizes = [2]
    grad_argnums = [0]
    transform = {transform}
"""


@pytest.mark.parametrize("marked", [True, False])
def test_verify_fails_a_case_marked_rewritten_that_nothing_rewrote(tmp_path, capsys, marked):
    """Equal values prove nothing where the transform passed the program through untouched
    (as it did, silently, on jax 0.11+ before it read their scan layout)."""
    inputs = "import jax.numpy as jnp\n\ndef make_args(T):\n    return (jnp.ones((T, 3)),)\n"
    write_case(tmp_path, "running", NOTHING_TO_REWRITE, NOTHING_TO_REWRITE, inputs,
               RUNNING_TOML.format(transform=str(marked).lower()))
    assert _run(verify, ["verify", str(tmp_path)]) == (1 if marked else 0)
    out = capsys.readouterr().out
    assert ("NOT REWRITTEN" in out and "marked transform = true, but nothing was rewritten" in out) == marked
