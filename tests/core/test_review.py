"""Marks and accuracy of a game review (exochess.review) on synthetic score sequences, worked out
by hand from the formulas of docs/analysis.md; and every game's fitted win-probability curve."""

from __future__ import annotations

import math

import pytest

from exochess.review import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    Score,
    WinCurve,
    mark_of,
    move_accuracy,
    review,
    win_curve,
)
from exochess.variants import all_variants

K = math.log(3) / 100
"""A curve on which +100 centipawns is a 75 % chance (3 to 1), easy to reckon with."""


def test_the_curve_is_symmetric_and_certain_at_the_end() -> None:
    curve = WinCurve(K)
    assert curve.percent(0) == 50.0
    assert curve.percent(100) == pytest.approx(75.0)
    assert curve.percent(-100) == pytest.approx(25.0)
    assert curve.percent(10**9) == pytest.approx(100.0) and curve.percent(-(10**9)) == pytest.approx(0.0)
    assert Score(mate=3).white_percent(curve) == 100.0 and Score(mate=-1).white_percent(curve) == 0.0
    assert Score(result="1-0").white_percent(curve) == 100.0
    assert Score(result="0-1").white_percent(curve) == 0.0


def test_marks_follow_the_thresholds() -> None:
    assert (INACCURACY, MISTAKE, BLUNDER) == (5.0, 10.0, 15.0)
    assert [mark_of(x) for x in (0, 4.99, 5, 9.9, 10, 14.9, 15, 100)] == [
        None,
        None,
        "?!",
        "?!",
        "?",
        "?",
        "??",
        "??",
    ]


def test_move_accuracy_is_lichess_formula() -> None:
    assert move_accuracy(50, 50) == 100.0 and move_accuracy(40, 60) == 100.0
    # 103.1668 * exp(-0.043544 * 25) - 3.1669 + 1 = 32.57
    assert move_accuracy(75, 50) == pytest.approx(32.57, abs=0.01)
    assert move_accuracy(100, 0) == 0.0


def pct(cp: float) -> float:
    """White's percentage on the test curve, by hand: 100 / (1 + 3^(-cp/100))."""
    return 100 / (1 + 3 ** (-cp / 100))


def test_a_synthetic_game_gets_its_marks_counts_and_accuracies() -> None:
    curve = WinCurve(K)
    # White's chance after each move: 50 (W quiet), 75 (B gives 25 away: ??), 69.5 (W loses
    # 5.5: ?!), 75 (B loses 5.5 more: ?!), 25 (W throws 50 away: ??)
    cps = [0, 0, 100, 75, 100, -100]
    judged = review([Score(cp=cp) for cp in cps], white_first=True, curve=curve)
    p = [pct(cp) for cp in cps]
    assert judged.white_percent == pytest.approx(p)
    assert [m.white for m in judged.moves] == [True, False, True, False, True]
    losses = [0.0, p[2] - p[1], p[2] - p[3], p[4] - p[3], p[4] - p[5]]
    assert [m.loss for m in judged.moves] == pytest.approx(losses)
    assert [m.mark for m in judged.moves] == [None, "??", "?!", "?!", "??"]
    white, black = judged.white, judged.black
    assert (white.inaccuracies, white.mistakes, white.blunders) == (1, 0, 1)
    assert (black.inaccuracies, black.mistakes, black.blunders) == (1, 0, 1)
    # five moves: windows of two positions, each weight the spread (population standard
    # deviation: half the gap) of the two positions around its move, within 0.5 to 12
    weights = [min(12.0, max(0.5, abs(p[i + 1] - p[i]) / 2)) for i in range(5)]
    a, b, c = 103.1668100711649, 0.04354415386753951, 3.166924740191411
    acc = [100.0] + [a * math.exp(-b * x) - c + 1 for x in losses[1:]]
    assert [m.accuracy for m in judged.moves] == pytest.approx(acc)

    def expected(moves: list[int]) -> float:
        weighted = sum(acc[i] * weights[i] for i in moves) / sum(weights[i] for i in moves)
        harmonic = len(moves) / sum(1 / max(1.0, acc[i]) for i in moves)
        return (weighted + harmonic) / 2

    assert white.accuracy == pytest.approx(expected([0, 2, 4]))
    assert black.accuracy == pytest.approx(expected([1, 3]))


def test_black_moving_first_and_a_decided_end() -> None:
    curve = WinCurve(K)
    scores = [Score(cp=0), Score(mate=2), Score(result="1-0")]
    judged = review(scores, white_first=False, curve=curve)
    # Black's first move hands White a forced win: the whole 50 points
    assert [m.white for m in judged.moves] == [False, True]
    assert judged.moves[0].mark == "??" and judged.moves[0].loss == pytest.approx(50.0)
    assert judged.moves[1].mark is None and judged.moves[1].accuracy == 100.0
    assert judged.white.blunders == 0 and judged.black.blunders == 1


@pytest.mark.parametrize("variant", [v.name for v in all_variants()])
def test_every_game_has_its_fitted_curve(variant: str) -> None:
    curve = win_curve(variant)
    # fitted from the engine's own games: a positive slope, of the order of chess's (0.0037)
    assert 0.0005 < curve.k < 0.05
    assert curve.k != pytest.approx(0.00368208)
