"""Settings from ``[tool.autota]``: the nearest ``pyproject.toml`` above each file, or the one
``--config`` names, overridden by the command line.

Each file is checked with the settings of the closest ``pyproject.toml`` at or above it that has
a ``[tool.autota]`` table (as Ruff does), so ``check p1 p2`` and ``check p2 p1`` agree and a
sub-project keeps its own settings. A file with no such table above it uses the table found
from the working directory, else the defaults. ``exclude`` globs are relative to the folder of
the file that holds them; ``--exclude`` globs to the working directory.

A ``pyproject.toml`` that is not valid TOML, or whose ``[tool.autota]`` is not a table of the
known keys, is an error (exit 2), never silently skipped.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KEYS = {"select", "ignore", "exclude", "unsafe-fixes", "force-exclude"}


class ConfigError(ValueError):
    """A configuration file that cannot be used."""


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    unsafe_fixes: bool = False
    force_exclude: bool = False
    source: Path | None = None
    """The file these settings were read from, ``None`` for the defaults."""
    root: Path = field(default_factory=Path.cwd)
    """The folder ``exclude`` globs are relative to: the config file's."""


def _read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None


def _autota_table(path: Path, document: dict) -> dict | None:
    """``[tool.autota]`` of a pyproject document, ``None`` if absent; an error if malformed."""
    tool = document.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: [tool] must be a table")
    table = tool.get("autota")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.autota] must be a table, got {type(table).__name__}")
    return table


def parse(table: dict, where: str, root: Path, source: Path | None) -> Settings:
    """Settings from an ``[tool.autota]``-shaped table; ``where`` names it in errors."""
    unknown = set(table) - KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) in [tool.autota]: {', '.join(sorted(unknown))}"
                          f" (known: {', '.join(sorted(KEYS))})")

    def strings(key: str) -> tuple[str, ...] | None:
        value = table.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: [tool.autota] {key} must be a list of strings")
        return tuple(value)

    def flag(key: str) -> bool:
        value = table.get(key, False)
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: [tool.autota] {key} must be true or false")
        return value

    return Settings(strings("select"), strings("ignore") or (), strings("exclude") or (),
                    flag("unsafe-fixes"), flag("force-exclude"), source, root)


def load_file(path: Path) -> Settings:
    """Settings from a file ``--config`` names: a ``pyproject.toml`` (its ``[tool.autota]``) or
    any other TOML file holding the keys at top level (``autota.toml``)."""
    path = Path(os.path.abspath(path))
    if not path.is_file():
        raise ConfigError(f"{path}: --config: no such file")
    document = _read_toml(path)
    if path.name == "pyproject.toml":
        document = _autota_table(path, document)
        if document is None:
            raise ConfigError(f"{path}: --config: no [tool.autota] table")
    return parse(document, str(path), path.parent, path)


def load_inline(text: str) -> dict:
    """``--config "select = ['AT1']"``: one TOML ``key = value`` overriding the files."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"--config {text!r}: neither a file nor a TOML key = value ({exc})") from None
    parse(table, f"--config {text!r}", Path.cwd(), None)  # validate keys and types now
    return table


class Resolver:
    """The settings of each folder, found once per folder and cached."""

    def __init__(self, config: Settings | None = None, overrides: dict | None = None) -> None:
        self._fixed = config
        self._overrides = overrides or {}
        self._by_directory: dict[str, Settings | None] = {}
        self._fallback: Settings | None = None

    def for_path(self, path: str | Path) -> Settings:
        """The settings that apply to ``path`` (a file or a folder)."""
        if self._fixed is not None:
            return self._apply(self._fixed)
        absolute = os.path.abspath(path)
        directory = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
        found = self._nearest(directory)
        if found is None:
            if self._fallback is None:
                self._fallback = self._nearest(os.getcwd()) or Settings()
            found = self._fallback
        return self._apply(found)

    def _apply(self, settings: Settings) -> Settings:
        if not self._overrides:
            return settings
        merged = {**self._table_of(settings), **self._overrides}
        return parse(merged, "--config", settings.root, settings.source)

    @staticmethod
    def _table_of(settings: Settings) -> dict:
        table: dict = {"ignore": list(settings.ignore), "exclude": list(settings.exclude),
                       "unsafe-fixes": settings.unsafe_fixes, "force-exclude": settings.force_exclude}
        if settings.select is not None:
            table["select"] = list(settings.select)
        return table

    def _nearest(self, directory: str) -> Settings | None:
        """The ``[tool.autota]`` at or above ``directory``; each folder is read once."""
        visited = []
        current = directory
        while True:
            if current in self._by_directory:
                found = self._by_directory[current]
                break
            visited.append(current)
            candidate = Path(current, "pyproject.toml")
            found = None
            if candidate.is_file():
                table = _autota_table(candidate, _read_toml(candidate))
                if table is not None:
                    found = parse(table, str(candidate), candidate.parent, candidate)
            if found is not None:
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        for seen in visited:
            self._by_directory[seen] = found
        return found

