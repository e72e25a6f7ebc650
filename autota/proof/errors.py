"""The one exception the proof tools raise for bad input, so the CLI can print it as one line."""

from __future__ import annotations


class ProofInputError(ValueError):
    """Bad input to the proof tools: a missing path, an unknown function, an args factory that
    raises. ``str(err)`` is the one-line reason; ``path`` is what it is about, if anything."""

    def __init__(self, why: str, path: str | None = None):
        super().__init__(why)
        self.path = path


def one_line(err: BaseException) -> str:
    """``TypeName: first line of the message``: an error fit for a table cell or stderr."""
    lines = str(err).strip().splitlines()
    return f"{type(err).__name__}: {lines[0]}" if lines else type(err).__name__
