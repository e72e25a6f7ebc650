"""A fix as one replacement of whole lines: the shape a review suggestion needs.

A fix may be several edits (a line inserted before a loop, a statement rewritten, lines added
after the loop). GitHub posts a suggestion as "replace the commented lines with these", so the
edits are merged into one replacement of every line from the first any edit touches to the
last. An insertion at the start of a line falls between lines: it joins the lines the other
edits touch, and only on its own does it claim the line it precedes.
"""

from __future__ import annotations

from dataclasses import dataclass

from autota.catalogue import Fix
from autota.source.text import SourceText


@dataclass(frozen=True)
class LineReplacement:
    """Lines ``first`` to ``last`` (1-based, inclusive), before and after the fix."""

    first: int
    last: int
    old: str
    """The lines as they are, line breaks included (the last has none at the end of a file
    without a final newline)."""
    new: str
    """What replaces them: empty, or ending with a line break wherever ``old`` does."""

    @property
    def end(self) -> tuple[int, int]:
        """The exclusive end (line, column) of ``old``: column 1 of the next line, or just
        past the last character of a file that does not end with a line break."""
        if self.old.endswith(("\n", "\r")):
            return self.last + 1, 1
        tail = self.old.splitlines()[-1] if self.old else ""
        return self.last, len(tail) + 1

    @property
    def new_lines(self) -> str:
        """``new`` without the line break that ends the last replaced line, as a linewise
        suggestion takes it (the line break is kept by whoever applies it)."""
        for newline in ("\r\n", "\n", "\r"):
            if self.old.endswith(newline) and self.new.endswith(newline):
                return self.new[: -len(newline)]
        return self.new


def line_replacement(fix: Fix, text: str) -> LineReplacement | None:
    """The fix's edits on ``text`` merged into one replacement of whole lines."""
    if not fix.edits:
        return None
    source = SourceText(text)
    real_lines = source.line_count - (1 if text.endswith(("\n", "\r")) or not text else 0)
    between = [e for e in fix.edits if e.line == e.end_line and e.column == e.end_column == 1]
    insertions = [e.line for e in between]
    spans = [
        (e.line, e.end_line - 1 if e.end_column == 1 and e.end_line > e.line else e.end_line)
        for e in fix.edits
        if e not in between
    ]
    if spans:
        first, last = min(a for a, _ in spans), max(max(a, b) for a, b in spans)
    else:
        first = last = min(insertions[0], max(real_lines, 1))
    for line in insertions:
        first, last = min(first, line), max(last, line - 1)
    last = min(max(last, first), max(real_lines, 1))
    new_text = source.apply(fix.edits)
    while True:
        start, end = source.offset(first, 1), source.offset(last + 1, 1)
        old = text[start:end]
        new = new_text[start : len(new_text) - (len(text) - end)]
        broken = old.endswith(("\n", "\r")) and new and not new.endswith(("\n", "\r"))
        if not broken or last >= real_lines:
            return LineReplacement(first, last, old, new)
        last += 1  # an edit took the line break: the next line belongs to the suggestion
