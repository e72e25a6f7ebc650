"""``autota check`` is linear in the size of a file: a question asked once per loop that walks
the whole module (or parses the whole file again for each fix) made a file of a few thousand
functions take minutes, and no test saw it. Timed side by side in one process, a file four
times longer must take about four times as long, not sixteen."""

from __future__ import annotations

import time
from pathlib import Path

from autota.catalogue import RULES
from autota.source import check
from tests.equivalence import load_module

ROOT = Path(__file__).resolve().parents[2]


def _seconds(text: bytes) -> float:
    start = time.perf_counter()
    check(text, "generated.py", frozenset(RULES))
    return time.perf_counter() - start


def test_a_file_four_times_longer_takes_about_four_times_as_long():
    generator = load_module(ROOT / "benchmarks" / "large_file.py", "autota_large_file")
    small, large = generator.module(60).encode(), generator.module(240).encode()
    _seconds(small)  # imports and caches warm
    # interleaved, best of three each: a busy spell on a shared machine slows one run, not all
    times = [(_seconds(small), _seconds(large)) for _ in range(3)]
    ratio = min(t for _, t in times) / min(t for t, _ in times)
    # linear is 4x, quadratic 16x: the bound sits halfway between, on a log scale
    assert ratio < 8, f"4x the functions took {ratio:.1f}x the time"
