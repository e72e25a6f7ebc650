"""Findings and fixes as plain data, so every report format can render them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class Location:
    """A source range. Lines and columns are 1-based; the end is exclusive.

    Columns count characters (code points), as Ruff and SARIF's default ``charOffset`` do.
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Edit:
    """Replace the text between two 1-based positions (end exclusive) with ``content``."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    """A set of non-overlapping edits that together resolve one finding."""

    applicability: Literal["safe", "unsafe"]
    message: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Finding:
    """One reported anti-pattern: a catalogue code, a message and where it is.

    ``fix`` is ``None`` where no fix is offered, and ``reason`` then says why: the precondition
    that failed. With an unsafe fix, ``reason`` names the assumption the fix rests on. The
    message says what is wrong and what to do; the reason is kept apart so that reports can
    show it as its own field (``details.reason`` in JSON, a SARIF property).
    """

    code: str
    message: str
    location: Location
    fix: Fix | None = None
    details: dict = field(default_factory=dict, compare=False)
    reason: str | None = None

    @property
    def text(self) -> str:
        """The message with its reason, as a human reads it in one line."""
        if self.reason is None:
            return self.message
        if self.fix is not None and self.fix.applicability == "unsafe":
            return f"{self.message}; the fix is unsafe: {self.reason}"
        return f"{self.message}; no safe fix: {self.reason}"

    @property
    def name(self) -> str:
        from autota.catalogue import get

        return get(self.code).name
