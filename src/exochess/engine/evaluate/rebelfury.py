"""Evaluation of Rebel Fury.  The reasoning behind every number is in ``docs/engine.md``.

Letters: Advancer A, Capricorn C, Dragon D, Fury F (two, royal: losing both
loses), Gorgon G, Harpy H, Jumper J, Mimotaur M, Ximaera X.
"""

from __future__ import annotations

from typing import ClassVar

from exochess.board import Board
from exochess.engine.evaluate.base import Evaluator
from exochess.variant import Variant


class RebelFuryEvaluator(Evaluator):
    """Material, placement, Fury safety and gaze control."""

    values: ClassVar[dict[str, int]] = {
        "A": 100, "C": 450, "D": 500, "F": 1400, "G": 550, "H": 400, "J": 350, "M": 400, "X": 300,
    }
    lazy_margin: ClassVar[int] = 300

    LAST_FURY: ClassVar[int] = 400
    """Extra worth of a side's only remaining Fury (its loss ends the game)."""
    GAZE_CELL: ClassVar[int] = 2
    """Per square in the gaze of a side's Gorgons and Furies."""
    PETRIFIED_SHARE: ClassVar[int] = 3
    """A petrified piece loses 1/PETRIFIED_SHARE of its value."""

    def __init__(self, variant: Variant) -> None:
        super().__init__(variant)
        geo = variant.geometry
        self._occupied = geo.occupied
        self._rays = geo.rays
        c = variant.codes
        self._fury = c.get("F", 0)
        self._gorgon = c.get("G", 0)
        self._mimotaur = c.get("M", 0)

    def placement(self, letter: str, sq: int, white: bool) -> int:
        rank = sq >> 4
        h = self.variant.height
        own_rank = rank if white else h - 1 - rank
        if letter == "A":
            return 3 * own_rank + super().placement(letter, sq, white) // 3
        if letter == "F":
            return -2 * own_rank
        return super().placement(letter, sq, white)

    def dynamic(self, board: Board) -> int:
        b = board.squares
        rays = self._rays
        fury, gorgon, mim = self._fury, self._gorgon, self._mimotaur
        value_of = self.value_of
        score = 0
        furies = {1: 0, -1: 0}
        gazers: list[int] = []
        for sq in self._occupied(b):
            v = b[sq]
            t = v if v > 0 else -v
            if t == fury:
                furies[1 if v > 0 else -1] += 1
                gazers.append(sq)
            elif t in (gorgon, mim):
                gazers.append(sq)
        for side in (1, -1):
            if furies[side] == 1:
                score -= side * self.LAST_FURY
        petrified: set[int] = set()
        for g in gazers:
            v = b[g]
            me = 1 if v > 0 else -1
            only_royals = (v if v > 0 else -v) == mim
            cells = 0
            for ray in rays[g]:
                for t in ray:
                    x = b[t]
                    if not x:
                        cells += 1
                        continue
                    if x * me < 0 and t not in petrified:
                        xt = x if x > 0 else -x
                        if not only_royals or xt in (fury, gorgon):
                            petrified.add(t)
                            score += me * value_of[x & 31] // self.PETRIFIED_SHARE
                    break
            if not only_royals:
                score += me * cells * self.GAZE_CELL
        return score
