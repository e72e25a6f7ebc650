"""Exponents and classes from exact synthetic figures, and noise reported as uncertain."""

from __future__ import annotations

import math

import numpy as np
import pytest

from autota.proof.fit import fit

SIZES = (64, 128, 256, 512, 1024)


@pytest.mark.parametrize(
    "cost, cls, exponent",
    [
        (lambda t: 5.0, "O(1)", 0.0),
        (lambda t: 3.0 * t, "O(T)", 1.0),
        (lambda t: 3.0 * t * math.log(t), "O(T log T)", None),
        (lambda t: 0.5 * t * t, "O(T^2)", 2.0),
        (lambda t: 0.1 * t**3, "worse", 3.0),
    ],
)
def test_known_costs_get_their_class(cost, cls, exponent):
    f = fit(SIZES, [cost(t) for t in SIZES])
    assert f.cls == cls
    assert not f.uncertain, f.why
    if exponent is not None:
        assert f.exponent == pytest.approx(exponent, abs=1e-9)


def test_t_log_t_is_told_from_linear_and_quadratic_at_other_sizes():
    sizes = (1000, 4000, 16000, 64000)
    assert fit(sizes, [t * math.log(t) for t in sizes]).cls == "O(T log T)"
    assert fit(sizes, [t for t in sizes]).cls == "O(T)"


def test_noisy_values_are_uncertain_not_misclassified():
    """Figures scattered by ~60% around a line: nearly always flagged, almost never a confident
    wrong class (a 95% interval is wrong now and then, by construction)."""
    rng = np.random.default_rng(0)
    fits = [fit(SIZES, [t * n for t, n in zip(SIZES, np.exp(rng.normal(scale=0.6, size=5)))]) for _ in range(200)]
    confidently_wrong = sum(not f.uncertain and f.cls != "O(T)" for f in fits)
    assert confidently_wrong <= 4
    assert sum(f.uncertain for f in fits) >= 180


def test_spread_of_repeated_timings_makes_a_fit_uncertain():
    values = [1e-3 * t for t in SIZES]
    assert not fit(SIZES, values, spreads=[0.02] * 5).uncertain
    noisy = fit(SIZES, values, spreads=[0.02, 0.6, 0.02, 0.02, 0.02])
    assert noisy.uncertain and "vary" in noisy.why
    assert noisy.cls == "O(T)"


def test_points_off_a_power_law_are_uncertain():
    f = fit(SIZES, [1, 100, 1, 100, 1])
    assert f.uncertain and "power law" in f.why


def test_degenerate_inputs():
    assert fit((8, 16), [1, None]).exponent is None
    assert fit(SIZES, [0] * 5).cls == "O(1)"
    two = fit((8, 16), [8, 16])
    assert two.exponent == pytest.approx(1.0) and two.uncertain
    assert str(fit((8,), [1.0])) == "n/a"
    assert str(fit(SIZES, [t * t for t in SIZES])) == "T^2.00 O(T^2)"
