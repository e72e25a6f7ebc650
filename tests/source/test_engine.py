"""The engine's shortcuts never change what it reports."""

from __future__ import annotations

import re
from pathlib import Path

import jax
import pytest

from autota.catalogue import RULES, Edit
from autota.source.engine import ParseError, _findings, check, decode, fix
from autota.source.parsing import fix_parse_error
from autota.source.text import SourceText

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


def test_valid_python_that_libcst_cannot_read_is_not_called_a_syntax_error():
    """`(n): int = 3` runs in CPython, which libcst's grammar refuses (review 63)."""
    text = b"import jax.numpy as jnp\n(n): int = 3\nacc = jnp.zeros(0)\nfor i in range(n):\n    acc = jnp.append(acc, i)\n"
    with pytest.raises(ParseError, match="libcst cannot read this valid Python at"):
        check(text, "paren.py", ALL)


FIX_SHAPES = ("(", "pass\n", "    pass\n", " \\", "\n@dec", "")


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/before.py")), ids=lambda p: p.parent.name)
def test_a_fix_parses_in_its_statements_as_in_the_whole_file(path: Path):
    """``parses_after`` reads again only the top-level statements an edit touches and their
    neighbours; it must judge every edit as a parse of the whole edited file does."""
    text = path.read_text()
    source = SourceText(text)
    for line in range(1, source.line_count + 1):
        end = len(source.line(line)) + 1
        for content in FIX_SHAPES:
            for edit in (Edit(line, 1, line, 1, content), Edit(line, end, line, end, content),
                         Edit(line, 1, min(line + 1, source.line_count), 1, content)):
                whole = fix_parse_error(source.apply([edit]), text, "<fix>") is None
                assert source.parses_after([edit]) == whole, (line, edit)


@pytest.mark.parametrize(
    "text",
    [
        'jax.config.update("jax_disable_jit", True)\n',
        'jax.config.update("jax_disable\\x5fjit", True)\n',
        'jax.config.update(\n    "jax_disable"  # the option\n    "_jit", True)\n',
        'jax.config.update("jax_disable\\N{LOW LINE}jit", True)\n',
        'getattr(jax, b"DISABLE\\x5fJIT".decode())()\n',
        "# jax.disable_jit() while debugging\n",
    ],
)
def test_a_name_is_mentioned_however_a_string_spells_it(text: str):
    """Review 51: an option named by a string literal's value, not its text, is mentioned too."""
    assert SourceText(text).mentions("disable_jit")


def test_strings_apart_are_not_joined():
    assert not SourceText('a = "jax_disable"\nb = "_jit"\n').mentions("disable_jit")


@pytest.mark.parametrize("text, error", [
    ("x = (\n", "syntax error at 1:5: '(' was never closed"),
    ("return 3\n", None),  # the compiler refuses it, the parser does not: not a syntax error
    ("def f():\n    x = 1\n    global x\n", None),
    ("type T = int\n", None),  # a grammar newer than Python 3.11, which libcst reads there
])
def test_a_file_no_rule_reads_has_the_parsers_verdict(text, error):
    """A file that names no JAX has its syntax checked by CPython's compiler, and an error that
    the compiler raises judged again by the parser, so the verdict is what it is for other files."""
    assert "jax" not in text and ".at[" not in text
    if error is None:
        assert check(text.encode(), "plain.py", ALL).findings == []
    else:
        with pytest.raises(ParseError, match=re.escape(error)):
            check(text.encode(), "plain.py", ALL)
