"""Rebel Fury (Larry L. Smith, 2009): nine Ultima-family pieces on a 12x12 field.

Rules as fixed by the project's rules of record (section 3); the points this
module had to decide on its own are listed in ``decisions.md`` beside it.

**The starting position is a reconstruction.**  The source page describes the
initial array with a picture that has not survived; the array used here
(Furies in the corners, a full line of Advancers on the second rank, Black
mirroring White file by file) is the project's proposal, and any position can
be set up from a FEN instead.

Piece codes (the position in :attr:`RebelFury.piece_letters` plus one):
Advancer 1, Capricorn 2, Dragon 3, Fury 4, Gorgon 5, Harpy 6, Jumper 7,
Mimotaur 8, Ximaera 9.

How the generator works.  The board's per-code square sets
(:attr:`~exochess.board.Board.piece_squares`) give the pieces of the side to move
(sorted, in board order), the enemy squares as a bitboard, and the enemy
gazers (Gorgon, Fury, Mimotaur), whose rays are then walked once each to fill a
per-square table of gaze marks: a square seen by a Mimotaur only holds Gorgons
and Furies, one seen by a Gorgon or a Fury holds every piece; a moving piece
reads the marks through its row of the lookup table :data:`_HELD`.  Each piece
then walks its precomputed rays once per direction: the walk yields the plain
slides, the square beyond the last slide (the Capricorn *front*) and, when the
approach was not stopped by the gaze, the first piece on the ray, which the
Dragon, Gorgon, Harpy and Ximaera powers (and the Fury and Mimotaur using them)
act on.  The capture generator (quiescence) runs the same code with the building
of every move without victims switched off; it also skips, with one integer
``&`` against the enemy bitboard, every Advancer, ray or leap with no enemy
within reach (most of them in a middle game).

Every raw move carries in its ``tags`` field the letters of the powers that can
produce it (``A C D G H J X``; a plain slide has none), which is what a power
tag such as ``/C`` written after a move is checked against.

>>> from exochess import Board
>>> board = Board("rebelfury")
>>> len(board.legal_moves)
118
>>> sorted(str(m) for m in board.moves_from("g1"))
['g1~f1', 'g1~f2', 'g1~g2', 'g1~h1', 'g1~h2']
>>> board.parse_move("e1xe11/H")
Move.from_text('e1xe11')
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain
from typing import TYPE_CHECKING, Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from exochess.geometry import QUEEN, square_name, victim_order
from exochess.rawmove import FROM, KIND, SINGLE_VICTIM, TAGS, TO, to_move
from exochess.variant import FORBIDDEN, Variant

if TYPE_CHECKING:
    from exochess.board import Board
    from exochess.move import Move
    from exochess.rawmove import RawMove

ADVANCER: Final = 1
CAPRICORN: Final = 2
DRAGON: Final = 3
FURY: Final = 4
GORGON: Final = 5
HARPY: Final = 6
JUMPER: Final = 7
MIMOTAUR: Final = 8
XIMAERA: Final = 9

GAZE: Final = 1
"""Bit of the gaze table: in the gaze of an enemy Gorgon or Fury (affects every piece)."""
MIMOTAUR_GAZE: Final = 2
"""Bit of the gaze table: in the gaze of an enemy Mimotaur (affects Gorgons and Furies only)."""

START_FEN: Final = "fdcghmxjgcdf/aaaaaaaaaaaa/12/12/12/12/12/12/12/12/AAAAAAAAAAAA/FDCGHMXJGCDF w"

_NO_VICTIMS: Final[tuple[int, ...]] = ()

# Which powers each type has, indexed by type code (index 0 unused).
# Capricorn strike mode: 0 none, 1 automatic (Capricorn), 2 optional (Fury), 3 mimicry (Mimotaur).
_CAP_MODE: Final = (0, 0, 1, 0, 2, 0, 0, 0, 3, 0)
_HAS_DRA: Final = (False, False, False, True, True, False, False, False, True, False)
_HAS_GOR: Final = (False, False, False, False, True, True, False, False, True, False)
_HAS_HAR: Final = (False, False, False, False, True, False, True, False, True, False)
_HAS_XIM: Final = (False, False, False, False, True, False, False, False, False, True)
_HAS_JUM: Final = (False, False, False, False, True, False, False, True, True, False)
_GAZE_MASK: Final = (0, GAZE, GAZE, GAZE, GAZE | MIMOTAUR_GAZE, GAZE | MIMOTAUR_GAZE, GAZE, GAZE, GAZE, GAZE)
"""Gaze bits that hold a piece of each type.  Gorgons and Furies also obey the Mimotaur's gaze
(rules R-A5; for the reading "Gorgons only", give the Fury (index 4) the mask ``GAZE``)."""
_GAZE_BIT: Final = (0, 0, 0, 0, GAZE, GAZE, 0, 0, MIMOTAUR_GAZE, 0)
"""Gaze bit that a piece of each type casts (0: the type does not gaze)."""
_MIMOTAUR_MARK: Final = MIMOTAUR_GAZE
"""Mark of a square in the gaze of an enemy Mimotaur only (see ``_cast_gaze``)."""
_GORGON_MARK: Final = GAZE | MIMOTAUR_GAZE
"""Mark of a square in the gaze of an enemy Gorgon or Fury: it holds a piece of any type."""
_HELD: Final = tuple(tuple(bool(mark & mask) for mark in range(_GORGON_MARK + 1)) for mask in _GAZE_MASK)
"""``_HELD[kind][mark]``: whether a square with this gaze mark holds a piece of the type.

