"""``autota.residuals`` and ``autota explain``: what grad saves, per loop, on the corpus cases,
checked against XLA's own ``memory_analysis`` of the compiled forward pass."""

from __future__ import annotations

import argparse
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from jax import lax

import autota
from autota.cli.commands import explain
from autota.corpus import discover, load_case
from autota.proof.residuals import MATCH_TOLERANCE, STEP, residual_growth, residuals

ROOT = Path(__file__).resolve().parents[2]
SIZES = (64, 128, 256)


def _case(name):
    case = load_case(ROOT / "corpus" / name)
    return case, case.entry_of(case.load_before())


def _loop(report, which="before"):
    (loop,) = getattr(report, which).loops
    return loop


def test_read_back_buffer_saves_quadratic_residuals_before_and_linear_after_at203():
    case, fn = _case("loop_read_back_mean")
    growth = residual_growth(autota.transform(fn, rules=["AT203"]), case.make_args, SIZES)
    (loop,) = growth.loops
    assert loop.fit_before.cls == "O(T^2)" and not loop.fit_before.uncertain
    assert loop.fit_after.cls == "O(T)" and not loop.fit_after.uncertain
    report = growth.reports[-1]
    assert report.rules == ("AT203",)
    assert any(f.code == "AT203" and f.applied for f in _loop(report).findings)
    assert "O(T^2) residuals" in str(growth)


def test_masked_mean_names_the_bool_mask_and_the_rule_that_removes_it():
    case, fn = _case("loop_read_back_mean")
    T = 16
    report = residuals(fn, *case.make_args(T))
    masks = [r for r in _loop(report).residuals if r.dtype == "bool"]
    (mask,) = masks
    assert mask.kind == STEP and mask.shape == (T, 4) and mask.bytes == T * 4 and mask.total_bytes == T * T * 4
    assert mask.source.endswith("loop_read_back_mean/before.py:12")  # the jnp.where(seen, outs, 0.0) line
    assert mask.removed_by == ("AT203",)
    assert not any(r.dtype == "bool" and r.shape for r in _loop(report, "after").residuals)
    text = str(report)
    assert "bool[16,4] (mask)" in text and "jnp.where(seen, outs" in text


def test_carried_buffer_saves_linear_residuals_and_blames_copies_for_quadratic_time():
    case, fn = _case("jaxpr_rnn_hidden_buffer")
    growth = residual_growth(fn, case.make_args, SIZES)
    (loop,) = growth.loops
    assert loop.fit_before.cls == "O(T)" and loop.fit_carry.cls == "O(T)"
    assert loop.fit_carry_after.cls == "O(1)"  # AT201 turned the carried buffer into stacked outputs
    (verdict,) = [line for line in str(growth).splitlines() if line.startswith("verdict:")]
    assert "comes from those copies, not from residuals" in verdict
    # The step saves h, tanh and 1 - tanh^2 style values of [B, F], never the [T, B, F] buffer.
    steps = [r for r in _loop(growth.reports[-1]).residuals if r.kind == STEP]
    assert steps and all(r.shape in ((4, 8), (), (1,)) for r in steps)


GRAD_CASES = [c.name for c in discover(ROOT / "corpus") if c.grad_argnums]


@pytest.mark.slow
@pytest.mark.parametrize("name", GRAD_CASES)
def test_residual_bytes_match_xla_forward_outputs(name):
    case, fn = _case(name)
    report = residuals(fn, *case.make_args(max(case.sizes)))
    for program in (report.before, report.after):
        assert program.forward_output_bytes is not None
        assert program.xla_mismatch <= MATCH_TOLERANCE, (name, program.output_bytes, program.forward_output_bytes)
        assert program.grad_temp_bytes is not None  # 0 for a program XLA runs in place


def test_loops_and_outside_residuals_are_attributed_to_their_own_lines():
    def two_loops(x, w):
        y = jnp.sin(x) * w  # outside any loop: sin's cos(x) is saved once

        def step(h, xt):
            h = jnp.tanh(h * w + xt)
            return h, h

        _, hs = lax.scan(step, jnp.zeros(x.shape[1]), y)
        total = lax.fori_loop(0, 5, lambda i, c: c + jnp.exp(c) * 0.1, jnp.sum(hs))
        return total

    report = residuals(two_loops, jnp.ones((6, 3)), jnp.float32(0.5))
    scan_loop, fori_loop = report.before.loops
    assert scan_loop.length == 6 and fori_loop.length == 5
    assert {r.producer for r in scan_loop.residuals} & {"tanh", "one_minus_square"}  # jax 0.10, 0.12
    assert any(r.producer == "exp" and r.shape == () for r in fori_loop.residuals)
    assert any(r.producer in ("cos", "sin") and r.shape == (6, 3) for r in report.before.outside)
    assert scan_loop.source != fori_loop.source
    assert {r.source for r in report.before.arguments} <= {"arg0", "arg1"}


def test_non_float_arguments_are_held_fixed():
    def scaled(x, n):
        return lax.fori_loop(0, n, lambda i, c: jnp.sin(c), x)

    report = residuals(scaled, jnp.ones(3), 4)
    (loop,) = report.before.loops
    assert loop.length == 4 and any(r.producer == "cos" or r.producer == "sin" for r in loop.residuals)


def test_no_float_argument_is_a_clear_error():
    from autota.proof.errors import ProofInputError

    with pytest.raises(ProofInputError, match="no float argument"):
        residuals(lambda n: n + 1, jnp.int32(3))


def test_a_loop_without_reverse_mode_is_a_clear_error():
    from autota.proof.errors import ProofInputError

    def settle(x):
        return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1])), (0, x))[1]

    with pytest.raises(ProofInputError, match="cannot differentiate settle: .*while_loop"):
        residuals(settle, jnp.ones(3))


def _run(argv):
    parser = argparse.ArgumentParser()
    explain.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_explain_prints_the_tables_as_markdown(capsys):
    case = ROOT / "corpus" / "loop_read_back_mean"
    code = _run(["explain", f"{case / 'before.py'}::running_context", "--args", f"{case / 'inputs.py'}:make_args",
                 "--sizes", "64,128,256", "--select", "AT203", "--markdown"])
    out = capsys.readouterr().out
    assert code == 0
    assert "| bool[256,4] (mask) |" in out and "| AT203 |" in out
    assert "O(T^2)" in out and "verdict:" in out


def test_cli_explain_plots_saved_bytes_against_t(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    case = ROOT / "corpus" / "jaxpr_rnn_hidden_buffer"
    png = tmp_path / "residuals.png"
    code = _run(["explain", f"{case / 'before.py'}::rnn_states", "--args", f"{case / 'inputs.py'}:make_args",
                 "--sizes", "4,8", "--plot", str(png)])
    assert code == 0 and png.stat().st_size > 0
    assert "copies, not from residuals" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["explain", "nowhere.py::f", "--args", "inputs.py:make_args"], "no such file"),
        (["explain", "corpus/loop_read_back_mean/before.py", "--args", "x:y"], "expected path/to/file.py::function"),
        (["explain", "corpus/loop_read_back_mean/before.py::running_context", "--args",
          "corpus/loop_read_back_mean/inputs.py:make_args", "--select", "AT999"], "unknown rule code"),
    ],
)
def test_cli_explain_bad_input_is_one_line_and_exit_2(argv, message, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert _run(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_public_name():
    assert autota.residuals is residuals and jax is not None
