"""autota: find and fix loop-accumulation anti-patterns in JAX code.

Two front ends share one catalogue (:mod:`autota.catalogue`):

* :mod:`autota.source`: a libcst codemod behind ``autota check`` / ``autota fix``.
* :mod:`autota.jaxpr`: ``jax.jit(autota.transform(fn))``, a jaxpr-level rewrite.

:mod:`autota.proof` checks rewrites (equivalence, fitted complexity) and :mod:`autota.cli`
renders findings. The JAX-facing names are imported lazily so that ``autota check`` never pays
for importing JAX.
"""

from __future__ import annotations

__version__ = "0.1.0"

_LAZY = {
    "transform": "autota.jaxpr",
    "analyze": "autota.jaxpr",
    "explain": "autota.jaxpr",
    "verify": "autota.proof",
    "measure": "autota.proof",
    "compare": "autota.proof",
    "residuals": "autota.proof",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'autota' has no attribute {name!r}")
