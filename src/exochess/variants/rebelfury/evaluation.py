"""Evaluation of Rebel Fury.  The reasoning behind every number is in ``docs/engine.md``.

Letters: Advancer A, Capricorn C, Dragon D, Fury F (two, royal: losing both
loses), Gorgon G, Harpy H, Jumper J, Mimotaur M, Ximaera X.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Final

from mypy_extensions import mypyc_attr

from exochess.board import Board
from exochess.engine.evaluate.base import Evaluator, open_directions, slide_tables
from exochess.engine.levels import LEVELS, Level
from exochess.variant import Variant

GORGON_GAZE: Final = 1
"""Kind of gazer: a Gorgon or a Fury (petrifies every enemy piece it sees)."""
MIMOTAUR_GAZE: Final = 2
"""Kind of gazer: a Mimotaur (petrifies enemy Gorgons and Furies only, counts no cells)."""


# Match players with changed weights subclass it at run time (exochess_lab.match).
@mypyc_attr(allow_interpreted_subclasses=True)
class RebelFuryEvaluator(Evaluator):
    """Material, placement, Fury safety and gaze control."""

    levels: ClassVar[Mapping[int, Level]] = {
        1: Level(1, 1, 800, True, False, 0.125, lapses=0.4),
        2: Level(2, 1, 800, True, False, 0.125, lapses=0.07),
        3: Level(3, 1, 40, True, False, 0.125, lapses=0.03),
        4: Level(4, 1, 40, True, False, 0.125),
        5: Level(5, 3, 0, True, True, 0.25, lapses=0.03),
        6: LEVELS[6],
        7: LEVELS[7],
        8: LEVELS[8],
    }
    """Levels 1-4 search one ply and differ by noise and lapses (moves without quiescence): 800 cp
    with 40% and 7% of lapses, then 40 cp with 3% and none; level 5 is depth 3 with pruning and
    3% of lapses, and 6-8 are the default (depth 3, depth 4, the whole time).  A ply is worth much
    here at the site's move times (depth 3 beat depth 1 56-4 and depth 2 59-1; depth 4 beat depth
    3 26-3-1) and a lapse costs much (depth 3 with 5% of them scored 29-31 against depth 1), so
    3% of lapses split the step from depth 1 to depth 3 and depth 2 is no level.  Noise tells
    less: with 3% of lapses, 40 cp instead of 800 scored 66-34.  Chosen for even steps (issue 48:
    ``bench/level_scale.py``, the records ``bench/data/matches/rebelfury-*``)."""

    # --- tables (bench/tune.py writes this block) ---
    # Hand-set values and placement (the tuned ones lost or were not measured: docs/engine.md).
    # Placement rows: the owner's first rank first, files from the edge to the centre
    # (mirrored for the other half of the board: base.placement_index).
    values: ClassVar[dict[str, int]] = {
        "A": 100,
        "C": 450,
        "D": 500,
        "F": 1400,
        "G": 550,
        "H": 400,
        "J": 350,
        "M": 400,
        "X": 300,
    }
    PLACEMENT: ClassVar[dict[str, tuple[int, ...]]] = {
        "A": (
            0,
            0,
            1,
            1,
            1,
            2,
            3,
            4,
            4,
            4,
            5,
            5,
            7,
            7,
            7,
            8,
            8,
            8,
            10,
            10,
            11,
            11,
            11,
            12,
            13,
            14,
            14,
            14,
            15,
            15,
            17,
            17,
            17,
            18,
            18,
            18,
            20,
            20,
            20,
            21,
            21,
            21,
            22,
            23,
            23,
            23,
            24,
            24,
            25,
            25,
            26,
            26,
            26,
            27,
            28,
            28,
            28,
            29,
            29,
            29,
            30,
            31,
            31,
            31,
            32,
            32,
            33,
            33,
            34,
            34,
            34,
            35,
        ),
        "C": (
            0,
            2,
            3,
            4,
            5,
            6,
            2,
            3,
            4,
            5,
            6,
            7,
            3,
            4,
            5,
            6,
            7,
            8,
            4,
            5,
            6,
            7,
            8,
            9,
            5,
            6,
            7,
            8,
            9,
            10,
            6,
            7,
            8,
            9,
            10,
            11,
            6,
            7,
            8,
            9,
            10,
            11,
            5,
            6,
            7,
            8,
            9,
            10,
            4,
            5,
            6,
            7,
            8,
            9,
            3,
            4,
            5,
            6,
            7,
            8,
            2,
            3,
            4,
            5,
            6,
            7,
            0,
            2,
            3,
            4,
            5,
            6,
        ),
        "D": (
            0,
            2,
            3,
            4,
            5,
            6,
            2,
            3,
            4,
            5,
            6,
            7,
            3,
            4,
            5,
            6,
            7,
            8,
            4,
            5,
            6,
            7,
            8,
            9,
            5,
            6,
            7,
            8,
            9,
            10,
            6,
            7,
            8,
            9,
            10,
            11,
            6,
            7,
            8,
            9,
            10,
            11,
            5,
            6,
            7,
            8,
            9,
            10,
            4,
            5,
            6,
            7,
            8,
            9,
            3,
            4,
            5,
            6,
            7,
            8,
            2,
            3,
            4,
            5,
            6,
            7,
            0,
            2,
            3,
            4,
            5,
            6,
        ),
        "F": (
            0,
            0,
            0,
            0,
            0,
            0,
            -2,
            -2,
            -2,
            -2,
            -2,
            -2,
            -4,
            -4,
            -4,
            -4,
            -4,
            -4,
            -6,
            -6,
            -6,
            -6,
            -6,
            -6,
            -8,
            -8,
            -8,
            -8,
            -8,
            -8,
            -10,
            -10,
            -10,
            -10,
            -10,
            -10,
            -12,
            -12,
            -12,
            -12,
            -12,
            -12,
            -14,
            -14,
            -14,
            -14,
            -14,
            -14,
            -16,
            -16,
            -16,
            -16,
            -16,
            -16,
            -18,
            -18,
            -18,
            -18,
            -18,
            -18,
            -20,
            -20,
            -20,
            -20,
            -20,
            -20,
            -22,
            -22,
            -22,
            -22,
            -22,
            -22,
        ),
        "G": (
            0,
            2,
            3,
            4,
            5,
            6,
            2,
            3,
            4,
            5,
            6,
            7,
            3,
            4,
            5,
            6,
            7,
            8,
            4,
            5,
            6,
            7,
            8,
            9,
            5,
            6,
            7,
            8,
            9,
            10,
            6,
            7,
            8,
            9,
            10,
            11,
            6,
            7,
            8,
            9,
            10,
            11,
            5,
            6,
            7,
            8,
            9,
            10,
            4,
            5,
            6,
            7,
            8,
            9,
            3,
            4,
            5,
            6,
            7,
            8,
            2,
            3,
            4,
            5,
            6,
            7,
            0,
            2,
            3,
            4,
            5,
            6,
        ),
        "H": (
            0,
            2,
            3,
            4,
            5,
            6,
            2,
            3,
            4,
            5,
            6,
            7,
            3,
            4,
            5,
            6,
            7,
            8,
            4,
            5,
            6,
            7,
            8,
            9,
            5,
            6,
            7,
            8,
            9,
            10,
            6,
            7,
            8,
            9,
            10,
            11,
            6,
            7,
            8,
            9,
            10,
            11,
            5,
            6,
            7,
            8,
            9,
            10,
            4,
            5,
            6,
            7,
            8,
            9,
            3,
            4,
            5,
            6,
            7,
            8,
            2,
            3,
            4,
            5,
            6,
            7,
            0,
            2,
            3,
            4,
            5,
            6,
        ),
        "J": (
            0,
            2,
            3,
            4,
            5,
            6,
            2,
            3,
            4,
            5,
            6,
            7,
            3,
            4,
            5,
            6,
            7,
            8,
            4,
            5,
            6,
            7,
            8,
            9,
            5,
            6,
            7,
            8,
            9,
            10,
            6,
            7,
            8,
            9,
            10,
            11,
            6,
            7,
            8,
            9,
            10,
            11,
            5,
            6,
            7,
            8,
            9,
            10,
            4,
            5,
            6,
            7,
            8,
            9,
            3,
            4,
            5,
            6,
            7,
            8,
            2,
            3,
            4,
            5,
            6,
            7,
            0,
            2,
            3,
            4,
            5,
            6,
        ),
        "M": (
            0,
            2,
            3,
            4,
            5,
            6,
            2,
            3,
            4,
            5,
            6,
            7,
            3,
            4,
            5,
            6,
            7,
            8,
            4,
            5,
            6,
            7,
            8,
            9,
            5,
            6,
            7,
            8,
            9,
            10,
            6,
            7,
            8,
            9,
            10,
            11,
            6,
            7,
            8,
            9,
            10,
            11,
            5,
            6,
            7,
            8,
            9,
            10,
            4,
            5,
            6,
            7,
            8,
            9,
            3,
            4,
            5,
            6,
            7,
            8,
            2,
            3,
            4,
            5,
            6,
            7,
            0,
            2,
            3,
            4,
            5,
            6,
        ),
        "X": (
            0,
            2,
            3,
            4,
            5,
            6,
            2,
            3,
            4,
            5,
            6,
            7,
            3,
            4,
            5,
            6,
            7,
            8,
            4,
            5,
            6,
            7,
            8,
            9,
            5,
            6,
            7,
            8,
            9,
            10,
            6,
            7,
            8,
            9,
            10,
            11,
            6,
            7,
            8,
            9,
            10,
            11,
            5,
            6,
            7,
            8,
            9,
            10,
            4,
            5,
            6,
            7,
            8,
            9,
            3,
            4,
            5,
            6,
            7,
            8,
            2,
            3,
            4,
            5,
            6,
            7,
            0,
            2,
            3,
            4,
            5,
            6,
        ),
    }
    # --- end of tables ---
    TUNABLE: ClassVar[tuple[str, ...]] = ("LAST_FURY", "GAZE_CELL")
    lazy_margin: ClassVar[int] = 300

    LAST_FURY: ClassVar[int] = 400
    """Extra worth of a side's only remaining Fury (its loss ends the game)."""
    GAZE_CELL: ClassVar[int] = 2
    """Per square in the gaze of a side's Gorgons and Furies."""
    PETRIFIED_SHARE: ClassVar[int] = 3
    """A petrified piece loses 1/PETRIFIED_SHARE of its value."""
    MOBILITY: ClassVar[int] = 0
    """Per open direction of a sliding piece that does not gaze (a Gorgon's or a Fury's lines
    count as gaze cells instead): an empty neighbouring square, the first step of a slide.
    Off until a match shows it pays for its cost (``docs/engine.md``); the gaze cells are the
    mobility of the Gorgons and Furies, and that term is on."""

    def __init__(self, variant: Variant) -> None:
        super().__init__(variant)
        geo = variant.geometry
        c = variant.codes
        self._fury = c.get("F", 0)
        gorgon = c.get("G", 0)
        mimotaur = c.get("M", 0)
        # Tables indexed by a signed piece code: a negative code wraps around to the end
        # of the 64-entry tuple, so one subscript serves both colours (codes are below 32).
        gazer = [0] * 64
        petrify = [0] * 64
        for code in range(1, 32):
            for x in (code, -code):
                gazer[x] = GORGON_GAZE if code in (gorgon, self._fury) else 0
                if code == mimotaur:
                    gazer[x] = MIMOTAUR_GAZE
                # The gazer is of the other colour: its sign is -x's.
                # The sign after the division: floor division would round the two colours apart.
                petrify[x] = (-1 if x > 0 else 1) * (self.value_of[x & 31] // self.PETRIFIED_SHARE)
        self._gazer_codes: tuple[int, ...] = tuple(x for x in range(-31, 32) if x and gazer[x])
        """The signed codes of the gazers (looked up in ``Board.piece_squares``)."""
        self._petrify: tuple[int, ...] = tuple(petrify)
        # Per gazer code: the codes it petrifies (a Mimotaur: enemy Gorgons and Furies only)
        # and the weight of each cell it sees, signed by its side (none for a Mimotaur).
        info: list[tuple[tuple[bool, ...], int]] = [((False,) * 64, 0)] * 64
        for x in range(-31, 32):
            if not gazer[x]:
                continue
            me = 1 if x > 0 else -1
            only_royals = gazer[x] == MIMOTAUR_GAZE
            victims = tuple(
                y * me < 0 and (not only_royals or abs(y) in (self._fury, gorgon))
                for y in [*range(32), *range(-32, 0)]
            )
            info[x] = (victims, 0 if only_royals else me * self.GAZE_CELL)
        self._gazer_info: tuple[tuple[tuple[bool, ...], int], ...] = tuple(info)
        # The non-empty rays of each square, and for a gazer g and a square t on one of its
        # rays, shadow[g][t]: the squares of that ray from t to the edge (t included).  The
        # cells a gazer sees are then all the squares of its rays minus the shadows of the
        # pieces that stop them, with no counting in the walk.
        self._rays, self._ray_total, self._shadows = slide_tables(geo.size, geo.rays)
        sliders = [c[letter] for letter in "CDHJMX" if letter in c]
        self._slider_codes = (*sliders, *(-code for code in sliders))
        """The signed codes of the pieces whose open directions count as mobility (all that slide
        but the gazers; the Advancer only steps)."""
        self._near = tuple(frozenset(n) for n in geo.neighbours)
        # Instance attributes, read natively when compiled (a class attribute of a class that
        # allows interpreted subclasses is looked up by name at every read).  Read here, after
        # a match player's subclass has set its own values.
        self._mobility_weight = self.MOBILITY
        self._last_fury = self.LAST_FURY

    def dynamic(self, board: Board) -> int:
        b = board.squares
        # The gazers come from the board's per-code square sets rather than a scan of the
        # board.  Their order does not matter: the score is a sum, and a petrified piece
        # counts the same whoever gazes at it first.
        where = board.piece_squares
        fury = self._fury
        info, petrify = self._gazer_info, self._petrify
        rays, shadows, totals = self._rays, self._shadows, self._ray_total
        score = 0
        petrified: set[int] = set()
        for v in self._gazer_codes:
            victims, cell_weight = info[v]
            for g in where[v]:
                shadow = shadows[g]
                cells = totals[g]
                for ray in rays[g]:
                    for t in ray:
                        x = b[t]
                        if x:
                            cells -= shadow[t]
                            # A piece is petrified once, whoever gazes at it (same value).
                            if victims[x] and t not in petrified:
                                petrified.add(t)
                                score += petrify[x]
                            break
                score += cells * cell_weight
        mobility = self._mobility_weight
        if mobility:
            # Open directions: the empty neighbours of each sliding piece; a petrified one has none.
            occupied = set().union(*where)
            near = self._near
            balance = 0
            for code in self._slider_codes:
                n = open_directions(where[code], near, occupied, petrified)
                balance += n if code > 0 else -n
            score += mobility * balance
        if fury:
            if len(where[fury]) == 1:
                score -= self._last_fury
            if len(where[-fury]) == 1:
                score += self._last_fury
        return score
