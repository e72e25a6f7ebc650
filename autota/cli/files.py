"""Finding the files to check, and writing fixes without harming the files written.

Discovery follows Ruff: a directory walk skips version control, caches, build output,
virtualenvs and ``exclude`` globs, and does not descend into symlinked folders; a file named on
the command line is checked even when excluded, unless ``--force-exclude`` (which the
pre-commit hooks pass). A file reached twice (a symlink and its target, two hard links) is
checked once, under its real name where the walk found it.

A fix is written to the file a symlink points at, leaving the link a link. It replaces the
content atomically (a temporary file renamed over it) with the file's mode and owner, unless
that would change the file's identity: a file with hard links, or one whose owner or group
this user cannot give to a new file, is rewritten in place, so every link sees the fix and the
owner stays. A read-only file (no write permission bit, even for root) is never written.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import os
import signal
import stat
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", "build", "dist", ".venv", "venv", ".tox", ".nox",
     ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules", "site-packages", ".eggs",
     ".ipynb_checkpoints"}
)
SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")


@dataclass(frozen=True)
class Excludes:
    """Glob patterns and the folder they are relative to."""

    patterns: tuple[str, ...]
    root: str

    def match(self, path: str) -> bool:
        """Whether ``path`` or a folder above it (below ``root``) matches a pattern, by its path
        relative to ``root`` or by its own name: ``generated/*``, ``generated``, ``*_pb2.py``."""
        if not self.patterns:
            return False
        absolute = os.path.abspath(path)
        rel = os.path.relpath(absolute, self.root)
        parts = Path(rel).parts
        if rel.startswith(os.pardir):  # outside the root: only names can match
            parts = (os.path.basename(absolute),)
            prefixes = []
        else:
            prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        for pattern in self.patterns:
            pattern = pattern.rstrip("/")
            if pattern.startswith("./"):
                pattern = pattern[2:]
            if any(fnmatch.fnmatchcase(p, pattern) for p in prefixes):
                return True
            if "/" not in pattern and any(fnmatch.fnmatchcase(name, pattern) for name in parts):
                return True
        return False


def _is_virtualenv(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def why_missing(path: str) -> str:
    """Why ``path`` cannot be opened, in words: no such file, a broken link, a link loop."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop"
        if os.path.islink(path):
            return "broken symbolic link"
        if exc.errno == errno.ENOENT:
            return "no such file or directory"
        return exc.strerror or str(exc)
    return "not a file or directory"


def discover(paths, excludes_of=(), force_exclude=False, suffixes=SOURCE_SUFFIXES):
    """The files to check below ``paths``, and ``(path, why)`` for those that cannot be.

    ``excludes_of(path)`` gives the :class:`Excludes` that apply at ``path`` (the settings of
    its folder and the command line's), or is a list of globs relative to the working
    directory; ``force_exclude(path)`` (or a bool) whether they apply to a path named in
    ``paths``. A directory that cannot be read is an error, not a silent gap.
    """
    if not callable(excludes_of):
        fixed = [Excludes(tuple(excludes_of), os.getcwd())]
        excludes_of = lambda path: fixed  # noqa: E731
    if not callable(force_exclude):
        forced = bool(force_exclude)
        force_exclude = lambda path: forced  # noqa: E731
    files: list[str] = []
    errors: list[tuple[str, str]] = []
    for given in paths:
        try:
            mode = os.stat(given).st_mode
        except OSError:
            errors.append((given, why_missing(given)))
            continue
        if not stat.S_ISDIR(mode):
            if not (force_exclude(given) and any(e.match(given) for e in excludes_of(given))):
                files.append(given)
            continue
        if force_exclude(given) and any(e.match(given) for e in excludes_of(given)):
            continue

        def unreadable(exc: OSError) -> None:
            errors.append((exc.filename or given, f"cannot read directory: {exc.strerror or exc}"))

        for directory, subdirs, names in os.walk(given, onerror=unreadable):
            excludes = excludes_of(directory)
            subdirs[:] = sorted(
                d for d in subdirs
                if d not in SKIP_DIRS and not d.endswith(".egg-info")
                and not _is_virtualenv(os.path.join(directory, d))
                and not any(e.match(os.path.join(directory, d)) for e in excludes)
            )
            for name in sorted(names):
                path = os.path.join(directory, name)
                if not name.endswith(suffixes) or any(e.match(path) for e in excludes):
                    continue
                if os.path.islink(path):
                    try:
                        if not stat.S_ISREG(os.stat(path).st_mode):
                            continue
                    except OSError:
                        errors.append((path, why_missing(path)))
                        continue
                files.append(path)
    return _once_each(files, errors), errors


def _once_each(files: list[str], errors: list[tuple[str, str]]) -> list[Path]:
    """Each file once (by device and inode), under a name that is not a symlink where there is one."""
    chosen: dict[tuple[int, int], str] = {}
    for path in files:
        try:
            st = os.stat(path)
        except OSError:
            errors.append((path, why_missing(path)))
            continue
        key = (st.st_dev, st.st_ino)
        if key not in chosen or (os.path.islink(chosen[key]) and not os.path.islink(path)):
            chosen[key] = path
    keep = set(chosen.values())
    seen: set[str] = set()
    return [Path(p) for p in files if p in keep and not (p in seen or seen.add(p))]


def read_only(st: os.stat_result, path: str) -> bool:
    """No write permission bit for anyone (root too), or none for this user."""
    return not st.st_mode & 0o222 or not os.access(path, os.W_OK)


def write_atomic(path: Path | str, data: bytes) -> None:
    """Replace the content of ``path`` (the file it links to, if a symlink) with ``data``.

    No reader sees half a file where a rename keeps the file's identity; see the module doc.
    Raises ``OSError`` (the file untouched) when it cannot write.
    """
    real = os.path.realpath(path)
    st = os.stat(real)
    if read_only(st, real):
        raise PermissionError(errno.EACCES, "the file is read-only")
    with _interrupts_deferred():
        if st.st_nlink > 1 or not _write_renamed(real, data, st):
            _write_in_place(real, data)


@contextlib.contextmanager
def _interrupts_deferred():
    """A Ctrl-C that arrives while a file is written takes effect once the file is whole and the
    temporary file gone: between creating the temporary file and the ``try`` that removes it,
    an interrupt would leave it behind. SIGINT is blocked in the main thread (where Python runs
    its handler) for the write, and delivered when it is unblocked."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _write_renamed(real: str, data: bytes, st: os.stat_result) -> bool:
    """Write a temporary file with ``real``'s mode and owner and rename it over ``real``;
    ``False`` (nothing changed) if the owner cannot be kept or the folder is not writable."""
    directory = os.path.dirname(real)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(real)}.", suffix=".autota-tmp", dir=directory)
    except PermissionError:
        return False
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            try:
                os.fchown(fh.fileno(), st.st_uid, st.st_gid)
            except PermissionError:
                os.unlink(tmp)
                return False
            os.fchmod(fh.fileno(), stat.S_IMODE(st.st_mode))
            os.fsync(fh.fileno())
        os.replace(tmp, real)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return True


def _write_in_place(real: str, data: bytes) -> None:
    """Overwrite ``real`` through its own inode; on failure put the old content back."""
    with open(real, "r+b") as fh:
        old = fh.read()
        try:
            fh.seek(0)
            fh.write(data)
            fh.truncate()
            fh.flush()
            os.fsync(fh.fileno())
        except BaseException:
            fh.seek(0)
            fh.write(old)
            fh.truncate()
            fh.flush()
            raise
