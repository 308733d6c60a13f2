"""The SPRT statistics, checked against an independent maximisation of the likelihood."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from exochess_lab.sprt import (
    Sprt,
    SprtError,
    constrained_mle,
    elo_estimate,
    expected_score,
    llr,
    llr_bounds,
    pentanomial,
)

GOLDEN = (math.sqrt(5) - 1) / 2


def golden_max(f: Callable[[float], float], lo: float, hi: float, steps: int = 45) -> float:
    """The maximum of a concave function on [lo, hi] by golden-section search."""
    x1, x2 = hi - GOLDEN * (hi - lo), lo + GOLDEN * (hi - lo)
    f1, f2 = f(x1), f(x2)
    for _ in range(steps):
        if f1 < f2:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + GOLDEN * (hi - lo)
            f2 = f(x2)
        else:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - GOLDEN * (hi - lo)
            f1 = f(x1)
    return max(f1, f2)


def brute_force_loglik(counts: tuple[float, ...], s: float) -> float:
    """max sum n_i log p_i over distributions on (0, 1/4, 1/2, 3/4, 1) with mean s.

    A different method from the module's (which solves for a Lagrange multiplier): the
    three middle probabilities are free, the two ends follow from the two constraints,
    and nested golden-section searches maximise the (concave) log-likelihood directly.
    """

    def loglik(p1: float, p2: float, p3: float) -> float:
        p4 = s - 0.25 * p1 - 0.5 * p2 - 0.75 * p3
        p0 = 1.0 - p1 - p2 - p3 - p4
        ps = (p0, p1, p2, p3, p4)
        if min(ps) <= 0.0:
            return -1e300
        return sum(n * math.log(p) for n, p in zip(counts, ps, strict=True))

    return golden_max(
        lambda p1: golden_max(lambda p2: golden_max(lambda p3: loglik(p1, p2, p3), 0.0, 1.0), 0.0, 1.0),
        0.0,
        1.0,
    )


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"),
    [
        ((3, 10, 25, 14, 6), 0.0, 50.0),
        ((1, 4, 9, 13, 20), 0.0, 150.0),
        ((7, 2, 1, 2, 3), -20.0, 80.0),
    ],
)
def test_llr_matches_a_brute_force_maximum_likelihood(
    counts: tuple[int, ...], elo0: float, elo1: float
) -> None:
    s0, s1 = expected_score(elo0), expected_score(elo1)
    expected = brute_force_loglik(counts, s1) - brute_force_loglik(counts, s0)
    assert llr(counts, elo0, elo1) == pytest.approx(expected, abs=1e-5)


def test_constrained_mle_has_the_asked_mean_and_is_a_distribution() -> None:
    p = constrained_mle((3, 10, 25, 14, 6), 0.6)
    assert sum(p) == pytest.approx(1.0)
    assert sum(a * q for a, q in zip((0, 0.25, 0.5, 0.75, 1), p, strict=True)) == pytest.approx(0.6)
    with pytest.raises(SprtError):
        constrained_mle((0, 0, 0, 0, 5), 0.6)  # every pair 2-0: no distribution has mean 0.6


def test_llr_agrees_with_the_normal_approximation_for_close_hypotheses() -> None:
    # For nearby hypotheses the GSPRT tends to N (s1 - s0) (2 m - s0 - s1) / (2 var).
    counts = (30, 120, 250, 140, 60)
    n = sum(counts)
    values = (0, 0.25, 0.5, 0.75, 1)
    mean = sum(a * c for a, c in zip(values, counts, strict=True)) / n
    var = sum(c * (a - mean) ** 2 for a, c in zip(values, counts, strict=True)) / n
    s0, s1 = expected_score(0), expected_score(5)
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert llr(counts, 0, 5) == pytest.approx(approx, rel=0.02)


def test_empty_cells_keep_the_ratio_finite_and_lopsided_records_accept_h1() -> None:
    test = Sprt(0, 150)
    assert test.verdict((0, 0, 0, 0, 2)) is None
    assert test.verdict((0, 0, 0, 0, 9)) == "H1"  # nine pairs won 2-0
    assert test.verdict((0, 0, 1, 0, 1)) is None
    assert test.verdict((2, 10, 30, 10, 2)) == "H0"  # an even record refutes +150
    assert math.isfinite(test.llr((0, 0, 0, 0, 50)))


def test_bounds_and_parsing() -> None:
    lower, upper = llr_bounds(0.05, 0.1)
    assert lower == pytest.approx(math.log(0.1 / 0.95)) and upper == pytest.approx(math.log(0.9 / 0.05))
    assert Sprt.parse("0,150") == Sprt(0.0, 150.0)
    assert Sprt.parse("-5, 5", alpha=0.1).alpha == 0.1
    for text, alpha in (
        ("150,0", 0.05),
        ("5,5", 0.05),
        ("0", 0.05),
        ("a,b", 0.05),
        ("0,5", 0.0),
        ("0,5", 0.7),
        ("0,inf", 0.05),
    ):
        with pytest.raises(SprtError):
            Sprt.parse(text, alpha=alpha)


def test_pentanomial_and_elo_estimate() -> None:
    assert pentanomial([0, 0.5, 1, 1.5, 2, 2]) == (1, 1, 1, 1, 2)
    with pytest.raises(SprtError):
        pentanomial([3])
    elo, lo, hi = elo_estimate((0, 0, 10, 0, 0))
    assert elo == lo == hi == 0.0
    elo, lo, hi = elo_estimate((2, 4, 10, 12, 8))
    mean = (0.25 * 4 + 0.5 * 10 + 0.75 * 12 + 8) / 36
    assert lo < elo < hi and elo == pytest.approx(400 * math.log10(mean / (1 - mean)))
