"""Game reviews: each move's mark and each player's accuracy, from engine scores.

A finished game's report (docs/analysis.md) gives every position of the game an engine score.
This module turns those scores into what a player reads, on a *win-probability* scale rather
than in centipawns: a centipawn lost in a balanced position matters, the same centipawn in a
won one does not.

- :class:`WinCurve`: the chance that the side to move wins, ``1 / (1 + exp(-k * score))``, with
  ``k`` fitted per game from the engine's own games (``variants/<game>/winprob.json``, written
  by ``bench/fit_winprob.py``); a forced mate, or a game already decided, is certain.
- A move's *loss* is how many points of win percentage (0-100) its player's chance dropped
  from the position before the move (the engine's best play) to the position after it.
  Marks: :data:`INACCURACY` points or more is ``?!``, :data:`MISTAKE` ``?``, :data:`BLUNDER` ``??``.
- A move's *accuracy* falls exponentially with its loss, 100 for a move that loses nothing; a
  player's accuracy averages their moves' two ways (weighted by how much the game was swinging
  around each move, and harmonically so that one collapse counts) and takes the middle.  The
  formulas are lichess's, restated in docs/analysis.md.

Plain functions over plain data: the web site stores the scores, this module is pure.
"""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from exochess.errors import ExochessError
from exochess.variant import Variant, resolve_variant

WINPROB_FILE = "winprob.json"
"""The fitted curve's file, in the game's own folder (beside ``rules.py``)."""
FORMAT = 1
"""The ``format`` of that file this module reads."""
INACCURACY, MISTAKE, BLUNDER = 5.0, 10.0, 15.0
"""Win-percentage points a move must lose to be marked ``?!``, ``?`` and ``??``."""
MARKS = ((BLUNDER, "??"), (MISTAKE, "?"), (INACCURACY, "?!"))
DEFAULT_K = 0.00368208
"""Chess's slope (lichess's, per centipawn): the curve of a game that has no fitted one."""
# lichess's fit of move accuracy against win-percentage loss (see docs/analysis.md)
_ACCURACY_A, _ACCURACY_B, _ACCURACY_C = 103.1668100711649, 0.04354415386753951, 3.166924740191411
_BONUS = 1.0
"""Points added to every imperfect move's accuracy, for the engine's own uncertainty."""


class ReviewError(ExochessError):
    """A game's ``winprob.json`` is missing a field or unreadable."""


@dataclass(frozen=True)
class WinCurve:
    """The chance the side to move wins, as a function of the engine's score."""

    k: float
    """Slope per centipawn."""

    def percent(self, score_cp: float) -> float:
        """Win percentage (0-100) of the side whose score is ``score_cp``."""
        x = max(-60.0, min(60.0, self.k * score_cp))  # exp() overflow beyond; the curve is flat there
        return 100.0 / (1.0 + math.exp(-x))


