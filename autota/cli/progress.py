"""A progress bar on a terminal, and silence in CI or when output is piped."""

from __future__ import annotations

import os
import sys

MIN_ITEMS = 20
"""Below this many items a run is quick enough that a bar is only noise."""


def enabled(total: int, disable: bool = False) -> bool:
    return not disable and total >= MIN_ITEMS and sys.stderr.isatty() and not os.environ.get("CI")


def progress(total: int, disable: bool = False, desc: str = "checking"):
    """A tqdm bar on stderr, or a do-nothing bar when it should stay silent."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="file", disable=not enabled(total, disable), leave=False)
