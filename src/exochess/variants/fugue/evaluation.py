"""Evaluation of Fugue.  The reasoning behind every number is in ``docs/engine.md``.

Codes: King 1, Queen 2, Immobilizer 3, Pushme-Pullyu 4, Archer 5, Shield 6,
Long Leaper 7, Swapper 8, Cannon Pawn 9.
"""

from __future__ import annotations

from typing import ClassVar, Final

from mypy_extensions import mypyc_attr

from exochess.board import Board
from exochess.compiled import COMPILED
from exochess.engine.evaluate.base import Evaluator, open_directions
from exochess.variant import Variant
from exochess.variants.fugue.rules import (
    ARCHER,
    IMMOBILIZER,
    KING,
    LEAPER,
    PAWN,
    PUSHME,
    QUEEN,
    SHIELD,
    SWAPPER,
)

_NOWHERE: Final[frozenset[int]] = frozenset()


# Match players with changed weights subclass it at run time (exochess_lab.match).
@mypyc_attr(allow_interpreted_subclasses=True)
class FugueEvaluator(Evaluator):
    """Material, placement, frozen pieces, shield cover and king exposure."""

    # --- tables (bench/tune.py writes this block) ---
    # Hand-set values and placement (the tuned ones lost or were not measured: docs/engine.md).
    # Placement rows: the owner's first rank first, files from the edge to the centre
    # (mirrored for the other half of the board: base.placement_index).
    values: ClassVar[dict[str, int]] = {
        "K": 0,
        "Q": 850,
        "I": 700,
        "U": 500,
        "A": 600,
        "S": 400,
        "L": 600,
        "W": 450,
        "P": 120,
    }
    PLACEMENT: ClassVar[dict[str, tuple[int, ...]]] = {
        "K": (
            0,
            0,
            0,
            0,
            -10,
            -10,
            -10,
            -10,
            -25,
            -25,
            -25,
            -25,
            -40,
            -40,
            -40,
            -40,
            -50,
            -50,
            -50,
            -50,
            -50,
            -50,
            -50,
            -50,
            -50,
            -50,
            -50,
            -50,
            -50,
            -50,
            -50,
            -50,
        ),
        "Q": (
            0,
            4,
            8,
            12,
            4,
            8,
            12,
            14,
            8,
            12,
            14,
            18,
            12,
            14,
            18,
            22,
            12,
            14,
            18,
            22,
            8,
            12,
            14,
            18,
            4,
            8,
            12,
            14,
            0,
            4,
            8,
            12,
        ),
        "I": (
            0,
            4,
            8,
            12,
            4,
            8,
            12,
            14,
            8,
            12,
            14,
            18,
            12,
            14,
            18,
            22,
            12,
            14,
            18,
            22,
            8,
            12,
            14,
            18,
            4,
            8,
            12,
            14,
            0,
            4,
            8,
            12,
        ),
        "U": (
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
        "A": (
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
        "S": (
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
        "L": (
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
        "W": (
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
            1,
            2,
            3,
            5,
            6,
            7,
            7,
            10,
            11,
            11,
            12,
            15,
            15,
            16,
            17,
            19,
            19,
            20,
            21,
            22,
            23,
            23,
            24,
            25,
            26,
            27,
            27,
            28,
            29,
            30,
            31,
        ),
    }
    # --- end of tables ---
    TUNABLE: ClassVar[tuple[str, ...]] = (
        "FROZEN_KING",
        "COVER_KING",
        "OPEN_RAY",
        "LINE_THREAT",
        "SWAPPER_NEXT_TO_KING",
    )
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
    MOBILITY: ClassVar[int] = 0
    """Per open direction of a sliding piece (all but the King and the Cannon Pawns): an empty
    neighbouring square, the first step of a slide.  Off: at 8 cp it cost 15-19% more
    instructions per node and lost its match against the same engine without it (18-22, 40
    games at 200 ms; ``docs/engine.md``).  ``mobility=8`` in a match player turns it on."""

    def __init__(self, variant: Variant) -> None:
        super().__init__(variant)
        geo = variant.geometry
        self._near = [frozenset(n) for n in geo.neighbours]
        frozen_sliders = (QUEEN, PUSHME, ARCHER, SHIELD, LEAPER, SWAPPER)
        self._slider_codes = tuple((me, tuple(me * code for code in frozen_sliders)) for me in (1, -1))
        """Per side, the codes of the pieces an enemy Immobilizer freezes that slide (the King and the
        Cannon Pawn step; the Immobilizer is handled apart)."""
        self._neighbours = geo.neighbours
        # Each king ray as (first square, second square or -1, the squares after those two).
        self._king_rays = [
            tuple((ray[0], ray[1] if len(ray) > 1 else -1, ray[2:]) for ray in geo.rays[sq] if ray)
            for sq in range(geo.size)
        ]
        # Tables indexed by a piece code (-9 .. 9, negative codes from the end), one per colour
        # of the piece whose neighbourhood or lines are examined; White's point of view.
        codes = range(-PAWN, PAWN + 1)
        value = [0] * (2 * PAWN + 1)
        for x in codes:
            value[x] = self.value_of[x & 31]
        frozen = [0] * (2 * PAWN + 1)
        cover = [0] * (2 * PAWN + 1)
        for x in codes:
            if x:
                frozen[x] = self.FROZEN_KING if abs(x) == KING else value[x] // self.FROZEN_SHARE
                cover[x] = self.COVER_KING if abs(x) == KING else value[x] // self.COVER_SHARE
        self._frozen_by: dict[int, list[int]] = {}
        """``_frozen_by[me][x]``: score change of piece ``x`` next to the Immobilizer of side ``me``."""
        self._cover_by: dict[int, list[int]] = {}
        """``_cover_by[me][x]``: score change of piece ``x`` next to the Shield of side ``me``."""
        for me in (1, -1):
            frozen_row = [0] * (2 * PAWN + 1)
            cover_row = [0] * (2 * PAWN + 1)
            for x in codes:
                if x * me < 0 and x != -me * IMMOBILIZER:
                    frozen_row[x] = frozen[x] * me
                if x * me > 0:
                    cover_row[x] = cover[x] * me
            self._frozen_by[me] = frozen_row
            self._cover_by[me] = cover_row
        threats = []
        for dist in (1, 2, 3):
            table = {}
            for me in (1, -1):
                row = [0] * (2 * PAWN + 1)
                for x in codes:
                    kind = -x * me
                    if kind == QUEEN or (kind == ARCHER and dist <= 2):
                        row[x] = self.LINE_THREAT
                    elif kind == LEAPER:
                        row[x] = self.LINE_THREAT // 2
                    elif kind == SWAPPER and dist == 1:
                        row[x] = self.SWAPPER_NEXT_TO_KING
                table[me] = row
            threats.append(table)
        # The codes come precomputed (``me * KING`` with Black's -1 is a slow product compiled:
        # docs/build.md, "No products with a negative factor").
        self._kings: tuple[tuple[int, int, int, list[int], list[int], list[int]], ...] = tuple(
            (me, me * KING, me * SHIELD, threats[0][me], threats[1][me], threats[2][me]) for me in (1, -1)
        )
        """``(me, king, shield, threat1, threat2, threat3)`` per side (``king`` and ``shield`` its
        codes): ``threatN[x]`` is the danger to the King of side ``me`` of piece ``x`` first on one
        of its lines at distance N (3: three or more)."""
        # Typed as a tuple of any length: a fixed-length tuple attribute is a C struct compiled,
        # boxed into five new tuples at every read.
        self._rings: tuple[tuple[int, list[int]], ...] = (
            (IMMOBILIZER, self._frozen_by[1]),
            (-IMMOBILIZER, self._frozen_by[-1]),
            (SHIELD, self._cover_by[1]),
            (-SHIELD, self._cover_by[-1]),
        )
        """(centre piece, table of its neighbours' score changes)."""
        # Instance attributes, read natively when compiled (a class attribute of a class that
        # allows interpreted subclasses is looked up by name at every read).  Read here, after
        # a match player's subclass has set its own values.
        self._open_ray = self.OPEN_RAY
        self._mobility_weight = self.MOBILITY

    def dynamic(self, board: Board) -> int:
        b = board.squares
        # No scan: ``where[code]`` is the set of squares of the piece ``code`` (one square at
        # most for a King, Immobilizer or Shield: a side has one of each at most).
        where = board.piece_squares
        score = 0
        neighbours = self._neighbours
        open_ray = self._open_ray
        # Frozen pieces (next to an enemy Immobilizer: no move at all) and Shield cover
        # (protected pieces cannot be captured by any method): one table lookup per neighbour.
        for code, table in self._rings:
            for centre in where[code]:
                for n in neighbours[centre]:
                    score += table[b[n]]
        # King exposure, unless a Shield covers the King (then it cannot be captured at all).
        near = self._near
        for me, king_code, shield, threat1, threat2, threat3 in self._kings:
            for king in where[king_code]:
                if COMPILED:
                    # The same test on the board: compiled, ``isdisjoint`` is a method looked
                    # up by name (some 340 instructions), the loop over the neighbours native.
                    covered = False
                    for n in neighbours[king]:
                        if b[n] == shield:
                            covered = True
                            break
                    if covered:
                        continue
                elif not near[king].isdisjoint(where[shield]):
                    continue
                danger = 0
                for first, second, rest in self._king_rays[king]:
                    x = b[first]
                    if x:
                        danger += threat1[x]
                        continue
                    if second < 0:
                        continue
                    danger += open_ray
                    x = b[second]
                    if x:
                        danger += threat2[x]
                        continue
                    for t in rest:
                        x = b[t]
                        if x:
                            danger += threat3[x]
                            break
                if me > 0:  # not ``danger * me``: a product with -1 is slow compiled
                    score -= danger
                else:
                    score += danger
        if self._mobility_weight:
            score += self._mobility_weight * self._mobility(b, where)
        return score

    def _mobility(self, b: list[int], where: list[set[int]]) -> int:
        """White's minus Black's open directions: for each sliding piece that is not frozen, the
        neighbouring squares that are empty (each one the first step of a slide).

        Counting the whole slides was measured at 5 times the cost of the rest of the dynamic
        term (9.0 against 1.7 microseconds a call); the first steps cost a set difference
        per piece and still tell a boxed-in piece from a free one.
        """
        occupied = set().union(*where)
        near = self._near
        balance = 0
        for me, codes in self._slider_codes:
            enemy_immobilizer = where[-me * IMMOBILIZER]
            frozen = near[next(iter(enemy_immobilizer))] if enemy_immobilizer else _NOWHERE
            sliders = [s for code in codes for s in where[code]]
            # The Immobilizer is never frozen: Immobilizers do not freeze each other.
            balance += me * (
                open_directions(sliders, near, occupied, frozen)
                + open_directions(where[me * IMMOBILIZER], near, occupied, _NOWHERE)
            )
        return balance
