"""``autota verify`` and ``bench`` over a corpus: each case in its own process, ``--jobs`` at
once, within a time and memory budget, with XLA's (and any) stderr noise kept off the terminal.

The cases are written here, small: a doubling function whose ``make_args`` sleeps, grows or
writes to file descriptor 2 as the test needs, run under real JAX.
"""

from __future__ import annotations

import subprocess
import sys
import time
from importlib.util import find_spec
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(find_spec("jax") is None, reason="verify and bench need jax-autota[jax]")

BEFORE = """import jax.numpy as jnp


def double(x):
    out = jnp.zeros((0,))
    for row in x:
        out = jnp.append(out, row * 2)
    return out
"""

AFTER = """import jax.numpy as jnp


def double(x):
    return jnp.asarray(x) * 2
"""

INPUTS = """import os
import time

import numpy as np


def make_args(T):
{body}
    return (np.arange(T, dtype=np.float32),)
"""

NOISE = "Algebraic simplifier is likely stuck (from the test case)"


def _case(root: Path, name: str, body: str = "    pass") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "before.py").write_text(BEFORE)
    (folder / "after.py").write_text(AFTER)
    (folder / "inputs.py").write_text(INPUTS.format(body=body))
    (folder / "case.toml").write_text(
        f'summary = "{name}"\nentry = "double"\nexpect = ["AT101:7*"]\nsizes = [0, 3]\nbench_sizes = [4, 8, 16]\n'
    )
    return folder


def autota(*argv: str, timeout: float = 600) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "autota", *argv], capture_output=True, text=True, cwd=ROOT,
                            timeout=timeout)
    return result, time.monotonic() - started


@pytest.mark.slow
def test_a_case_over_its_time_or_memory_budget_is_an_error_and_the_rest_go_on(tmp_path):
    _case(tmp_path, "a_hangs", "    time.sleep(600)")
    _case(tmp_path, "b_grows", "    hog = bytearray(3 << 30)\n    hog[::4096] = b'x' * len(hog[::4096])\n    time.sleep(60)")
    _case(tmp_path, "c_fine")
    result, took = autota("verify", str(tmp_path), "--timeout", "30", "--max-memory", "1500", "-j", "3")
    assert result.returncode == 2, result.stderr
    assert f"{tmp_path / 'a_hangs'}: error: over the time budget (30 s; --timeout)" in result.stderr
    assert f"{tmp_path / 'b_grows'}: error: over the memory budget (" in result.stderr
    assert "c_fine" in result.stdout and "3 cases: 1 ok, 0 mismatched, 2 errors" in result.stdout
    assert "Traceback" not in result.stderr
    assert took < 200  # not 600 s of sleep


@pytest.mark.slow
def test_stderr_noise_stays_off_the_terminal_unless_a_case_fails(tmp_path):
    _case(tmp_path, "noisy", f"    os.write(2, b'{NOISE}\\n')")
    result, _ = autota("verify", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert NOISE not in result.stderr and "1 cases: 1 ok" in result.stdout
    result, _ = autota("verify", "-v", str(tmp_path))
    assert NOISE in result.stderr and "noisy: " in result.stderr and " MiB" in result.stderr
    result, _ = autota("bench", str(tmp_path), "--modes", "fwd", "--repeats", "1")
    assert result.returncode == 0, result.stderr
    assert NOISE not in result.stderr and "noisy" in result.stdout


@pytest.mark.slow
def test_jobs_run_cases_side_by_side(tmp_path):
    for name in ("one", "two"):
        _case(tmp_path, name, "    time.sleep(12)")  # each size sleeps: 24 s a case
    serial_floor = 2 * 2 * 12
    result, took = autota("verify", "-j", "2", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "2 cases: 2 ok" in result.stdout
    assert took < serial_floor, took  # one after the other could not be under 48 s


def test_the_chart_has_no_empty_panel_for_an_eager_case():
    pytest.importorskip("matplotlib")
    from autota.proof.measure import Measurement, Point
    from autota.proof.plot import draw

    def measured(name, how, temp):
        return Measurement(name, how, "", tuple(
            Point(t, mode, how, 1e-3 * t, 0.01, None, temp and temp * t, None, None, None)
            for t in (4, 8, 16) for mode in ("fwd", "grad")))

    fig = draw([("eager_case", (measured("before", "eager", None), measured("after", "eager", None))),
                ("jitted_case", (measured("before", "jit", 64), measured("after", "jit", 8)))])
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["eager_case: run time (s) (run eagerly: no XLA memory)", "jitted_case: run time (s)",
                      "jitted_case: XLA temp memory (bytes)"]
    assert all(ax.lines for ax in fig.axes)  # every panel drawn has data
