"""Evaluation of Interweave.  The reasoning behind every number is in ``docs/engine.md``.

Letters: King K (two, losing one loses), Smasher R, Leaper N, Remover B, Pawn P.
Every piece stays on its square colour and captures only pieces standing on the
other colour, so what can attack what is decided by colour.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import ClassVar

from mypy_extensions import mypyc_attr

from exochess.board import Board
from exochess.compiled import COMPILED
from exochess.engine.evaluate.base import Evaluator, slide_mobility, slide_tables
from exochess.engine.levels import LEVELS, Level
from exochess.variant import Variant
from exochess.variants.interweave.rules import LEAPER, REMOVER, SMASHER


# Match players with changed weights subclass it at run time (exochess_lab.match).
@mypyc_attr(allow_interpreted_subclasses=True)
class InterweaveEvaluator(Evaluator):
    """Material, placement, king pairs and colour balance."""

    levels: ClassVar[Mapping[int, Level]] = {
        1: Level(1, 1, 150, True, False, 0.125, lapses=0.4),
        2: Level(2, 1, 150, True, False, 0.125, lapses=0.07),
        3: Level(3, 2, 40, True, False, 0.125, lapses=0.2),
        4: Level(4, 3, 0, True, False, 0.125, lapses=0.1),
        5: Level(5, 4, 0, True, True, 0.25),
        6: Level(6, 5, 0, True, True, 0.5, lapses=0.04),
        7: Level(7, 6, 0, True, True, 0.75),
        8: LEVELS[8],
    }
    """Noise hardly weakens an Interweave player, so the levels differ by depth (1, 1, 2, 3, 4, 5,
    6 for levels 1-7; level 7 with 3/4 of the time) and by lapses (moves at depth 1 without
    quiescence: 40%, 7%, 20% and 10% at levels 1-4, 4% at level 6), which split the large steps
    between depths.  A lapse costs much here (it may leave a King to be taken): 4% of them take
    a depth-5 player a quarter of the way down to depth 4, 12% below it.  Chosen for even steps
    (issue 48: ``bench/level_scale.py``); depth 3 and depth 5 without lapses, levels 4 and 6
    before, are steps of the chain between the levels."""

    # --- tables (bench/tune.py writes this block) ---
    # Hand-set values and placement (the tuned ones lost or were not measured: docs/engine.md).
    # Placement rows: the owner's first rank first, files from the edge to the centre
    # (mirrored for the other half of the board: base.placement_index).
    values: ClassVar[dict[str, int]] = {
        "K": 0,
        "R": 450,
        "N": 550,
        "B": 400,
        "P": 110,
    }
    PLACEMENT: ClassVar[dict[str, tuple[int, ...]]] = {
        "K": (
            0,
            0,
            0,
            0,
            -5,
            -5,
            -5,
            -5,
            -15,
            -15,
            -15,
            -15,
            -25,
            -25,
            -25,
            -25,
            -35,
            -35,
            -35,
            -35,
            -40,
            -40,
            -40,
            -40,
            -40,
            -40,
            -40,
            -40,
            -40,
            -40,
            -40,
            -40,
        ),
        "R": (
            0,
            2,
            4,
            6,
            2,
            4,
            6,
            7,
            4,
            6,
            7,
            9,
            6,
            7,
            9,
            11,
            6,
            7,
            9,
            11,
            4,
            6,
            7,
            9,
            2,
            4,
            6,
            7,
            0,
            2,
            4,
            6,
        ),
        "N": (
            0,
            2,
            4,
            6,
            2,
            4,
            6,
            7,
            4,
            6,
            7,
            9,
            6,
            7,
            9,
            11,
            6,
            7,
            9,
            11,
            4,
            6,
            7,
            9,
            2,
            4,
            6,
            7,
            0,
            2,
            4,
            6,
        ),
        "B": (
            0,
            2,
            4,
            6,
            2,
            4,
            6,
            7,
            4,
            6,
            7,
            9,
            6,
            7,
            9,
            11,
            6,
            7,
            9,
            11,
            4,
            6,
            7,
            9,
            2,
            4,
            6,
            7,
            0,
            2,
            4,
            6,
        ),
        "P": (
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            5,
            5,
            5,
            5,
            12,
            12,
            12,
            12,
            22,
            22,
            22,
            22,
            36,
            36,
            36,
            36,
            60,
            60,
            60,
            60,
            0,
            0,
            0,
            0,
        ),
    }
    # --- end of tables ---
    TUNABLE: ClassVar[tuple[str, ...]] = ("KING_ATTACKER", "COLOUR_IMBALANCE", "MOBILITY")
    lazy_margin: ClassVar[int] = 200
    # Measured: |dynamic| over 400 random positions has median 34, 99th percentile 138, maximum
    # 176.  A margin of 150 cost 9% fewer instructions per node but a larger tree to the same
    # depth (middle game 1 of bench/engine.py: 33,522 nodes to depth 5 instead of 15,766).

    KING_ATTACKER: ClassVar[int] = 25
    """Per enemy piece on the other colour within two squares of a King."""
    COLOUR_IMBALANCE: ClassVar[int] = 20
    """Per 100 cp of difference between a side's attacking force on the two colours."""
    MOBILITY: ClassVar[int] = 4
    """Per empty square a Smasher, Leaper or Remover could slide to diagonally."""

    def __init__(self, variant: Variant) -> None:
        super().__init__(variant)
        geo = variant.geometry
        self._king = variant.codes.get("K", 1)
        self._pieces = tuple(code for code in variant.letters if code > 0 and code != self._king)
        """The White codes of the non-royal pieces (their Black codes are the negatives)."""
        self._colour = [((sq & 15) + (sq >> 4)) & 1 for sq in range(geo.size)]
        """``_colour[sq]``: the square colour (0 or 1) of every square."""
        self._zone: list[tuple[int, ...]] = [
            tuple(
                t
                for t in geo.squares
                if self._colour[t] != self._colour[sq]
                and abs((t & 15) - (sq & 15)) <= 2
                and abs((t >> 4) - (sq >> 4)) <= 2
            )
            for sq in range(geo.size)
        ]
        """``_zone[sq]``: squares of the other colour within two squares (where a King's attackers stand)."""
        self._diagonals = slide_tables(geo.size, [rays[4:] for rays in geo.rays])
        """The diagonal rays (``geometry.QUEEN`` lists the four orthogonal directions first)."""
        self._squares = geo.squares
        # Instance attributes, read natively when compiled (a class attribute of a class that
        # allows interpreted subclasses is looked up by name at every read).  Read here, after
        # a match player's subclass has set its own values.
        self._king_attacker = self.KING_ATTACKER
        self._imbalance = self.COLOUR_IMBALANCE
        self._mobility_weight = self.MOBILITY

    def dynamic(self, board: Board) -> int:
        b = board.squares
        value_of = self.value_of
        colour_of = self._colour
        # Material of each side's non-royal pieces on each square colour (0 and 1), in locals.
        # The pieces come from the board's sets, one code at a time (the value is then fixed):
        # half the instructions of a scan of the occupied squares that tests every code.  The
        # sums do not depend on the order the sets are visited in.
        white0 = white1 = black0 = black1 = 0
        king = self._king
        # Each side's Kings, and its Smashers, Leapers and Removers (for the mobility term).
        white_kings: Collection[int]
        black_kings: Collection[int]
        white: list[int]
        black: list[int]
        if COMPILED:
            # Compiled, the same sums from a scan of the 64 squares: native, where each of the
            # ten sets was a generic iterator (about 4,000 instructions a call); from source the
            # sets are cheaper, as said above.  The scan finds the Kings and the sliding pieces
            # too: compiled, the board keeps no piece sets (Interweave.piece_sets).
            white_kings = []
            black_kings = []
            white = []
            black = []
            for sq in self._squares:
                x = b[sq]
                if x > 0:
                    if x == king:
                        white_kings.append(sq)
                    else:
                        if colour_of[sq]:
                            white1 += value_of[x]
                        else:
                            white0 += value_of[x]
                        if SMASHER <= x <= REMOVER:
                            white.append(sq)
                elif x < 0:
                    if x == -king:
                        black_kings.append(sq)
                    else:
                        if colour_of[sq]:
                            black1 += value_of[-x]
                        else:
                            black0 += value_of[-x]
                        if -REMOVER <= x <= -SMASHER:
                            black.append(sq)
        else:
            where = board.piece_squares
            white_kings = where[king]
            black_kings = where[-king]
            for code in self._pieces:
                value = value_of[code]
                for sq in where[code]:
                    if colour_of[sq]:
                        white1 += value
                    else:
                        white0 += value
                for sq in where[-code]:  # a negative code indexes from the end: where[code & 31]
                    if colour_of[sq]:
                        black1 += value
                    else:
                        black0 += value
        # King pairs: a side loses when either King falls, so its weaker King counts.
        zone = self._zone
        worst_white = worst_black = 0
        for k in white_kings:  # attackers: Black pieces but the Black Kings
            attackers = 0
            for p in zone[k]:
                x = b[p]
                if x < 0 and x != -king:
                    attackers += 1
            if attackers > worst_white:
                worst_white = attackers
        for k in black_kings:
            attackers = 0
            for p in zone[k]:
                x = b[p]
                if x > 0 and x != king:
                    attackers += 1
            if attackers > worst_black:
                worst_black = attackers
        # Products with a non-negative factor and no abs(): compiled, a product with a negative
        # factor and abs() are generic calls (docs/build.md, "No products with a negative factor").
        diff = worst_black - worst_white
        score = diff * self._king_attacker if diff >= 0 else -(-diff * self._king_attacker)
        # Colour balance: pieces on colour c attack only pieces on the other colour.
        imbalance = self._imbalance
        diff = white0 - white1
        if diff < 0:
            diff = -diff
        score -= (diff * imbalance // 100) // 2
        diff = black0 - black1
        if diff < 0:
            diff = -diff
        score += (diff * imbalance // 100) // 2
        mobility = self._mobility_weight
        if mobility:
            diagonals = self._diagonals
            if COMPILED:  # the pieces found by the scan above
                diff = slide_mobility(b, white, diagonals) - slide_mobility(b, black, diagonals)
            else:
                diff = slide_mobility(
                    b, [*where[SMASHER], *where[LEAPER], *where[REMOVER]], diagonals
                ) - slide_mobility(b, [*where[-SMASHER], *where[-LEAPER], *where[-REMOVER]], diagonals)
            score += mobility * diff if diff >= 0 else -(mobility * -diff)
        return score
