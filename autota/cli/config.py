"""Settings from ``[tool.autota]`` in the nearest ``pyproject.toml``, overridden by the CLI."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KEYS = {"select", "ignore", "exclude", "unsafe-fixes"}


class ConfigError(ValueError):
    """A ``[tool.autota]`` table that cannot be used."""


@dataclass
class Settings:
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    unsafe_fixes: bool = False
    source: Path | None = None


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` that has a ``[tool.autota]`` table."""
    start = start.resolve()
    for directory in [start, *start.parents] if start.is_dir() else start.parents:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                with open(candidate, "rb") as fh:
                    if "autota" in tomllib.load(fh).get("tool", {}):
                        return candidate
            except (OSError, tomllib.TOMLDecodeError):
                continue
    return None


def load(start: Path) -> Settings:
    path = find_pyproject(start)
    if path is None:
        return Settings()
    with open(path, "rb") as fh:
        table = tomllib.load(fh)["tool"]["autota"]
    unknown = set(table) - KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) in [tool.autota]: {', '.join(sorted(unknown))}")

    def strings(key: str) -> list[str] | None:
        value = table.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: [tool.autota] {key} must be a list of strings")
        return value

    unsafe = table.get("unsafe-fixes", False)
    if not isinstance(unsafe, bool):
        raise ConfigError(f"{path}: [tool.autota] unsafe-fixes must be true or false")
    return Settings(strings("select"), strings("ignore") or [], strings("exclude") or [], unsafe, path)