The generator tests this instead of ``mark & mask``: in CPython 3.11 a tuple lookup is a
specialised bytecode where ``&`` is a generic call, and the test runs for every square a piece
slides over."""
_SLIDER_CAPTURES: Final = tuple(
    bool(_CAP_MODE[k] or _HAS_DRA[k] or _HAS_GOR[k] or _HAS_HAR[k]) for k in range(10)
)
"""Whether the moves that start along a ray can capture for each type: a Jumper and a Ximaera
only slide (and swap) there, so the capture generator need not walk their rays."""


_CODES: Final[dict[int, tuple[int, ...]]] = {s: tuple(s * kind for kind in range(10)) for s in (1, -1)}
"""``_CODES[side][kind]``: the signed code of ``side``'s piece of type ``kind``.  The generator
reads signs from this table and from :data:`_HOSTILE` instead of multiplying by the side:
compiled, a product with a negative factor (Black's side, -1) leaves mypyc's machine-word path
for a call that allocates."""
_HOSTILE: Final[dict[int, tuple[bool, ...]]] = {
    side: tuple(code * side < 0 for code in (*range(10), *range(-9, 0))) for side in (1, -1)
}
"""``_HOSTILE[side][code]``: whether the piece ``code`` belongs to the enemy of ``side`` (negative
codes index from the end; 0, an empty square, is no enemy)."""

_BIT: Final = tuple(1 << s for s in range(256))
"""``_BIT[s]``: the bitboard of square ``s`` alone."""
_SIDE_SETS: Final = (slice(1, 10), slice(23, 32))
"""The entries of ``Board.piece_squares`` holding the pieces of White (index 0: codes 1 to 9)
and of Black (index 1: codes -9 to -1, stored at ``code & 31``); a slice costs less than nine
lookups."""


_Powers = tuple[int, tuple[bool, ...], tuple[bool, ...], bool, tuple[bool, ...], bool]


def _powers(me: int) -> tuple[_Powers, ...]:
    """Per type, for the side ``me``: what the moves along a ray may do.

    ``(capricorn mode, leap_over, takes_g, harpy, takes_h, ximaera)``, where ``leap_over[x]``,
    ``takes_g[x]`` and ``takes_h[x]`` say whether the Dragon leap may pass over, the Gorgon
    approach may take, and the Harpy flight may take a piece of signed code ``x`` (an index
    below zero wraps to the end of the 64-entry tuple).  Each is a single lookup in the walk,
    covering both the enemy test and the Mimotaur's limits: it copies a power only to take
    the piece that has it, or a Fury.
    """
    table: list[_Powers] = []
    for kind in range(10):
        mimic = kind == MIMOTAUR

        def may(power: bool, prey: int, own_too: bool, mimic: bool = mimic) -> tuple[bool, ...]:
            flags = [False] * 64
            if power:
                for x in range(-31, 32):
                    if mimic:
                        flags[x] = x in (-me * prey, -me * FURY)
                    else:
                        flags[x] = x * me < 0 or (own_too and x * me > 0)
            return tuple(flags)

        table.append(
            (
                _CAP_MODE[kind],
                may(_HAS_DRA[kind], DRAGON, True),
                may(_HAS_GOR[kind], GORGON, False),
                _HAS_HAR[kind],
                may(_HAS_HAR[kind], HARPY, False),
                _HAS_XIM[kind],
            )
        )
    return tuple(table)


def _bits(squares: Iterable[int]) -> int:
    """The bitboard of some squares."""
    total = 0
    for s in squares:
        total |= 1 << s
    return total


# A game defined elsewhere may start from this one (a subclass in plain Python).
@mypyc_attr(allow_interpreted_subclasses=True)
class RebelFury(Variant):
    """Rebel Fury on 12x12: capture both enemy Furies.  The starting array is a reconstruction."""

    name = "rebelfury"
    title = "Rebel Fury"
    aliases = ("rebel-fury", "rebel_fury")
    glyphs: ClassVar[dict[str, str]] = {
        "F": "crown",
        "A": "pawn",
        "C": "triangle",
        "D": "diamond",
        "G": "octagon",
        "H": "hexagon",
        "J": "pentagon",
        "M": "star",
        "X": "square",
    }
    evaluator = "exochess.variants.rebelfury.evaluation:RebelFuryEvaluator"
    rules_page = "rules.md"
    description = "Twelve by twelve: gorgons petrify, harpies fly, ximaeras swap; capture both enemy Furies."
    width = 12
    height = 12
    piece_letters = "ACDFGHJMX"
    piece_names = {  # noqa: RUF012 - class-level metadata, shared and never mutated
        "A": "Advancer",
        "C": "Capricorn",
        "D": "Dragon",
        "F": "Fury",
        "G": "Gorgon",
        "H": "Harpy",
        "J": "Jumper",
        "M": "Mimotaur",
        "X": "Ximaera",
    }
    piece_descriptions: ClassVar[dict[str, str]] = {
        "A": "Steps one square forward or diagonally forward to an empty square and removes the "
        "enemies left and right of where it lands; may become a Jumper in the far half.",
        "C": "Slides like a queen; when it stops in front of a piece it strikes the three squares "
        "ahead, removing the enemies there.",
        "D": "Slides like a queen, or leaps over the first piece on a line (capturing it if it is "
        "an enemy) and may slide on.",
        "F": "Has every power but the Advancer's and gazes like a Gorgon; lose both Furies and you lose.",
        "G": "Slides like a queen and captures the first piece on a line by landing on it; its gaze "
        "petrifies the enemies it sees.",
        "H": "Slides like a queen; captures by flying over a piece to land on the next piece beyond "
        "it, if that one is an enemy.",
        "J": "Slides like a queen, or makes a knight's leap (capturing by landing), even when petrified.",
        "M": "Slides like a queen; captures a piece only with that piece's own power; its gaze "
        "petrifies enemy Gorgons and Furies.",
        "X": "Slides like a queen, or swaps places with the first piece on a line, friend or enemy.",
    }
    annotator = "exochess.variants.rebelfury.annotations:annotate"
    royal = "F"
    royal_minimum = 1
    repetition = FORBIDDEN
    starting_fen = START_FEN
    starting_position_note = (
        "The original starting diagram of Rebel Fury is lost; this array (Furies in the corners, "
        "Advancers on the second rank, Black mirroring White) is exochess's reconstruction. "
        "Any other array can be set up from a FEN."
    )
    royal_capture_text = "last Fury captured"

    def __init__(self) -> None:
        super().__init__()
        geo = self.geometry
        size = geo.size
        # Capricorn fan: for a strike ending on e in direction d, the front and the side squares
        # on the board, sorted in canonical victim order.  Empty when the front is off the board.
        fans: list[tuple[int, ...]] = [()] * (size * 8)
        for e in geo.squares:
            ef, er = e & 15, e >> 4
            for d, (dx, dy) in enumerate(QUEEN):
                front = (ef + dx, er + dy)
                if not (0 <= front[0] < self.width and 0 <= front[1] < self.height):
                    continue
                if dx == 0 or dy == 0:
                    px, py = dy, dx
                    cells = [front, (front[0] + px, front[1] + py), (front[0] - px, front[1] - py)]
                else:
                    cells = [front, (ef + dx, er), (ef, er + dy)]
                on = [(f, r) for f, r in cells if 0 <= f < self.width and 0 <= r < self.height]
                fans[e * 8 + d] = tuple(sorted((r * 16 + f for f, r in on), key=victim_order))
        self._fans: tuple[tuple[int, ...], ...] = tuple(fans)
        # Advancer steps per side (index 0 White, 1 Black): (target, left/right neighbours, zone).
        steps: list[list[tuple[tuple[int, tuple[int, ...], bool], ...]]] = [[], []]
        for index, forward in enumerate((1, -1)):
            table: list[tuple[tuple[int, tuple[int, ...], bool], ...]] = [()] * size
            for s in geo.squares:
                sf, sr = s & 15, s >> 4
                r = sr + forward
                if not 0 <= r < self.height:
                    continue
                entries = []
                for f in (sf - 1, sf, sf + 1):
                    if not 0 <= f < self.width:
                        continue
                    sides = tuple(r * 16 + g for g in (f - 1, f + 1) if 0 <= g < self.width)
                    zone = r >= self.height // 2 if forward > 0 else r < self.height // 2
                    entries.append((r * 16 + f, sides, zone))
                table[s] = tuple(entries)
            steps[index] = table
        self._steps: tuple[tuple[tuple[tuple[int, tuple[int, ...], bool], ...], ...], ...] = (
            tuple(steps[0]),
            tuple(steps[1]),
        )
        self._init_reach()
        self._powers = (_powers(1), _powers(-1))

    def _init_reach(self) -> None:
        """Bitboards (bit ``s`` for square ``s``) of the squares each move family can take on.

        The capture generator intersects them with the enemy squares before walking anything:
        in a middle game most Advancers, most rays and many leaps have no enemy within reach,
        and one integer ``&`` rules them out.
        """
        geo = self.geometry
        size = geo.size
        rays = geo.rays
        self._rays: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
            tuple(ray for ray in rays[s] if ray) for s in range(size)
        )
        """The non-empty rays of each square (for the gaze)."""
        # Per side: the squares an Advancer step on ``s`` strikes (the sides of its targets).
        self._advancer_reach: tuple[tuple[int, ...], ...] = tuple(
            tuple(_bits(q for _e, sides, _zone in table[s] for q in sides) for s in range(size))
            for table in self._steps
        )
        self._knight_reach: tuple[int, ...] = tuple(_bits(t) for t in geo.knight_targets)
        self._fan_reach: tuple[int, ...] = tuple(_bits(fan) for fan in self._fans)
        # Per type and square, ``(direction, reach)`` for each non-empty ray: the possible
        # victims of the moves along that ray (the ray itself for the Dragon, Gorgon and Harpy
        # powers; with the Capricorn power also the fans of every square of the ray).
        ray_reach: list[tuple[tuple[tuple[int, int], ...], ...]] = []
        for kind in range(10):
            per_square: list[tuple[tuple[int, int], ...]] = []
            for s in range(size):
                zones = []
                for d, ray in enumerate(rays[s]):
                    zone = _bits(ray) if _SLIDER_CAPTURES[kind] else 0
                    if _CAP_MODE[kind]:
                        zone |= _bits(q for e in ray for q in self._fans[e * 8 + d])
                    zones.append(zone)
                per_square.append(tuple((d, zone) for d, zone in enumerate(zones) if rays[s][d]))
            ray_reach.append(tuple(per_square))
        self._ray_reach: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = tuple(ray_reach)

    # --- the gaze --------------------------------------------------------------

    def gaze_table(self, squares: list[int], side: int) -> list[int]:
        """Per-square gaze bits cast by the opponent of ``side`` (see :data:`GAZE`).

        >>> from exochess import Board, parse_square
        >>> b = Board("rebelfury", fen="12/12/12/12/12/12/12/6g5/12/12/12/6A5 w")
        >>> gaze = RebelFury().gaze_table(b.squares, b.side)
        >>> [gaze[parse_square(n)] for n in ("g1", "g2", "h1", "c1")]
        [1, 1, 0, 1]
        """
        bits = _GAZE_BIT
        gazers = [(g, bits[-x * side]) for g, x in enumerate(squares) if x * side < 0 and bits[-x * side]]
        gorgons = self._cast_gaze(squares, side, [g for g, bit in gazers if bit == GAZE], [])
        mimotaurs = self._cast_gaze(squares, side, [], [g for g, bit in gazers if bit != GAZE])
        return [
            (GAZE if gorgon else 0) | (MIMOTAUR_GAZE if mimotaur else 0)
            for gorgon, mimotaur in zip(gorgons, mimotaurs, strict=True)
        ]

    def _cast_gaze(
        self, squares: list[int], side: int, gorgons: Iterable[int], mimotaurs: Iterable[int]
    ) -> list[int]:
        """The gaze of the enemy Gorgons and Furies and of the enemy Mimotaurs, as a table.

        Every square a gazer sees (the empty ones up to the first piece on each ray, and that
        piece if it belongs to ``side``) is marked with :data:`_MIMOTAUR_MARK`, then with
        :data:`_GORGON_MARK` (which overwrites): the mark is a constant store, cheaper than
        or-ing bits, and :data:`_HELD` reads the marks.
        """
        gaze = [0] * self.geometry.size
        rays = self._rays
        own = _HOSTILE[-side]  # own[y]: y belongs to ``side``
        # Any: the mark is stored as the object it is (compiled, an int would be boxed at
        # every store).
        mark: Any
        for mark, gazers in ((_MIMOTAUR_MARK, mimotaurs), (_GORGON_MARK, gorgons)):
            for g in gazers:
                for ray in rays[g]:
                    for t in ray:
                        y = squares[t]
                        if y:
                            if own[y]:
                                gaze[t] = mark
                            break
                        gaze[t] = mark
        return gaze

    # --- move generation -------------------------------------------------------

    def generate(self, board: Board) -> list[RawMove]:
        return self._generate(board, True)

    def generate_captures(self, board: Board) -> list[RawMove]:
        """The moves of :meth:`generate` whose first action has victims, without building the others.

        >>> from exochess import Board
        >>> board = Board("rebelfury", fen="12/12/12/12/12/12/12/12/3a2c5/4A7/12/F11 w")
        >>> captures = board.variant.generate_captures(board)
        >>> len(board.legal_moves), len(captures)
        (39, 12)
        >>> sorted(str(to_move(m)) for m in captures)[:4]
        ['a1xc3(d4)', 'a1xd4', 'a1xe5(d4)', 'a1xf6(d4)']
        """
        return self._generate(board, False)

    def _generate(self, board: Board, quiet: bool) -> list[RawMove]:
        """Every move of the side to move, or with ``quiet`` false only those with victims.

        One generator serves :meth:`generate` and :meth:`generate_captures`: each place that
        would build a move without victims tests ``quiet`` first.  The walks that find the
        captures are the same in both modes (a slide walk tells where the approach stops).
        """
        b = board.squares
        me = board.side
        index = 0 if me > 0 else 1
        # The pieces come from the board's per-code square sets, not from a scan of the 192
        # board entries.  The own squares are sorted: a set's order depends on its history,
        # and the moves must come in board order (it steers the search's ties, and the list
        # must be the same for a position however it was reached).  The enemy squares only
        # feed a bitboard and the gaze, where the order does not matter.  The bitboard is an
        # OR in a plain loop: sum(map(_BIT.__getitem__, ...)) calls the method wrapper
        # through an argument tuple per square, which cost more (measured 2.4 against 1.5 us
        # a call from source, and compiled the loop is native).
        where = board.piece_squares
        theirs = _CODES[-me]
        own = sorted(chain.from_iterable(where[_SIDE_SETS[index]]))
        bit = _BIT
        enemies = 0
        for group in where[_SIDE_SETS[1 - index]]:
            for t in group:
                enemies |= bit[t]
        gaze = self._cast_gaze(
            b, me, chain(where[theirs[GORGON]], where[theirs[FURY]]), where[theirs[MIMOTAUR]]
        )
        advancer = _CODES[me][ADVANCER]
        # Raw moves are written as literal tuples (exochess.rawmove's layout) in the helpers below: a
        # call per move would cost more than the rest of the inner loop.  Each is a ONE_RELOCATION (14
        # fields) unless its comment names another shape.
        moves: list[RawMove] = []
        steps = self._steps[index]
        knights = self.geometry.knight_targets
        rays = self.geometry.rays
        # Without quiet moves, an Advancer, a ray or a leap with no enemy within reach is
        # skipped before any walk (reach bitboards & enemy squares).
        advancer_reach = self._advancer_reach[index]
        knight_reach = self._knight_reach
        advancer_held = _HELD[ADVANCER]
        # The pieces in board order (the order of the moves steers the search's ties).
        for s in own:
            v = b[s]
            if v == advancer:
                if (quiet or advancer_reach[s] & enemies) and not advancer_held[gaze[s]]:
                    self._advancer(b, me, s, v, steps[s], moves, quiet)
                continue
            kind = v if me > 0 else -v
            held = _HELD[kind]
            if (quiet or _SLIDER_CAPTURES[kind]) and not held[gaze[s]]:
                self._slider(b, me, s, v, kind, held, gaze, rays[s], moves, quiet, enemies)
            if _HAS_JUM[kind] and (quiet or knight_reach[s] & enemies):
                self._leaps(b, me, s, v, kind, knights[s], moves, quiet)
        return moves

    def _advancer(
        self,
        b: list[int],
        me: int,
        s: int,
        v: int,
        targets: tuple[tuple[int, tuple[int, ...], bool], ...],
        moves: list[RawMove],
        quiet: bool,
    ) -> None:
        """ADV: one step forward or diagonally forward to an empty square, then the side strike.

        Steps that strike nothing are built only when ``quiet`` is true.
        """
        jumper = _CODES[me][JUMPER]
        hostile = _HOSTILE[me]
        for e, sides, zone in targets:
            if b[e]:
                continue
            victims: tuple[int, ...] = _NO_VICTIMS
            removed: tuple[int, ...] = _NO_VICTIMS
            for q in sides:  # one or two squares, left before right (canonical order)
                x = b[q]
                if hostile[x]:
                    victims += (q,)
                    removed += (q, x, 0)
            if victims:
                # A relocation and a triple per victim: RELOCATION_AND_VICTIM for one, longer for two
                moves.append((s, e, "x", victims, None, None, None, "A", s, v, 0, e, 0, v, *removed))
                if zone:
                    moves.append((s, e, "x", victims, "J", None, None, "A", s, v, 0, e, 0, jumper, *removed))
            elif quiet:
                moves.append((s, e, "-", _NO_VICTIMS, None, None, None, "A", s, v, 0, e, 0, v))
                if zone:
                    moves.append((s, e, "-", _NO_VICTIMS, "J", None, None, "A", s, v, 0, e, 0, jumper))

    def _leaps(
        self,
        b: list[int],
        me: int,
        s: int,
        v: int,
        kind: int,
        targets: tuple[int, ...],
        moves: list[RawMove],
        quiet: bool,
    ) -> None:
        """JUM: knight leaps, allowed even when petrified (the Mimotaur only to capture).

        Leaps to an empty square are built only when ``quiet`` is true.
        """
        if kind == MIMOTAUR:
            prey_j = _CODES[-me][JUMPER]
            prey_f = _CODES[-me][FURY]
            for t in targets:
                x = b[t]
                if x in (prey_j, prey_f):
                    moves.append((s, t, "x", SINGLE_VICTIM[t], None, None, None, "J", s, v, 0, t, x, v))
            return
        for t in targets:
            x = b[t]
            if x == 0:
                if quiet:
                    moves.append((s, t, "-", _NO_VICTIMS, None, None, None, "J", s, v, 0, t, 0, v))
            elif _HOSTILE[me][x]:
                moves.append((s, t, "x", SINGLE_VICTIM[t], None, None, None, "J", s, v, 0, t, x, v))

    def _slider(
        self,
        b: list[int],
        me: int,
        s: int,
        v: int,
        kind: int,
        held: tuple[bool, ...],
        gaze: list[int],
        rays: tuple[tuple[int, ...], ...],
        moves: list[RawMove],
        quiet: bool,
        enemies: int,
    ) -> None:
        """Every move of a non-petrified piece that starts with a slide along one of its rays.

        With ``quiet`` false, only those with victims: the rays are walked all the same (the
        walk tells where the approach stops) but slides, friendly Dragon leaps and swaps are
        not built, and the rays without an enemy within reach (``enemies``: bitboard of the
        enemy squares) are not walked at all.
        """
        fans = self._fans
        fan_reach = self._fan_reach
        # The powers of the type, with the pieces each one may act on (by signed code).
        cap, leap_over, takes_g, har, takes_h, xim = self._powers[0 if me > 0 else 1][kind]
        mimic = kind == MIMOTAUR
        if mimic:
            self._mimic_advance(b, me, s, v, moves)
        no_victims = _NO_VICTIMS
        hostile = _HOSTILE[me]
        for d, zone in self._ray_reach[kind][s]:
            if not quiet and not zone & enemies:
                continue  # no enemy within reach along this ray
            ray = rays[d]
            i = 0
            x = 0
            for t in ray:
                x = b[t]
                if x:
                    break
                if quiet:
                    moves.append((s, t, "-", no_victims, None, None, None, None, s, v, 0, t, 0, v))
                i += 1
                if held[gaze[t]]:
                    break
            # i: number of slides made = index of the square beyond the last one (the front);
            # x: the piece on the front when the walk reached one (0: edge or gaze stop).
            if cap and i and (x or (i < len(ray) and b[ray[i]])):
                e = ray[i - 1]
                if not fan_reach[e * 8 + d] & enemies:
                    victims: tuple[int, ...] = no_victims  # no enemy in the fan: one test
                elif mimic:
                    prey_c, prey_f, prey_m = -me * CAPRICORN, -me * FURY, -me * MIMOTAUR
                    victims = tuple(q for q in fans[e * 8 + d] if b[q] == prey_c or b[q] == prey_f)
                    if victims:
                        victims = tuple(
                            q for q in fans[e * 8 + d] if b[q] == prey_c or b[q] == prey_f or b[q] == prey_m
                        )
                else:
                    victims = tuple(q for q in fans[e * 8 + d] if hostile[b[q]])
                if victims:
                    removed: tuple[int, ...] = ()
                    for q in victims:
                        removed += (q, b[q], 0)
                    # A relocation and a triple per victim (Shape.RELOCATION_AND_VICTIMS)
                    strike = (s, e, "x", victims, None, None, None, "C", s, v, 0, e, 0, v, *removed)
                    if cap == 1 and quiet:
                        moves[-1] = strike  # automatic for the Capricorn itself
                    else:
                        # The Fury and the Mimotaur may also just slide there; without
                        # quiet moves there is no slide to replace for the Capricorn.
                        moves.append(strike)
                elif cap != 3 and quiet:
                    # A strike that removes nothing is the same move as the plain slide
                    # just generated (the last one); only its power tag is added.
                    moves[-1] = (s, e, "-", no_victims, None, None, None, "C", s, v, 0, e, 0, v)
            if not x:
                continue
            xsq = ray[i]
            # A leap over a friendly piece takes nothing: a quiet move.
            if leap_over[x] and (quiet or hostile[x]) and i + 1 < len(ray) and not b[ray[i + 1]]:
                if hostile[x]:
                    changes_head: tuple[int, ...] = (s, v, 0, xsq, x, 0)
                    kind_text = "x"
                    leapt: tuple[int, ...] = SINGLE_VICTIM[xsq]
                else:
                    changes_head = (s, v, 0)
                    kind_text = "-"
                    leapt = no_victims
                for t in ray[i + 1 :]:
                    if b[t]:
                        break
                    # RELOCATION_AND_VICTIM over an enemy, ONE_RELOCATION over a friend
                    moves.append((s, t, kind_text, leapt, None, None, None, "D", *changes_head, t, 0, v))
                    if held[gaze[t]]:
                        break
            if takes_g[x]:
                moves.append((s, xsq, "x", SINGLE_VICTIM[xsq], None, None, None, "G", s, v, 0, xsq, x, v))
            if har:
                for ysq in ray[i + 1 :]:
                    y = b[ysq]
                    if y:
                        if takes_h[y]:
                            moves.append(
                                (s, ysq, "x", SINGLE_VICTIM[ysq], None, None, None, "H", s, v, 0, ysq, y, v)
                            )
                        break
            if xim and quiet and x != v:
                moves.append((s, xsq, "~", no_victims, None, None, None, "X", s, v, x, xsq, x, v))

    def _mimic_advance(self, b: list[int], me: int, s: int, v: int, moves: list[RawMove]) -> None:
        """ADV mimicry: the Mimotaur steps like a friendly Advancer, taking enemy Advancers only."""
        prey_a = _CODES[-me][ADVANCER]
        prey_m = _CODES[-me][MIMOTAUR]
        for e, sides, _zone in self._steps[0 if me > 0 else 1][s]:
            if b[e]:
                continue
            if not any(b[q] == prey_a for q in sides):
                continue
            victims = tuple(q for q in sides if b[q] == prey_a or b[q] == prey_m)
            removed: tuple[int, ...] = ()
            for q in victims:
                removed += (q, b[q], 0)
            # A relocation and a triple per victim (Shape.RELOCATION_AND_VICTIMS)
            moves.append((s, e, "x", victims, None, None, None, "A", s, v, 0, e, 0, v, *removed))

    # --- tags and explanations ------------------------------------------------

    def tag_allowed(self, raw: RawMove, tag: str) -> bool:
        """Whether the power named by ``tag`` (``A C D G H J X``) can produce the move.

        A plain slide is made with no named power, so it accepts no tag.
        """
        tags: Any = raw[TAGS]
        return bool(tags) and len(tag) == 1 and tag.upper() in tags

    def explain_illegal(self, board: Board, move: Move) -> str | None:
        """Why ``move`` is illegal when the reason is specific to Rebel Fury.

        Covers a move that would repeat an earlier position, a petrified piece
        (naming the gazers) and a Capricorn stop that would have to strike.
        """
        b = board.squares
        me = board.side
        origin = move.from_square
        code = b[origin]
        if code * me <= 0:
            return None
        for raw in self.generate(board):
            if to_move(raw) == move and board.has_occurred(board.hash_after(raw)):
                return "it would repeat an earlier position, and repetition is not permitted"
        kind = code * me
        # The sentence is the one the board's annotations show (one owner of the wording).
        from exochess.variants.rebelfury.annotations import petrified_reason

        petrified = petrified_reason(self, b, origin)
        if petrified is not None:
            return petrified
        if kind == CAPRICORN and move.actions[0].kind == "-":
            for raw in self.generate(board):
                if raw[FROM] == origin and raw[TO] == move.to_square and raw[KIND] == "x":
                    return (
                        f"a Capricorn stopping on {square_name(move.to_square)} strikes automatically: "
                        f"play {to_move(raw)}"
                    )
        return None
