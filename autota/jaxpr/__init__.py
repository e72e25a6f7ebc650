"""The jaxpr front end: ``jax.jit(autota.transform(fn))`` rewrites accumulation anti-patterns.

* :func:`transform` traces ``fn`` per input signature, rewrites the jaxpr and runs the result;
* :func:`analyze` lists what it changed and what it left alone, with catalogue codes;
* :func:`explain` renders the same as text.

Only :mod:`autota.jaxpr.jaxcompat` reads JAX internals.
"""

from autota.jaxpr.api import analyze, explain, transform
from autota.jaxpr.findings import LoopFinding, TransformError

__all__ = ["LoopFinding", "TransformError", "analyze", "explain", "transform"]
