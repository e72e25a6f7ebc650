"""Running corpus cases for ``verify`` and ``bench``: one fresh process a case, ``--jobs`` at
a time, each within a time and a memory budget.

A process a case, because JAX keeps every compiled program and XLA its buffers for the life
of a process: run in one, a corpus needs the sum of its cases' memory (3.2 GB for ``verify``);
run apart, the largest case's. A case that hangs or grows past its budget is killed and
reported as an error, and the others go on. The memory budget is the case's resident set,
read from ``/proc`` every :data:`POLL_S` (on a system without ``/proc`` only time is bounded).

A case's stderr (file descriptor 2, where XLA's C++ logging writes lines such as "Algebraic
simplifier is likely stuck") goes to a file: it is shown, last lines only, when the case fails
or under ``--verbose``. Nothing here imports JAX; the case processes do.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

POLL_S = 0.05
STDERR_TAIL = 5
"""Lines of a failed case's stderr shown with its error."""


def missing_jax(command: str) -> str | None:
    """Why ``command`` cannot run here (the ``jax`` extra is not installed), else ``None``."""
    from importlib.util import find_spec

    from autota import JAX_MODULES

    def absent(name: str) -> bool:
        try:
            return find_spec(name) is None
        except ImportError:  # a broken install counts as none
            return True

    missing = sorted(m for m in JAX_MODULES if absent(m))
    if missing:
        return (f"autota {command} needs JAX ({', '.join(missing)} not installed): "
                "pip install 'jax-autota[jax]'")
    return None


class CaseError(Exception):
    """A case that cannot be run: its ``before``, its inputs or its files are broken."""


@dataclass
class CaseRun:
    """What one case's process gave: the work's value, or why there is none."""

    case: Any
    value: Any = None
    error: str | None = None
    seconds: float = 0.0
    peak_mib: float | None = None
    stderr: str = ""

    def stderr_tail(self) -> str:
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return "\n".join(f"    {line}" for line in lines[-STDERR_TAIL:])


def _child(work: str, case, options: tuple, conn, stderr_path: str) -> None:
    """In the case's process: stderr to a file, run ``work(case, *options)``, send the result."""
    fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 2)
    os.close(fd)
    module, name = work.split(":")
    try:
        value = getattr(importlib.import_module(module), name)(case, *options)
    except CaseError as err:
        conn.send(("error", str(err)))
    except BaseException as err:  # noqa: BLE001 (the case's own code may raise anything)
        from autota.proof.errors import one_line

        conn.send(("error", one_line(err)))
    else:
        conn.send(("ok", value))
    conn.close()


def _resident_mib(pid: int) -> float | None:
    """The resident set of process ``pid`` in MiB (Linux), else ``None``."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


@dataclass
class _Running:
    case: Any
    process: Any
    conn: Any
    started: float
    stderr_path: str
    peak_mib: float | None = None


def run_cases(
    cases: Sequence,
    work: str,
    options: tuple,
    jobs: int,
    timeout_s: float | None,
    memory_mib: float | None,
    on_done: Callable[[CaseRun], None] = lambda run: None,
) -> list[CaseRun]:
    """``work`` (``"module:function"``) of each case in its own process, results in case order.

    On ``KeyboardInterrupt`` every case process is killed and the interrupt raised again."""
    context = multiprocessing.get_context("spawn")
    queue = list(cases)
    running: list[_Running] = []
    results: dict[int, CaseRun] = {}
    order = {id(case): i for i, case in enumerate(cases)}
    scratch = tempfile.TemporaryDirectory(prefix="autota-cases-")

    def finish(r: _Running, value=None, error=None) -> None:
        r.process.join(timeout=5)
        if r.process.is_alive():
            r.process.kill()
            r.process.join()
        try:
            with open(r.stderr_path, errors="replace") as fh:
                stderr = fh.read()
        except OSError:
            stderr = ""
        run = CaseRun(r.case, value, error, time.monotonic() - r.started, r.peak_mib, stderr)
        results[order[id(r.case)]] = run
        running.remove(r)
        on_done(run)

    try:
        while queue or running:
            while queue and len(running) < max(1, jobs):
                case = queue.pop(0)
                receive, send = context.Pipe(duplex=False)
                path = os.path.join(scratch.name, f"{order[id(case)]}.stderr")
                process = context.Process(target=_child, args=(work, case, options, send, path), daemon=True)
                process.start()
                send.close()
                running.append(_Running(case, process, receive, time.monotonic(), path))
            time.sleep(POLL_S)
            for r in list(running):
                rss = _resident_mib(r.process.pid)
                if rss is not None:
                    r.peak_mib = max(r.peak_mib or 0.0, rss)
                if r.conn.poll():
                    try:
                        status, payload = r.conn.recv()
                    except (EOFError, OSError):
                        finish(r, error=_died(r.process))
                        continue
                    finish(r, payload if status == "ok" else None, payload if status != "ok" else None)
                elif not r.process.is_alive():
                    finish(r, error=_died(r.process))
                elif timeout_s is not None and time.monotonic() - r.started > timeout_s:
                    r.process.kill()
                    finish(r, error=f"over the time budget ({timeout_s:g} s; --timeout)")
                elif memory_mib is not None and rss is not None and rss > memory_mib:
                    r.process.kill()
                    finish(r, error=f"over the memory budget ({rss:.0f} MiB > {memory_mib:g} MiB; --max-memory)")
    except BaseException:
        for r in running:
            r.process.kill()
        for r in running:
            r.process.join()
        raise
    finally:
        scratch.cleanup()
    return [results[i] for i in range(len(cases))]


def _died(process) -> str:
    process.join(timeout=5)
    code = process.exitcode
    if code is not None and code < 0:
        return f"the case's process was killed by signal {-code} (out of memory?)"
    return f"the case's process exited with status {code} without a result"
