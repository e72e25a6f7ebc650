"""Source text with line/column arithmetic, so fixes can be plain text edits.

Fixes are edits on the original text rather than a re-rendered tree: everything outside an
edit stays byte for byte what the user wrote (comments, formatting, line endings).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable

from autota.catalogue import Edit
from autota.source.parsing import ParseError, fix_parse_error, python_ast

_NEWLINE = re.compile(r"\r\n|\r|\n")


class OverlappingEdits(ValueError):
    """Two edits touch the same text."""


@dataclass
class SourceText:
    text: str
    tree: ast.Module | None = field(default=None, repr=False, compare=False)
    """Python's AST of ``text`` where the caller has it: read for the top-level statements."""

    def __post_init__(self) -> None:
        self.line_starts = [0] + [m.end() for m in _NEWLINE.finditer(self.text)]
        first = _NEWLINE.search(self.text)
        self.newline = first.group() if first else "\n"

    @cached_property
    def _tokenized(self) -> _Tokens:
        """The file read once by this Python's tokenizer: its comments, names and string values,
        and where it stops reading (a newer grammar's f-string)."""
        return _scan(self.text)

    def name_count(self, name: str) -> int:
        """How many times the text spells the name ``name`` in code (not in comments or
        strings); where the tokenizer stops early, every spelling counts, strings included (a
        count too high errs on the side of uses not seen)."""
        if self._tokenized.stop is not None:
            return len(re.findall(rf"(?<![\w]){re.escape(name)}(?![\w])", self.text))
        return self._tokenized.names.get(name, 0)

    @cached_property
    def comments(self) -> list[tuple[int, str]]:
        """Every comment of the text that the tokenizer reaches, with its offset."""
        return [(self.offset(t.start[0], t.start[1] + 1), t.string) for t in self._tokenized.comments]

    @cached_property
    def _comments_unreadable_from(self) -> int | None:
        """The offset past which comments cannot be told apart, or ``None``."""
        line = self._tokenized.stop
        return None if line is None else self.line_starts[max(0, min(line, len(self.line_starts)) - 1)]

    def dropped_comments(self, edits: Iterable[Edit]) -> list[str]:
        """The comments inside the spans that ``edits`` replace that their new text does not
        hold as comments as many times (a comment's text inside a generated one is not it)."""
        edits = list(edits)
        spans = [(self.offset(e.line, e.column), self.offset(e.end_line, e.end_column)) for e in edits]
        if self._comments_unreadable_from is not None and any(
            e > self._comments_unreadable_from and "#" in self.text[s:e] for s, e in spans
        ):
            return ["(a comment past where this Python's tokenizer stops)"]
        replaced = Counter(text for offset, text in self.comments if any(s <= offset < e for s, e in spans))
        kept = Counter(t.string for e in edits for t in _scan_comments(e.content)[0])
        return sorted((replaced - kept).elements())

    def mentions(self, word: str) -> bool:
        """Whether ``word`` is anywhere in the text, in any case (a name, a string, a comment), or
        in the value of a string literal spelled otherwise (``"jax_disable\\x5fjit"``, or
        ``"jax_disable" "_jit"`` implicitly concatenated): an option may be named either way."""
        word = word.lower()
        return word in self._lowered or any(word in value for value in self._tokenized.strings)

    @cached_property
    def _lowered(self) -> str:
        return self.text.lower()

    def parses_after(self, edits: Iterable[Edit]) -> bool:
        """Whether the text with ``edits`` applied is still Python that Python's parser reads (or,
        in a grammar newer than this Python, libcst's): a fix is checked where it is made, so
        that one that cannot parse in its place (after a line continuation) is not offered.

        Only the top-level statements that the edits touch are parsed again, each run of them
        alone: a module parses where each of its top-level statements does, and parsing the
        whole file for each of its fixes made a file of many fixes quadratic."""
        edits = list(edits)
        statements = self._top_level_statements
        if statements is None or any(e.line <= statements.future_end for e in edits):
            return fix_parse_error(self.apply(edits), self.text, "<fix>") is None
        for first, last in statements.around(edits):
            start = self.line_starts[first - 1]
            end = self.line_starts[last] if last < self.line_count else len(self.text)
            shift = first - 1
            inside = [Edit(e.line - shift, e.column, e.end_line - shift, e.end_column, e.content)
                      for e in edits if first <= e.line <= last]
            try:
                python_ast(SourceText(self.text[start:end]).apply(inside), "<fix>")
            except ParseError:
                return False
        return True

    @cached_property
    def _top_level_statements(self) -> _Statements | None:
        """The lines of the module's top-level statements, ``None`` where Python cannot read it."""
        tree = self.tree
        if tree is None:
            try:
                tree = python_ast(self.text, "<text>")
            except ParseError:
                return None
        spans = [(min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", ())]), s.end_lineno) for s in tree.body]
        future = [s.end_lineno for s in tree.body if isinstance(s, ast.ImportFrom) and s.module == "__future__"]
        return _Statements(spans, max(future, default=0))

    @property
    def line_count(self) -> int:
        return len(self.line_starts)

    def offset(self, line: int, column: int) -> int:
        """Offset of a 1-based (line, column); line ``line_count + 1`` is the end of the text."""
        if line > self.line_count:
            return len(self.text)
        return self.line_starts[line - 1] + column - 1

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based (line, column) of an offset."""
        line = bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def line(self, line: int) -> str:
        """Line ``line`` (1-based) without its line ending."""
        start = self.line_starts[line - 1]
        end = self.line_starts[line] if line < self.line_count else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def indentation(self, line: int) -> str:
        text = self.line(line)
        return text[: len(text) - len(text.lstrip(" \t"))]

    def insert_lines_before(self, line: int, lines: Iterable[str]) -> Edit:
        """An edit inserting whole lines before ``line``; past the last line, after it."""
        body = "".join(f"{item}{self.newline}" for item in lines)
        if line <= self.line_count:
            return Edit(line, 1, line, 1, body)
        # After a last line that has no line ending: start a new line, end without one.
        last = self.line_count
        end = len(self.line(last)) + 1
        return Edit(last, end, last, end, self.newline + body[: -len(self.newline)])

    def apply(self, edits: Iterable[Edit]) -> str:
        """The text with ``edits`` applied; raises :class:`OverlappingEdits` if any overlap."""
        spans = sorted(
            (self.offset(e.line, e.column), self.offset(e.end_line, e.end_column), e.content)
            for e in edits
        )
        out, cursor = [], 0
        for start, end, content in spans:
            if start < cursor:
                raise OverlappingEdits(f"edits overlap at offset {start}")
            out.append(self.text[cursor:start])
            out.append(content)
            cursor = end
        out.append(self.text[cursor:])
        return "".join(out)


_END = 1 << 62
"""A line past any text's last."""


@dataclass
class _Statements:
    spans: list[tuple[int, int]]
    """Each top-level statement's first line (its decorators') and last line, in order."""
    future_end: int
    """The last line of the last ``from __future__`` import (0 if none): an edit up to there may
    move code before it, which only the whole file shows."""

    def around(self, edits: list[Edit]) -> list[tuple[int, int]]:
        """Runs of whole lines, disjoint and in order, that hold the edits, the statements they
        touch and one more statement on each side: an edit at a statement's edge may join it to
        its neighbour (an indented line after a function's body, a trailing backslash)."""
        starts = [first for first, _ in self.spans]
        ends = [last for _, last in self.spans]
        runs: list[list[int]] = []
        for edit in sorted(edits, key=lambda e: (e.line, e.end_line)):
            first, last = edit.line, max(edit.line, edit.end_line)
            before = bisect_left(ends, first) - 1  # the last statement that ends before the edit
            after = bisect_right(starts, last)  # the first statement that starts after it
            first = self.spans[before][0] if before >= 0 else 1
            last = self.spans[after][1] if after < len(self.spans) else _END  # the rest of the text
            if runs and first <= runs[-1][1]:
                runs[-1][1] = max(runs[-1][1], last)
            else:
                runs.append([first, last])
        return [(first, last) for first, last in runs]


@dataclass
class _Tokens:
    comments: list[tokenize.TokenInfo]
    names: Counter
    """How many times each name is spelled in code (each word of an f-string included)."""
    strings: list[str]
    """The lowered values of the string literals, each run of adjacent ones (implicit
    concatenation) joined."""
    stop: int | None
    """The line where the tokenizer stops, ``None`` where it reads the text whole."""


def _scan(code: str) -> _Tokens:
    """What :class:`_Tokens` holds of ``code``, as far as it tokenizes."""
    found = _Tokens([], Counter(), [], None)
    run: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT:
                found.comments.append(token)
            elif token.type == tokenize.NAME:
                found.names[token.string] += 1
            if token.type == tokenize.STRING:
                try:
                    value = ast.literal_eval(token.string)
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    value = token.string  # an f-string: its text
                    # its replacement fields are code (one token before Python 3.12): every word
                    # of it counts as a name spelled, which errs on the side of uses not seen
                    found.names.update(re.findall(r"[^\W\d]\w*", value))
                run.append(value.decode("latin-1") if isinstance(value, bytes) else str(value))
            elif token.type not in (tokenize.NL, tokenize.COMMENT) and run:
                found.strings.append("".join(run).lower())
                run = []
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        found.stop = getattr(exc, "lineno", None) or (exc.args[1][0] if len(exc.args) > 1 else 1)
    if run:
        found.strings.append("".join(run).lower())
    return found


def _scan_comments(code: str) -> tuple[list[tokenize.TokenInfo], int | None]:
    """The comment tokens of ``code`` (an edit's new text) as far as it tokenizes, and the line
    where it stops (``None`` where it tokenizes whole): in a fix's new text, a comment it
    cannot reach counts as dropped, which errs on the safe side."""
    scanned = _scan(code)
    return scanned.comments, scanned.stop
