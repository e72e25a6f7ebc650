"""Proof that a rewrite is right and worth it: same results, lower complexity.

* :func:`verify`: do two functions compute the same outputs and gradients?
* :func:`measure`: how do run time, compile time, XLA memory and program size grow with T?
* :func:`compare`: the same for a function before and after a rewrite, measured side by side.
* :func:`residuals`: what ``grad`` saves, loop by loop, before and after ``autota.transform``
  (:func:`residual_growth`: how that grows with T).

Modules: :mod:`~autota.proof.equivalence` (verify), :mod:`~autota.proof.gradients` (the
gradient both use), :mod:`~autota.proof.timing` (running and timing one function),
:mod:`~autota.proof.measure`, :mod:`~autota.proof.comparison`, :mod:`~autota.proof.fit`
(exponents and classes), :mod:`~autota.proof.render` (tables), :mod:`~autota.proof.plot`
(charts), :mod:`~autota.proof.targets` (loading user code for the CLI).
"""

from autota.proof.comparison import Comparison, compare
from autota.proof.equivalence import LeafDiff, Report, verify
from autota.proof.errors import ProofInputError
from autota.proof.fit import Fit
from autota.proof.measure import Measurement, Point, measure
from autota.proof.residuals import ResidualGrowth, ResidualReport, residual_growth, residuals

__all__ = [
    "Comparison",
    "Fit",
    "LeafDiff",
    "Measurement",
    "Point",
    "ProofInputError",
    "Report",
    "ResidualGrowth",
    "ResidualReport",
    "compare",
    "measure",
    "residual_growth",
    "residuals",
    "verify",
]
