"""``autota check`` over the source tree of real JAX packages: no crash, no error exit.

JAX itself is always installed; flax, optax, equinox and diffrax are checked where installed.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from autota.cli.main import main
from autota.source.rules import IMPLEMENTED_CODES

PACKAGES = ["jax", "flax", "optax", "equinox", "diffrax"]


@pytest.mark.slow
@pytest.mark.parametrize("package", PACKAGES)
def test_check_a_real_package_tree(package, capsys):
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"{package} is not installed")
    root = Path(next(iter(spec.submodule_search_locations)))
    code = main(["check", "--no-progress", "--output-format", "json", str(root)])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    assert err == ""
    findings = json.loads(out)
    assert all(f["code"] in IMPLEMENTED_CODES and f["line"] >= 1 for f in findings)
