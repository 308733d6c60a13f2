"""Sequential probability ratio test on game pairs (pentanomial statistics).

A match plays its games in pairs: one opening, each player White once.  The
two games of a pair are correlated (a lopsided opening favours the same colour
twice), so the sample is the *pair*, scored from player A's point of view as
0, 0.5, 1, 1.5 or 2 points: the pentanomial counts of fishtest and OpenBench.

The test is the generalised SPRT (GSPRT): each hypothesis fixes only the
expected score per game, ``s0`` for ``elo0`` and ``s1`` for ``elo1`` (logistic
Elo, ``s = 1 / (1 + 10^(-elo/400))``); the other four degrees of freedom of the
five-outcome distribution are nuisance parameters, set to their maximum-likelihood
values under each hypothesis.  The log-likelihood ratio of the two profiles is
compared with Wald's bounds ``log(beta / (1 - alpha))`` and
``log((1 - beta) / alpha)``.

The constrained maximum likelihood has a closed form up to one scalar: with
observed frequencies ``f_i`` of the per-game scores ``a_i`` (0, 1/4, 1/2, 3/4,
1), the distribution of largest likelihood whose mean is ``s`` is
``p_i = f_i / (1 + lam * (a_i - s))``, where ``lam`` is the root of
``sum f_i (a_i - s) / (1 + lam (a_i - s)) = 0`` (a Lagrange multiplier; the
function is decreasing in ``lam``, so bisection finds it).  The tests check
this against a direct numerical maximisation of the likelihood.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from exochess.errors import ExochessError

PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)
"""The points player A can make in a pair of games, the order of the pentanomial counts."""

PSEUDO_COUNT = 1e-3
"""Added to an empty pentanomial cell before the likelihood ratio is computed.

Without it the maximum likelihood under a hypothesis cannot exist when every
pair so far fell on one side of the hypothesis' expected score (10 pairs won
2-0 and nothing else: no distribution on {2} has mean 1.5).  The small weight
keeps the ratio finite and barely moves it once a few pairs are in.
"""


class SprtError(ExochessError):
    """Hypotheses or error rates that make no test."""


def expected_score(elo: float) -> float:
    """Expected score per game of a player ``elo`` logistic Elo stronger.

    >>> expected_score(0.0)
    0.5
    >>> round(expected_score(400.0), 6)
    0.909091
    """
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of_score(score: float) -> float:
    """The logistic Elo difference whose expected score per game is ``score`` (±inf at 0 and 1).

    >>> round(elo_of_score(10 / 11), 6)
    400.0
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def pair_score(a_first: float, a_second: float) -> float:
    """Player A's points in a pair from its two per-game scores (each 0, 0.5 or 1)."""
    return a_first + a_second


def pentanomial(pair_scores: Iterable[float]) -> tuple[int, int, int, int, int]:
    """Counts of pairs scoring 0, 0.5, 1, 1.5 and 2 points for player A.

    >>> pentanomial([2.0, 1.0, 1.0, 0.5])
    (0, 1, 2, 0, 1)
    """
    counts = [0] * 5
    for score in pair_scores:
        index = round(score * 2)
        if not 0 <= index <= 4 or abs(index - score * 2) > 1e-9:
            raise SprtError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, not {score!r}")
        counts[index] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def _per_game(counts: Sequence[float]) -> tuple[list[float], list[float], float]:
    """(per-game scores a_i, frequencies f_i, number of pairs) of pentanomial counts."""
    total = float(sum(counts))
    return [s / 2 for s in PAIR_SCORES], [c / total for c in counts], total


def constrained_mle(counts: Sequence[float], score: float) -> list[float]:
    """The distribution of largest likelihood for pentanomial ``counts`` with mean score ``score`` a game.

    ``score`` must lie strictly between the lowest and the highest per-game score
    observed (otherwise no distribution on the observed outcomes has that mean).
    """
    values, freqs, _ = _per_game(counts)
    seen = [a for a, f in zip(values, freqs, strict=True) if f > 0]
    if not min(seen) < score < max(seen):
        raise SprtError(f"no distribution on the observed outcomes has mean score {score}")
    # 1 + lam (a_i - s) must stay positive on every observed outcome: lam lies in (lo, hi).
    lo = -1.0 / (max(seen) - score)
    hi = 1.0 / (score - min(seen))

    def slope(lam: float) -> float:
        return sum(
            f * (a - score) / (1.0 + lam * (a - score)) for a, f in zip(values, freqs, strict=True) if f > 0
        )

    # slope() decreases from +inf at lo to -inf at hi: bisect on the open interval.
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if slope(mid) > 0:
            lo = mid
        else:
            hi = mid
    lam = (lo + hi) / 2
    return [f / (1.0 + lam * (a - score)) if f > 0 else 0.0 for a, f in zip(values, freqs, strict=True)]


def llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for pentanomial counts.

    Empty cells get :data:`PSEUDO_COUNT`; no pairs give 0.

    >>> llr((0, 0, 0, 0, 0), 0, 100)
    0.0
    >>> round(llr((1, 2, 3, 2, 1), -50, 50), 9)  # a symmetric record favours neither side
    0.0
    >>> llr((0, 1, 5, 1, 0), 0, 50) < 0 < llr((0, 1, 4, 3, 1), 0, 50)
    True
    """
    if sum(counts) == 0:
        return 0.0
    padded = [c if c > 0 else PSEUDO_COUNT for c in counts]
    _, freqs, total = _per_game(padded)
    p0 = constrained_mle(padded, expected_score(elo0))
    p1 = constrained_mle(padded, expected_score(elo1))
    return total * sum(f * math.log(q1 / q0) for f, q0, q1 in zip(freqs, p0, p1, strict=True))


def llr_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) bounds: below the lower H0 is accepted, above the upper H1.

    >>> [round(x, 4) for x in llr_bounds(0.05, 0.05)]
    [-2.9444, 2.9444]
    """
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def elo_estimate(counts: Sequence[int]) -> tuple[float, float, float]:
    """(Elo, low, high): the estimate and its 95% interval from the pairs' mean and spread.

    The variance is the pairs' own (pentanomial), which is smaller than the
    per-game variance when the openings are lopsided, and honest when they are.
    """
    n = sum(counts)
    if n == 0:
        return 0.0, -math.inf, math.inf
    values, freqs, _ = _per_game(counts)
    mean = sum(a * f for a, f in zip(values, freqs, strict=True))
    var = sum(f * (a - mean) ** 2 for a, f in zip(values, freqs, strict=True))
    margin = 1.96 * math.sqrt(var / n)
    return elo_of_score(mean), elo_of_score(mean - margin), elo_of_score(mean + margin)


@dataclass(frozen=True)
class Sprt:
    """The test: hypotheses in logistic Elo and error rates."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1)):
            raise SprtError("elo0 and elo1 must be finite numbers")
        if self.elo0 >= self.elo1:
            raise SprtError(f"elo0 must be below elo1 (got {self.elo0:g} and {self.elo1:g})")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < rate < 0.5:
                raise SprtError(f"{name} must lie strictly between 0 and 0.5, not {rate:g}")

    @classmethod
    def parse(cls, text: str, alpha: float = 0.05, beta: float = 0.05) -> Sprt:
        """A test from ``"elo0,elo1"`` (raises :class:`SprtError` with the reason)."""
        parts = text.split(",")
        if len(parts) != 2:
            raise SprtError(f"--sprt takes two Elo values, elo0,elo1 (like 0,150), not {text!r}")
        try:
            elo0, elo1 = (float(p) for p in parts)
        except ValueError:
            raise SprtError(f"--sprt takes two numbers, elo0,elo1 (like 0,150), not {text!r}") from None
        return cls(elo0, elo1, alpha, beta)

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) LLR bounds."""
        return llr_bounds(self.alpha, self.beta)

    def llr(self, counts: Sequence[int]) -> float:
        """The log-likelihood ratio of the pentanomial ``counts``."""
        return llr(counts, self.elo0, self.elo1)

    def verdict(self, counts: Sequence[int]) -> str | None:
        """``"H1"`` (elo1 accepted), ``"H0"`` (elo0 accepted) or None (go on)."""
        value = self.llr(counts)
        lower, upper = self.bounds
        if value >= upper:
            return "H1"
        if value <= lower:
            return "H0"
        return None
