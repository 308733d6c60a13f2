"""Evaluation of Interweave.  The reasoning behind every number is in ``docs/engine.md``.

Letters: King K (two, losing one loses), Smasher R, Leaper N, Remover B, Pawn P.
Every piece stays on its square colour and captures only pieces standing on the
other colour, so what can attack what is decided by colour.
"""

from __future__ import annotations

from typing import ClassVar

from exochess.board import Board
from exochess.engine.evaluate.base import Evaluator
from exochess.variant import Variant


class InterweaveEvaluator(Evaluator):
    """Material, placement, king pairs and colour balance."""

    values: ClassVar[dict[str, int]] = {"K": 0, "R": 450, "N": 550, "B": 400, "P": 110}
    lazy_margin: ClassVar[int] = 200

    KING_ATTACKER: ClassVar[int] = 25
    """Per enemy piece on the other colour within two squares of a King."""
    COLOUR_IMBALANCE: ClassVar[int] = 20
    """Per 100 cp of difference between a side's attacking force on the two colours."""

    def __init__(self, variant: Variant) -> None:
        super().__init__(variant)
        self._squares = variant.geometry.squares
        self._king = variant.codes.get("K", 1)

    def placement(self, letter: str, sq: int, white: bool) -> int:
        rank = sq >> 4
        own_rank = rank if white else self.variant.height - 1 - rank
        if letter == "K":
            return (0, -5, -15, -25, -35, -40, -40, -40)[min(own_rank, 7)]
        if letter == "P":
            return (0, 0, 5, 12, 22, 36, 60, 0)[min(own_rank, 7)]
        return super().placement(letter, sq, white)

    def dynamic(self, board: Board) -> int:
        b = board.squares
        value_of = self.value_of
        king = self._king
        # force[side][colour]: material of the side's non-royal pieces on each square colour.
        force = {1: [0, 0], -1: [0, 0]}
        kings: list[int] = []
        pieces: list[int] = []
        for sq in self._squares:
            v = b[sq]
            if not v:
                continue
            colour = ((sq & 15) + (sq >> 4)) & 1
            if v == king or v == -king:
                kings.append(sq)
            else:
                force[1 if v > 0 else -1][colour] += value_of[v & 31]
                pieces.append(sq)
        score = 0
        # King pairs: a side loses when either King falls, so its weaker King counts.
        for side in (1, -1):
            worst = 0
            for k in kings:
                if b[k] * side <= 0:
                    continue
                kf, kr = k & 15, k >> 4
                kcol = (kf + kr) & 1
                danger = 0
                for p in pieces:
                    x = b[p]
                    if (
                        x * side < 0
                        and (((p & 15) + (p >> 4)) & 1) != kcol
                        and abs((p & 15) - kf) <= 2
                        and abs((p >> 4) - kr) <= 2
                    ):
                        danger += self.KING_ATTACKER
                worst = max(worst, danger)
            score -= side * worst
        # Colour balance: pieces on colour c attack only pieces on the other colour.
        for side in (1, -1):
            a, c = force[side]
            score -= side * (abs(a - c) * self.COLOUR_IMBALANCE // 100) // 2
        return score
