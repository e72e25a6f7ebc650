"""Load user code named on the command line: ``path/to/file.py::func`` and ``module:make_args``.

Everything that can go wrong (no such file, no such function, an import that raises) becomes
a :class:`ProofInputError` naming the path, so the CLI prints one line instead of a
traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from autota.proof.errors import ProofInputError, one_line


def is_function_target(spec: str) -> bool:
    return "::" in spec


def load_function(spec: str) -> tuple[Callable, str]:
    """``file.py::func`` (``func`` may be dotted: ``Model.step``) -> the callable and its name."""
    path, _, name = spec.partition("::")
    if not name:
        raise ProofInputError("expected path/to/file.py::function", spec)
    module = load_file(path)
    return _attribute(module, name, spec), name


def load_factory(spec: str) -> Callable[[int], Any]:
    """``module:make_args`` or ``path/to/inputs.py:make_args`` -> the factory."""
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name:
        raise ProofInputError("expected module:function or path/to/file.py:function", spec)
    if where.endswith(".py") or Path(where).is_file():
        module = load_file(where)
    else:
        if "" not in sys.path:  # the console script does not put the working directory there
            sys.path.insert(0, "")
        try:
            module = importlib.import_module(where)
        except Exception as err:
            raise ProofInputError(f"cannot import {where}: {one_line(err)}", spec) from err
    factory = _attribute(module, name, spec)
    if not callable(factory):
        raise ProofInputError(f"{name} is not callable", spec)
    return factory


def load_file(path: str | Path) -> ModuleType:
    """Execute a Python file as a module, with its folder importable (for its own imports)."""
    path = Path(path)
    if not path.is_file():
        raise ProofInputError("no such file", str(path))
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(f"autota_user_{path.stem}_{abs(hash(folder))}", path)
    if spec is None or spec.loader is None:
        raise ProofInputError("not a Python file", str(path))
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as err:
        raise ProofInputError(f"importing it raised {one_line(err)}", str(path)) from err
    return module


def _attribute(module: ModuleType, dotted: str, spec: str) -> Any:
    value: Any = module
    for part in dotted.split("."):
        if not hasattr(value, part):
            raise ProofInputError(f"no {dotted!r} in {getattr(module, '__file__', module.__name__)}", spec)
        value = getattr(value, part)
    return value
