"""Source text with line/column arithmetic, so fixes can be plain text edits.

Fixes are edits on the original text rather than a re-rendered tree: everything outside an
edit stays byte for byte what the user wrote (comments, formatting, line endings).
"""

from __future__ import annotations

import io
import re
import tokenize
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable

from autota.catalogue import Edit
from autota.source.parsing import fix_parse_error

_NEWLINE = re.compile(r"\r\n|\r|\n")


class OverlappingEdits(ValueError):
    """Two edits touch the same text."""


@dataclass
class SourceText:
    text: str

    def __post_init__(self) -> None:
        self.line_starts = [0] + [m.end() for m in _NEWLINE.finditer(self.text)]
        first = _NEWLINE.search(self.text)
        self.newline = first.group() if first else "\n"

    @cached_property
    def _tokenized(self) -> tuple[list[tokenize.TokenInfo], int | None]:
        """The file's comment tokens, and the line where this Python's tokenizer stops reading it
        (a newer grammar's f-string), ``None`` where it reads it whole."""
        return _scan_comments(self.text)

    @cached_property
    def comments(self) -> list[tuple[int, str]]:
        """Every comment of the text that the tokenizer reaches, with its offset."""
        return [(self.offset(t.start[0], t.start[1] + 1), t.string) for t in self._tokenized[0]]

    @cached_property
    def _comments_unreadable_from(self) -> int | None:
        """The offset past which comments cannot be told apart, or ``None``."""
        line = self._tokenized[1]
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

    def parses_after(self, edits: Iterable[Edit]) -> bool:
        """Whether the text with ``edits`` applied is still Python that Python's parser reads (or,
        in a grammar newer than this Python, libcst's): a fix is checked where it is made, so
        that one that cannot parse in its place (after a line continuation) is not offered."""
        return fix_parse_error(self.apply(edits), self.text, "<fix>") is None

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


def _scan_comments(code: str) -> tuple[list[tokenize.TokenInfo], int | None]:
    """The comment tokens of ``code`` (the file, or an edit's new text) as far as it tokenizes, and
    the line where it stops (``None`` where it tokenizes whole): in a fix's new text, a comment it
    cannot reach counts as dropped, which errs on the safe side."""
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT:
                found.append(token)
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        return found, getattr(exc, "lineno", None) or (exc.args[1][0] if len(exc.args) > 1 else 1)
    return found, None
