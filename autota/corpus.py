"""Load the shipped corpus: realistic cases, each the code before, the code after, and inputs.

A case is a directory holding

* ``before.py``: the code as users write it;
* ``after.py``: what ``autota fix`` must turn it into (identical to ``before.py`` where no safe
  fix exists, as for negatives and report-only findings);
* ``unsafe.py`` (optional): what ``autota fix --unsafe-fixes`` must turn it into, safe and
  unsafe fixes applied. An unsafe fix may change behaviour in general (a donated argument is
  deleted after the call, so a caller that still holds it breaks); the case shows a use where it
  computes the same thing, and is proven like a safe fix. A case without it must have no unsafe
  fix: ``--unsafe-fixes`` then gives ``after.py``;
* ``case.toml``: what the case is and what must hold for it (see :class:`Case`);
* ``inputs.py``: ``make_args(T) -> tuple``, deterministic arguments for the entry function at
  size ``T``; deterministic so that every run can take fresh ones, as a fix that donates its
  arguments leaves them deleted.

The tests, the benchmarks and the docs all read cases through this module.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@dataclass(frozen=True)
class Expected:
    """A finding ``autota check`` must report on ``before.py``: a code, a line, fixable or not."""

    code: str
    line: int
    fixable: bool


@dataclass(frozen=True)
class Case:
    """One corpus case as described by its ``case.toml``.

    Keys of ``case.toml``: ``summary`` (one line), ``entry`` (the function compared before and
    after), ``expect`` (a list of ``"AT101:12"`` strings, with a trailing ``*`` when the
    finding must carry a safe fix: ``"AT101:12*"``), ``sizes`` (values of T for the
    equivalence tests), ``bench_sizes`` (values of T for ``autota bench``), ``grad_argnums``
    (arguments to differentiate; empty for none), ``transform`` (whether
    ``autota.transform`` is expected to rewrite ``entry``) and ``static_argnums`` (arguments
    that must stay Python values under ``jit``).
    """

    name: str
    path: Path
    summary: str
    entry: str
    expect: tuple[Expected, ...]
    sizes: tuple[int, ...]
    bench_sizes: tuple[int, ...]
    grad_argnums: tuple[int, ...]
    static_argnums: tuple[int, ...]
    transform: bool
    raw: dict = field(repr=False, compare=False, default_factory=dict)

    @property
    def before_path(self) -> Path:
        return self.path / "before.py"

    @property
    def after_path(self) -> Path:
        return self.path / "after.py"

    @property
    def has_fix(self) -> bool:
        return self.before_path.read_bytes() != self.after_path.read_bytes()

    @property
    def unsafe_path(self) -> Path:
        return self.path / "unsafe.py"

    @property
    def has_unsafe_fix(self) -> bool:
        """Whether the case proves an unsafe fix: only then is ``unsafe.py`` there."""
        return self.unsafe_path.is_file()

    def load_before(self) -> ModuleType:
        return _load_module(self.before_path, f"autota_corpus_{self.name}_before")

    def load_after(self) -> ModuleType:
        return _load_module(self.after_path, f"autota_corpus_{self.name}_after")

    def load_unsafe(self) -> ModuleType:
        return _load_module(self.unsafe_path, f"autota_corpus_{self.name}_unsafe")

    def entry_of(self, module: ModuleType) -> Callable[..., Any]:
        return getattr(module, self.entry)

    def make_args(self, T: int) -> tuple:
        inputs = _load_module(self.path / "inputs.py", f"autota_corpus_{self.name}_inputs")
        return tuple(inputs.make_args(T))


def _parse_expect(item: str) -> Expected:
    fixable = item.endswith("*")
    code, _, line = item.rstrip("*").partition(":")
    return Expected(code=code, line=int(line), fixable=fixable)


def load_case(path: Path) -> Case:
    """Read one case directory."""
    path = Path(path)
    with open(path / "case.toml", "rb") as fh:
        raw = tomllib.load(fh)
    return Case(
        name=path.name,
        path=path,
        summary=raw["summary"],
        entry=raw["entry"],
        expect=tuple(_parse_expect(item) for item in raw.get("expect", [])),
        sizes=tuple(raw.get("sizes", [0, 1, 5, 16])),
        bench_sizes=tuple(raw.get("bench_sizes", [64, 128, 256, 512])),
        grad_argnums=tuple(raw.get("grad_argnums", [])),
        static_argnums=tuple(raw.get("static_argnums", [])),
        transform=bool(raw.get("transform", False)),
        raw=raw,
    )


def discover(root: Path | str) -> list[Case]:
    """Every case below ``root`` (a case directory itself, or a folder of them), sorted by name."""
    root = Path(root)
    if (root / "case.toml").is_file():
        return [load_case(root)]
    return [load_case(p.parent) for p in sorted(root.glob("*/case.toml"))]


def default_root() -> Path:
    """The ``corpus/`` folder of a source checkout."""
    return Path(__file__).resolve().parent.parent / "corpus"


def _load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
