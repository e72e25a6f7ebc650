"""How fast ``autota check`` reads real code, and where the time goes.

    python benchmarks/real_code.py [PACKAGE_OR_PATH ...]     (default: the installed jax)

Prints files/s of the CLI on all cores (best of five runs, as `python -m timeit` repeats), then a one-process breakdown:
decoding, Python's own parse (every file), the AST facts (files with a trigger), and libcst's
parse, metadata and rules (only the files, and the top-level statements, with a candidate).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

from autota.catalogue import RULES
from autota.cli.files import discover
from autota.source import engine, parsing

ENABLED = frozenset(RULES)


def _root(name: str) -> Path:
    if os.path.exists(name):
        return Path(name)
    spec = importlib.util.find_spec(name)
    return Path(next(iter(spec.submodule_search_locations)))


def breakdown(files: list[Path]) -> dict[str, float]:
    phases = dict.fromkeys(("decode", "python parse", "facts", "libcst parse", "metadata + rules"), 0.0)
    parsed = 0
    for path in files:
        t0 = time.perf_counter()
        try:
            text, _ = engine.decode(path.read_bytes())
            t1 = time.perf_counter()
            tree = parsing.python_ast(text, str(path))
        except parsing.ParseError:
            continue
        t2 = time.perf_counter()
        rules, sliced, line_map = engine._plan(text, tree, ENABLED)
        t3 = time.perf_counter()
        phases["decode"] += t1 - t0
        phases["python parse"] += t2 - t1
        phases["facts"] += t3 - t2
        if not rules:
            continue
        parsed += 1
        module = parsing.libcst_module(sliced)
        t4 = time.perf_counter()
        engine.run_rules(rules, module, str(path), text, ENABLED, line_map, parsed_text=sliced)
        phases["libcst parse"] += t4 - t3
        phases["metadata + rules"] += time.perf_counter() - t4
    phases["files parsed by libcst"] = parsed
    return phases


def run(target: str, repeats: int = 5) -> None:
    """The CLI as a user runs it (a fresh process, its worker pool), ``repeats`` times: the best
    run is the figure, as ``timeit`` takes it; the others show the machine's noise."""
    root = _root(target)
    files, _ = discover([str(root)], [])
    walls = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "autota", "check", "--no-progress", "--exit-zero", str(root)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
        )
        walls.append(time.perf_counter() - start)
    best = min(walls)
    runs = ", ".join(f"{w:.1f}" for w in walls)
    print(f"{target}: {len(files)} files in {best:.1f} s on {os.cpu_count()} cores: "
          f"{len(files) / best:.1f} files/s (runs: {runs} s)")
    for phase, seconds in breakdown(files).items():
        print(f"    {phase:<24} {seconds:8.2f}" if isinstance(seconds, float) else f"    {phase:<24} {seconds:8d}")


if __name__ == "__main__":
    for name in sys.argv[1:] or ["jax"]:
        run(name)
