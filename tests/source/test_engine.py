"""The engine's shortcuts never change what it reports."""

from __future__ import annotations

from pathlib import Path

import jax
import pytest

from autota.catalogue import RULES
from autota.source.engine import _findings, decode

from tests.conftest import CORPUS

ALL = frozenset(RULES)
HERE = Path(__file__).parent
SOURCES = sorted(HERE.glob("fixtures/*/*.in.py")) + sorted(CORPUS.glob("*/before.py"))
# Real files whose candidates sit among many other definitions: slicing drops the rest.
JAX_ROOT = Path(jax.__file__).parent
REAL = [JAX_ROOT / p for p in ("_src/lax/linalg.py", "_src/numpy/polynomial.py", "experimental/rnn.py")]


@pytest.mark.parametrize("path", SOURCES + [p for p in REAL if p.exists()], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_slicing_reports_what_a_full_parse_reports(path: Path):
    text, _ = decode(path.read_bytes())
    assert _findings(text, str(path), ALL, slicing=True) == _findings(text, str(path), ALL, slicing=False)
