"""The engine's shortcuts never change what it reports."""

from __future__ import annotations

from pathlib import Path

import jax
import pytest

from autota.catalogue import RULES
from autota.source.engine import ParseError, _findings, check, decode, fix

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


NEWER_GRAMMAR = '''type Rows = list

import jax.numpy as jnp


def grow(xs):
    out = jnp.zeros((0,))
    for x in xs:
        out = jnp.concatenate([out, x[None]])
    return out
'''


def test_a_grammar_newer_than_this_python_is_read_by_libcst():
    """A 3.12 `type` alias under Python 3.11: the file is checked and fixed whole, not refused
    as a syntax error; a file neither parser reads keeps Python's own error."""
    findings = check(NEWER_GRAMMAR.encode(), "newer.py", ALL).findings
    assert [f.code for f in findings] == ["AT101"]
    fixed = fix(NEWER_GRAMMAR.encode(), "newer.py", ALL)
    assert fixed.fixes_applied == 1 and b"out_parts.append" in fixed.fixed_text
    with pytest.raises(ParseError, match="syntax error at 1:"):
        check(b"def f(:\n    pass\n", "bad.py", ALL)
