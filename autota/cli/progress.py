"""A one-line progress count on a terminal, and silence in CI or when stderr is piped.

Written here rather than taken from tqdm so that the linter installs with libcst alone.
"""

from __future__ import annotations

import os
import sys
import time

MIN_ITEMS = 20
"""Below this many items a run is quick enough that a bar is only noise."""

INTERVAL_S = 0.1


def enabled(total: int, disable: bool = False) -> bool:
    return not disable and total >= MIN_ITEMS and sys.stderr.isatty() and not os.environ.get("CI")


class Progress:
    """``desc 283/2000 files`` rewritten in place on stderr, at most ten times a second."""

    def __init__(self, total: int, desc: str, unit: str, show: bool) -> None:
        self.total, self.desc, self.unit, self.show = total, desc, unit, show
        self.done = 0
        self._drawn = 0.0

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.show and (now - self._drawn >= INTERVAL_S or self.done >= self.total):
            self._drawn = now
            sys.stderr.write(f"\r{self.desc} {self.done}/{self.total} {self.unit}s")
            sys.stderr.flush()

    def close(self) -> None:
        if self.show and self._drawn:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
        self.show = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def progress(total: int, disable: bool = False, desc: str = "checking", unit: str = "file") -> Progress:
    return Progress(total, desc, unit, enabled(total, disable))
