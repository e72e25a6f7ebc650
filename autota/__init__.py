"""autota: find and fix loop-accumulation anti-patterns in JAX code.

Two front ends share one catalogue (:mod:`autota.catalogue`):

* :mod:`autota.source`: a libcst codemod behind ``autota check`` / ``autota fix``.
* :mod:`autota.jaxpr`: ``jax.jit(autota.transform(fn))``, a jaxpr-level rewrite.

:mod:`autota.proof` checks rewrites (equivalence, fitted complexity) and :mod:`autota.cli`
renders findings. The JAX-facing names are imported lazily so that ``autota check`` never pays
for importing JAX, and so that the linter works where JAX is not installed (``pip install
jax-autota``; the rest comes with ``pip install 'jax-autota[jax]'``).
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

JAX_MODULES = frozenset({"jax", "jaxlib", "numpy"})
"""What the ``jax`` extra installs: a missing one means the extra is missing."""

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        try:
            module = importlib.import_module(_LAZY[name])
        except ModuleNotFoundError as exc:
            if exc.name not in JAX_MODULES:
                raise
            raise ModuleNotFoundError(
                f"autota.{name} needs JAX, which is not installed here ({exc.name} is missing): "
                "pip install 'jax-autota[jax]'", name=exc.name) from None
        return getattr(module, name)
    raise AttributeError(f"module 'autota' has no attribute {name!r}")
