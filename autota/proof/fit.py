"""Fit ``value ~ c * T**p`` to measurements and name the complexity class.

The exponent is the least-squares slope on log-log axes. The class is the candidate
(``O(1)``, ``O(T)``, ``O(T log T)``, ``O(T^2)``, ``worse``) whose own log-log slope over the
same sizes is nearest that exponent: ``T log T`` has slope ``1 + 1/ln T``, so the boundary
between it and ``O(T)`` moves with the sizes measured, as it should.

A fit is marked *uncertain* rather than given a confident wrong class when the data cannot
carry the claim: too few sizes, timings that vary a lot between runs, points that do not lie
on a power law, or a confidence interval on the exponent that straddles a class boundary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

NOISY_SPREAD = 0.25
"""Relative spread (IQR / median) of repeated timings above which a point is too noisy."""

POOR_FIT_RMS = 0.15
"""RMS log-residual (about 15% per point) above which the points do not follow a power law."""

_T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57}
"""Two-sided 95% Student-t quantiles by degrees of freedom (2.0 beyond: close enough)."""


def _candidates(log_t: np.ndarray) -> list[tuple[str, float]]:
    """Each class with its log-log slope over these sizes."""

    def slope(log_g: np.ndarray) -> float:
        x = log_t - log_t.mean()
        return float(np.dot(x, log_g - log_g.mean()) / np.dot(x, x))

    return [
        ("O(1)", 0.0),
        ("O(T)", 1.0),
        ("O(T log T)", 1.0 + slope(np.log(log_t))),
        ("O(T^2)", 2.0),
        ("worse", 3.0),
    ]


@dataclass(frozen=True)
class Fit:
    """A fitted exponent and class, with what makes it trustworthy or not.

    ``exponent`` is ``None`` when nothing could be fitted (``cls`` is then ``"n/a"``).
    ``rms`` is the root-mean-square residual of the fit in natural-log units; ``stderr`` the
    standard error of the exponent; ``why`` says why the fit is uncertain.
    """

    exponent: float | None
    cls: str
    uncertain: bool
    rms: float = 0.0
    stderr: float = 0.0
    why: str = ""

    def __str__(self) -> str:
        if self.exponent is None:
            return "n/a"
        return f"T^{self.exponent:.2f} {self.cls}{'?' if self.uncertain else ''}"


def fit(sizes: Sequence[int], values: Sequence[float | None], spreads: Sequence[float] | None = None) -> Fit:
    """Fit the exponent of ``values`` in ``sizes``; ``spreads`` are the relative spreads of
    repeated timings at each size (``None`` for deterministic figures such as bytes)."""
    points = [(t, v) for t, v in zip(sizes, values) if v is not None and t > 0]
    if len(points) < 2:
        return Fit(None, "n/a", True, why="fewer than 2 sizes with a value")
    if all(v == 0 for _, v in points):
        return Fit(0.0, "O(1)", False)
    positive = [(t, v) for t, v in points if v > 0]
    if len(positive) < 2:
        return Fit(None, "n/a", True, why="fewer than 2 positive values")

    x = np.log([t for t, _ in positive])
    y = np.log([v for _, v in positive])
    xc = x - x.mean()
    sxx = float(np.dot(xc, xc))
    if sxx == 0:
        return Fit(None, "n/a", True, why="all sizes equal")
    exponent = float(np.dot(xc, y - y.mean()) / sxx)
    residuals = y - y.mean() - exponent * xc
    n = len(positive)
    rms = float(np.sqrt(np.mean(residuals**2)))
    stderr = float(np.sqrt(np.dot(residuals, residuals) / (n - 2) / sxx)) if n > 2 else 0.0

    classes = _candidates(x)
    cls_name, _ = min(classes, key=lambda c: abs(c[1] - exponent))
    boundaries = [(a[1] + b[1]) / 2 for a, b in zip(classes, classes[1:])]
    band = _T95.get(n - 2, 2.0) * stderr

    reasons = []
    if len(positive) < len(points):
        reasons.append("zero values left out")
    if n < 3:
        reasons.append(f"only {n} sizes")
    if spreads is not None:
        noisy = max((s for s in spreads if s is not None), default=0.0)
        if noisy > NOISY_SPREAD:
            reasons.append(f"timings vary by {noisy:.0%} between runs")
    if rms > POOR_FIT_RMS:
        reasons.append(f"not a power law (log residual {rms:.2f})")
    elif any(exponent - band < b < exponent + band for b in boundaries):
        reasons.append(f"exponent {exponent:.2f} +/- {band:.2f} straddles a class boundary")
    return Fit(exponent, cls_name, bool(reasons), rms, stderr, "; ".join(reasons))


def spread(samples: Sequence[float]) -> float:
    """Interquartile range over median: how much repeated timings disagree."""
    q25, q50, q75 = np.percentile(samples, [25, 50, 75])
    return float((q75 - q25) / q50) if q50 > 0 else math.inf