def win_curve(variant: Variant | str) -> WinCurve:
    """The game's fitted curve (``variants/<game>/winprob.json``), or chess's without one."""
    v = resolve_variant(variant) if isinstance(variant, str) else variant
    path = Path(inspect.getfile(type(v))).parent / WINPROB_FILE
    if not path.exists():
        return WinCurve(DEFAULT_K)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise ReviewError(f"{path}: format {data.get('format')!r}, this version reads {FORMAT}")
        k = float(data["k"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ReviewError(f"{path}: {exc}") from exc
    if not k > 0:
        raise ReviewError(f"{path}: k must be positive, not {k}")
    return WinCurve(k)


@dataclass(frozen=True)
class Score:
    """An engine's verdict on a position, from White's point of view."""

    cp: int | None = None
    """Centipawns (positive: White is better); None with ``mate`` or ``result``."""
    mate: int | None = None
    """Moves to a forced royal capture: positive White mates, negative Black does."""
    result: str | None = None
    """``"1-0"`` or ``"0-1"`` when the game is over in this position."""

    def white_percent(self, curve: WinCurve) -> float:
        """White's win percentage (0-100)."""
        if self.result is not None:
            return 100.0 if self.result == "1-0" else 0.0 if self.result == "0-1" else 50.0
        if self.mate is not None:
            return 100.0 if self.mate > 0 else 0.0
        return curve.percent(self.cp or 0)


def mark_of(loss: float) -> str | None:
    """``??``, ``?`` or ``?!`` for a move that lost ``loss`` win-percentage points, else None."""
    for threshold, mark in MARKS:
        if loss >= threshold:
            return mark
    return None


def move_accuracy(before: float, after: float) -> float:
    """Accuracy (0-100) of a move that took its player's win percentage from ``before`` to ``after``."""
    if after >= before:
        return 100.0
    raw = _ACCURACY_A * math.exp(-_ACCURACY_B * (before - after)) - _ACCURACY_C
    return max(0.0, min(100.0, raw + _BONUS))


@dataclass(frozen=True)
class MoveReview:
    """One move of the game, judged."""

    ply: int
    """0 for the game's first move."""
    white: bool
    """Whether White played it."""
    loss: float
    """Win-percentage points its player lost with it (0 when it gained)."""
    accuracy: float
    mark: str | None


@dataclass(frozen=True)
class PlayerReview:
    """One side's figures."""

    accuracy: float | None
    """None for a side that made no move."""
    inaccuracies: int
    mistakes: int
    blunders: int


@dataclass(frozen=True)
class Review:
    """A game judged: White's win percentage at every position, and each move."""

    white_percent: list[float]
    """At each position, the start first and the final position last (one more than moves)."""
    moves: list[MoveReview]
    white: PlayerReview
    black: PlayerReview


def _stdev(xs: Sequence[float]) -> float:
    mean = sum(xs) / len(xs)
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))


def _volatility_weights(percents: Sequence[float]) -> list[float]:
    """One weight per move: how much White's chance moved around it (the spread over a window
    of positions, a tenth of the game long, 2 to 8 positions), within 0.5 to 12."""
    moves = len(percents) - 1
    size = max(2, min(8, moves // 10))
    sliding = [list(percents[i : i + size]) for i in range(max(1, len(percents) - size + 1))]
    windows = [list(percents[:size])] * max(0, min(size, len(percents)) - 2) + sliding
    return [max(0.5, min(12.0, _stdev(w))) for w in windows[:moves]]


def _player(moves: list[MoveReview], weights: list[float], white: bool) -> PlayerReview:
    mine = [(m, w) for m, w in zip(moves, weights, strict=True) if m.white == white]
    marks = [m.mark for m, _w in mine]
    if not mine:
        return PlayerReview(None, 0, 0, 0)
    weighted = sum(m.accuracy * w for m, w in mine) / sum(w for _m, w in mine)
    harmonic = len(mine) / sum(1.0 / max(1.0, m.accuracy) for m, _w in mine)
    return PlayerReview((weighted + harmonic) / 2, marks.count("?!"), marks.count("?"), marks.count("??"))


def review(scores: Sequence[Score], white_first: bool, curve: WinCurve) -> Review:
    """Judge a game from the scores of its positions (the start first, then the position after
    each move); ``white_first``: White made the first move."""
    if not scores:
        raise ReviewError("a review needs the score of the starting position at least")
    percents = [s.white_percent(curve) for s in scores]
    moves: list[MoveReview] = []
    for ply in range(len(percents) - 1):
        white = (ply % 2 == 0) == white_first
        before, after = percents[ply], percents[ply + 1]
        if not white:
            before, after = 100.0 - before, 100.0 - after
        loss = max(0.0, before - after)
        moves.append(MoveReview(ply, white, loss, move_accuracy(before, after), mark_of(loss)))
    weights = _volatility_weights(percents)
    return Review(percents, moves, _player(moves, weights, True), _player(moves, weights, False))
