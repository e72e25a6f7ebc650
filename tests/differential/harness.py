"""Fix generated programs with autota's real ``fix``, run both versions in fresh processes, compare.

The originals run in one fresh process and the fixed programs in another, side by side, each
program as its own module: a batch of hundreds costs two JAX start-ups, not hundreds. A program
that kills its process loses only its own record (the worker restarts after it), and a program
that hangs is cut off by the worker's alarm.

A *change* is any difference in what a call gives: an exception against a value (either way),
another exception type, another pytree structure, another leaf kind (a Python scalar against an
array), shape, dtype, weak type, or value (bit for bit, except float32 and wider, which may differ
in the last places: rtol = atol = 1e-6), in outputs and in gradients. One exception: a gradient that raised before the fix and is a
value after it is not counted (turning an unbounded ``while_loop`` into a ``fori_loop`` with
static bounds makes reverse mode work: that is what AT202 is for, and the one assumption its
unsafe fix names).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from autota.source import fix

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Program:
    rule: str
    family: str
    twists: tuple[str, ...]
    source: str
    calls: tuple[tuple[str, str], ...]
    """(function, argument tuple expression), e.g. ``("run", "(3, jnp.ones(2))")``."""
    unsafe: bool = False

    @property
    def label(self) -> str:
        return f"{self.rule}/{self.family}" + "".join(f"+{t}" for t in self.twists)


@dataclass
class Verdict:
    program: Program
    fixed: str | None
    """The fixed text, or ``None`` where autota offered no fix (nothing to compare)."""
    changes: list[str] = field(default_factory=list)
    original_failed_to_run: str | None = None

    def report(self) -> str:
        lines = [f"== {self.program.label}: {'; '.join(self.changes)}", self.program.source, "-- fixed:", self.fixed or ""]
        return "\n".join(lines)


def _run_all(jobs: list, timeout: float) -> dict:
    """``key -> records`` for every job, restarting the worker after a job that killed it."""
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="autota-differential-") as tmp:
        remaining = list(jobs)
        attempt = 0
        while remaining:
            attempt += 1
            jobs_path, out_path = Path(tmp, f"jobs{attempt}.pkl"), Path(tmp, f"out{attempt}.pkl")
            jobs_path.write_bytes(pickle.dumps(remaining))
            env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONHASHSEED": "0"}
            proc = subprocess.run(
                [sys.executable, "-m", "tests.differential.worker", str(jobs_path), str(out_path)],
                cwd=ROOT, env=env, capture_output=True, timeout=timeout, check=False,
            )
            done = []
            if out_path.exists():
                with out_path.open("rb") as f:
                    while True:
                        try:
                            done.append(pickle.load(f))
                        except EOFError:
                            break
                        except pickle.UnpicklingError:
                            break  # a record cut short by the crash
            for key, records in done:
                results[key] = records
            remaining = remaining[len(done):]
            if remaining and proc.returncode == 0:
                raise RuntimeError(f"worker stopped early without an error: {proc.stderr.decode()[-2000:]}")
            if remaining:
                key = remaining[0][0]
                tail = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
                results[key] = [("harness", ("crash", f"exit {proc.returncode}", tail[0][:300]))]
                remaining = remaining[1:]
    return results


def _same_bytes(a, b, dtype: str, shape) -> bool:
    if a == b:
        return True
    x = np.frombuffer(a, dtype=np.dtype(dtype) if dtype not in ("bfloat16",) else np.uint16).reshape(shape)
    y = np.frombuffer(b, dtype=x.dtype).reshape(shape)
    if x.dtype.kind in "fc" and x.dtype.itemsize >= 4 * (2 if x.dtype.kind == "c" else 1):
        return bool(np.allclose(x, y, rtol=1e-6, atol=1e-6, equal_nan=True))
    if x.dtype.kind in "fc":
        return bool(np.array_equal(x, y, equal_nan=True))
    return False


def compare(before: list, after: list) -> list[str]:
    """What differs between two runs' records (empty: the same)."""
    changes = []
    b, a = dict(before), dict(after)
    for what in dict.fromkeys([*b, *a]):
        x, y = b.get(what), a.get(what)
        if x is None or y is None:
            if what.startswith("grad ") and (x is None) != (y is None):
                continue  # a gradient is taken only of a value: the value's own line says why
            if what != "harness":
                changes.append(f"{what}: only {'after' if x is None else 'before'} the fix")
            elif x is not None or y is not None:
                changes.append(f"{what}: {x or y}")
            continue
        if x[0] != y[0]:
            if what.startswith("grad ") and x[0] == "raise" and y[0] == "value":
                continue  # reverse mode where a while_loop refused it: what AT202's rewrite is for
            changes.append(f"{what}: {_brief(x)} became {_brief(y)}")
        elif x[0] == "raise":
            if x[1] != y[1]:
                changes.append(f"{what}: {x[1]} became {y[1]}")
        elif x[0] == "crash":
            changes.append(f"{what}: crashed both times")
        else:
            if x[1] != y[1]:
                changes.append(f"{what}: structure {x[1]} became {y[1]}")
                continue
            for i, (p, q) in enumerate(zip(x[2], y[2])):
                for name, u, v in zip(("kind", "shape", "dtype", "weak type"), p[:4], q[:4]):
                    if u != v:
                        changes.append(f"{what}[{i}]: {name} {u} became {v}")
                        break
                else:
                    if p[0] != "other" and not _same_bytes(p[4], q[4], p[2], p[1]):
                        changes.append(f"{what}[{i}]: values differ")
    return changes


def _brief(outcome) -> str:
    if outcome[0] == "value":
        return "a value"
    return f"{outcome[1]}({outcome[2][:80]})" if outcome[0] == "raise" else f"a crash ({outcome[1]})"


def judge(programs: list[Program], timeout: float = 1800) -> list[Verdict]:
    """Fix every program with only its rule enabled, run both versions, and compare."""
    verdicts, before_jobs, after_jobs = [], [], []
    for n, program in enumerate(programs):
        result = fix(program.source.encode(), "generated.py", frozenset({program.rule}), unsafe=program.unsafe)
        fixed = result.fixed_text.decode() if result.fixed_text is not None else None
        verdict = Verdict(program, fixed)
        verdicts.append(verdict)
        if fixed is not None:
            before_jobs.append((str(n), program.source, program.calls))
            after_jobs.append((str(n), fixed, program.calls))
    with _pool() as pool:
        before_f = pool.submit(_run_all, before_jobs, timeout)
        after_f = pool.submit(_run_all, after_jobs, timeout)
        before, after = before_f.result(), after_f.result()
    for n, verdict in enumerate(verdicts):
        if verdict.fixed is None:
            continue
        records = before[str(n)]
        if records and records[0][0] == "harness":
            verdict.original_failed_to_run = str(records[0][1])
        verdict.changes = compare(records, after[str(n)])
    return verdicts


def _pool():
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(2)
