"""Evaluation of Fugue.  The reasoning behind every number is in ``docs/engine.md``.

Codes: King 1, Queen 2, Immobilizer 3, Pushme-Pullyu 4, Archer 5, Shield 6,
Long Leaper 7, Swapper 8, Cannon Pawn 9.
"""

from __future__ import annotations

from typing import ClassVar

from exochess.board import Board
from exochess.engine.evaluate.base import Evaluator
from exochess.variant import Variant

KING, QUEEN, IMMOBILIZER, PUSHME, ARCHER, SHIELD, LEAPER, SWAPPER, PAWN = range(1, 10)


class FugueEvaluator(Evaluator):
    """Material, placement, frozen pieces, shield cover and king exposure."""

    values: ClassVar[dict[str, int]] = {
        "K": 0, "Q": 850, "I": 700, "U": 500, "A": 600, "S": 400, "L": 600, "W": 450, "P": 120,
    }
    lazy_margin: ClassVar[int] = 300

    FROZEN_SHARE: ClassVar[int] = 3
    """A frozen piece loses 1/FROZEN_SHARE of its value (it may be freed later)."""
    FROZEN_KING: ClassVar[int] = 60
    COVER_KING: ClassVar[int] = 45
    """Own Shield next to the King: the King cannot be captured at all while it stays."""
    COVER_SHARE: ClassVar[int] = 16
    """Any other piece next to its Shield gains 1/COVER_SHARE of its value."""
    OPEN_RAY: ClassVar[int] = 6
    LINE_THREAT: ClassVar[int] = 35
    SWAPPER_NEXT_TO_KING: ClassVar[int] = 90

    def __init__(self, variant: Variant) -> None:
        super().__init__(variant)
        geo = variant.geometry
        self._neighbours = geo.neighbours
        self._rays = geo.rays
        self._occupied = geo.occupied

    def placement(self, letter: str, sq: int, white: bool) -> int:
        rank = sq >> 4
        own_rank = rank if white else 7 - rank
        if letter == "K":
            # The King is safest at home, behind its pieces, away from open lines.
            return (0, -10, -25, -40, -50, -50, -50, -50)[own_rank]
        if letter == "P":
            # Cannon Pawns promote (to a lost type) and leap further when advanced.
            return 4 * own_rank + super().placement(letter, sq, white) // 2
        if letter in "IQ":
            return super().placement(letter, sq, white) * 2
        return super().placement(letter, sq, white)

    def dynamic(self, board: Board) -> int:
        b = board.squares
        neighbours = self._neighbours
        value_of = self.value_of
        score = 0
        # One pass over the occupied squares.
        imms: list[int] = []
        shields: list[int] = []
        kings: list[int] = []
        for sq in self._occupied(b):
            x = b[sq]
            if x == IMMOBILIZER or x == -IMMOBILIZER:
                imms.append(sq)
            elif x == SHIELD or x == -SHIELD:
                shields.append(sq)
            elif x == KING or x == -KING:
                kings.append(sq)
        # Frozen pieces: a piece next to an enemy Immobilizer has no move at all.
        for sq in imms:
            me = b[sq]
            for n in neighbours[sq]:
                x = b[n]
                if x * me < 0 and x != -me:
                    loss = value_of[x & 31] // self.FROZEN_SHARE
                    if x == KING or x == -KING:
                        loss = self.FROZEN_KING
                    score += loss if x < 0 else -loss
        # Shield cover: protected pieces cannot be captured by any method.
        covered_kings = set()
        for sq in shields:
            me = b[sq]
            for n in neighbours[sq]:
                x = b[n]
                if x * me > 0:
                    if x == KING or x == -KING:
                        covered_kings.add(n)
                        gain = self.COVER_KING
                    else:
                        gain = value_of[x & 31] // self.COVER_SHARE
                    score += gain if me > 0 else -gain
        # King exposure: open lines and enemy pieces that could capture along them.
        for k in kings:
            me = 1 if b[k] > 0 else -1
            if k in covered_kings:
                continue
            danger = 0
            for d, ray in enumerate(self._rays[k]):
                dist = 0
                for t in ray:
                    dist += 1
                    x = b[t]
                    if not x:
                        continue
                    if x * me < 0:
                        kind = -x * me
                        if kind == QUEEN or (kind == ARCHER and dist <= 2):
                            danger += self.LINE_THREAT
                        elif kind == LEAPER and d < 8:
                            danger += self.LINE_THREAT // 2
                        elif kind == SWAPPER and dist == 1:
                            danger += self.SWAPPER_NEXT_TO_KING
                    break
                if dist >= 2:
                    danger += self.OPEN_RAY
            score -= danger * me
        return score
