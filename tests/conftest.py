"""Shared test setup: JAX on the CPU, quietly, and the paths tests read from."""

import os
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# An equation autota.transform cannot read (a JAX release that moved its parameters) fails the
# suite instead of passing through silently: see autota/catalogue/docs/AT001.md.
os.environ.setdefault("AUTOTA_STRICT", "1")

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
SHARED = ROOT.parent / "shared"
