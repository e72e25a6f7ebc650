"""Finding the files to check, reading them, and writing fixes atomically."""

from __future__ import annotations

import fnmatch
import os
import tempfile
from pathlib import Path

SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", "build", "dist", ".venv", "venv", ".tox", ".nox",
     ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules", "site-packages", ".eggs",
     ".ipynb_checkpoints"}
)
SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")


def _excluded(path: Path, root: Path, patterns: list[str]) -> bool:
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        rel = path.as_posix()
    return any(
        fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(path.name, pattern)
        or fnmatch.fnmatch(rel, pattern.rstrip("/") + "/*")
        for pattern in patterns
    )


def _is_virtualenv(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def discover(paths: list[str], exclude: list[str], suffixes=SOURCE_SUFFIXES) -> tuple[list[Path], list[tuple[str, str]]]:
    """The files to check below ``paths``, and ``(path, why)`` for paths that do not exist.

    A file named on the command line is always checked; directories are walked for source
    files (notebooks included), skipping version control, caches, build output, virtualenvs
    and ``exclude`` globs. A directory that cannot be read is an error, not a silent gap.
    """
    files: list[Path] = []
    errors: list[tuple[str, str]] = []
    for given in paths:
        root = Path(given)
        if root.is_file():
            files.append(root)
            continue
        if not root.is_dir():
            errors.append((given, "no such file or directory"))
            continue
        def unreadable(exc: OSError) -> None:
            errors.append((exc.filename or given, f"cannot read directory: {exc.strerror or exc}"))

        for directory, subdirs, names in os.walk(root, onerror=unreadable):
            here = Path(directory)
            subdirs[:] = sorted(
                d for d in subdirs
                if d not in SKIP_DIRS and not d.endswith(".egg-info")
                and not _is_virtualenv(os.path.join(directory, d))
                and not _excluded(here / d, root, exclude)
            )
            for name in sorted(names):
                path = here / name
                if name.endswith(suffixes) and not _excluded(path, root, exclude):
                    files.append(path)
    seen: set[Path] = set()
    unique = [p for p in files if not (p.resolve() in seen or seen.add(p.resolve()))]
    return unique, errors


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path``'s content with ``data`` so that no reader ever sees half of it."""
    directory = path.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".autota-tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
