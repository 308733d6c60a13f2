"""The evaluation interface shared by every game, and a generic fallback.

An evaluation has two parts:

* a **piece-square table** ``table[(square << 5) | (code & 31)]`` (centipawns, from
  White's point of view: White pieces positive, Black pieces negative).  The search
  keeps this part up to date *incrementally* from the ``(square, before, after)``
  triples of each raw move, the same triples the board uses to update its Zobrist
  hash, so material and placement cost a few additions per move in every game;
* a **dynamic** term ``dynamic(board)`` (White's point of view) for what depends on
  several pieces at once (frozen pieces, shield cover, king exposure, gaze ...).
  It is computed at the leaves only when the cheap part is close to the window
  (lazy evaluation, see :mod:`exochess.engine.search`).

Subclasses give piece values, a placement bonus per piece and square, and the
dynamic term.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from mypy_extensions import mypyc_attr

from exochess.board import Board
from exochess.geometry import Geometry
from exochess.variant import Variant

if TYPE_CHECKING:
    from exochess.engine.levels import Level


class SlideTables(NamedTuple):
    """Precomputed rays for counting the empty squares a sliding piece can reach (mobility).

    A piece on ``s`` reaches ``totals[s]`` squares on an empty board; the first piece ``t``
    on one of its rays hides ``shadows[s][t]`` of them (``t`` and everything behind it).  A
    walk then only subtracts at the blockers instead of counting every empty square.
    """

    rays: tuple[tuple[tuple[int, ...], ...], ...]
    """``rays[s]``: the non-empty rays from ``s``, nearest square first."""
    totals: tuple[int, ...]
    """``totals[s]``: the squares of all of ``rays[s]``."""
    shadows: tuple[tuple[int, ...], ...]
    """``shadows[s][t]``: for ``t`` on a ray from ``s``, the squares from ``t`` to that ray's end."""


def slide_tables(size: int, rays_of: Sequence[Sequence[Sequence[int]]]) -> SlideTables:
    """:class:`SlideTables` of the rays ``rays_of[s]`` of each of the ``size`` squares."""
    rays = tuple(tuple(tuple(ray) for ray in rays_of[s] if ray) for s in range(size))
    totals = tuple(sum(len(ray) for ray in rays[s]) for s in range(size))
    shadows = []
    for s in range(size):
        shadow = [0] * size
        for ray in rays[s]:
            for i, t in enumerate(ray):
                shadow[t] = len(ray) - i
        shadows.append(tuple(shadow))
    return SlideTables(rays, totals, tuple(shadows))


def slide_mobility(b: list[int], squares: list[int], tables: SlideTables) -> int:
    """The empty squares the pieces on ``squares`` reach by sliding along ``tables``' rays
    (each piece counted separately: a square two pieces reach counts twice).

    >>> from exochess import Board
    >>> board = Board("fugue", fen="8/8/8/8/3Q4/8/8/8 w")
    >>> slide_mobility(board.squares, [3 * 16 + 3], slide_tables(board.geometry.size, board.geometry.rays))
    27
    """
    rays, totals, shadows = tables
    n = 0
    for s in squares:
        n += totals[s]
        shadow = shadows[s]
        for ray in rays[s]:
            for t in ray:
                if b[t]:
                    n -= shadow[t]
                    break
    return n


def open_directions(
    squares: Iterable[int], near: Sequence[frozenset[int]], occupied: set[int], stuck: Container[int]
) -> int:
    """The empty neighbours (``near[s]`` minus ``occupied``) of the pieces on ``squares``, leaving
    out the pieces on ``stuck`` (frozen or petrified: they have no move): the first steps of
    their slides, a cheap measure of mobility.

    >>> near = [frozenset({1, 2}), frozenset({0, 2}), frozenset({0, 1})]
    >>> open_directions([0, 1], near, {0, 1}, stuck=())
    2
    """
    n = 0
    for s in squares:
        if s not in stuck:
            n += len(near[s] - occupied)
    return n


def placement_index(geo: Geometry, sq: int, white: bool) -> int:
    """Index of square ``sq`` in a placement table (:attr:`Evaluator.PLACEMENT`): ranks counted
    from the owner's side, files folded onto the left half (``a`` and ``h`` share a cell), so a
    table is symmetric left to right and between the colours by construction.

    >>> from exochess.geometry import geometry
    >>> g = geometry(8, 8)
    >>> placement_index(g, 0, True), placement_index(g, 7, True), placement_index(g, 7 * 16 + 1, False)
    (0, 0, 1)
    """
    f, r = sq & 15, sq >> 4
    own_rank = r if white else geo.height - 1 - r
    half = (geo.width + 1) // 2
    return own_rank * half + min(f, geo.width - 1 - f)


# Evaluations of games outside the compiled build subclass it in plain Python.
@mypyc_attr(allow_interpreted_subclasses=True)
class Evaluator:
    """Static evaluation of one game.  Subclass per game; the default is generic."""

    levels: ClassVar[Mapping[int, Level] | None] = None
    """This game's playing levels 1-8 (None: :data:`exochess.engine.levels.LEVELS`)."""
    values: ClassVar[dict[str, int]] = {}
    """Piece letter -> material value in centipawns (royal pieces: 0, their loss ends the game).
    A letter left out takes the value the game declares (:attr:`Variant.piece_values`)."""
    default_value: ClassVar[int] = 300
    """Value of a letter neither :attr:`values` nor the game's ``piece_values`` gives."""
    lazy_margin: ClassVar[int] = 250
    """Largest size (cp) the dynamic term is expected to reach; used for lazy evaluation."""
    tempo: ClassVar[int] = 10
    """Bonus for the side to move."""
    delta_margin: ClassVar[int] = 150
    """Quiescence skips the captures that cannot lift the score to within this margin of alpha."""
    quiescence_full: ClassVar[int] = 8
    """Plies of quiescence that try every capture; after them only recaptures of the piece that
    has just captured are tried."""
    quiescence_max: ClassVar[int] = 16
    """Plies of quiescence in all: after them the stand pat scores the position."""
    MOBILITY: ClassVar[int] = 0
    """Centipawns per empty square a side's sliding pieces can reach (0: the game's
    evaluator counts no mobility)."""
    TUNABLE: ClassVar[tuple[str, ...]] = ()
    """The names of the integer weights of :meth:`dynamic` that multiply a count (so that
    ``bench/tune.py`` can fit them with the tables as a linear model)."""
    PLACEMENT: ClassVar[dict[str, tuple[int, ...]]] = {}
    """Piece letter -> placement bonus (cp) per square, seen from the piece's owner: rank by
    rank from its first rank, each rank's files from the edge to the centre (see
    :func:`placement_index`).  A letter left out gets :meth:`placement`'s centralisation.
    The games' tables are fitted to self-play results by ``bench/tune.py``."""

    variant: Variant
    table: list[int]
    """``table[(sq << 5) | (code & 31)]``: value of piece ``code`` on ``sq``, White positive."""
    value_of: list[int]
    """``value_of[code & 31]``: absolute material value of a piece code (for move ordering)."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        geo = variant.geometry
        self.table = [0] * (geo.size << 5)
        self.value_of = [0] * 32
        # The evaluator's own values first, then the ones the game declares for any evaluator.
        values = {**variant.piece_values, **self.values}
        for code, letter in variant.letters.items():
            upper = letter.upper()
            value = values.get(upper, self.default_value)
            if upper == variant.royal:
                value = values.get(upper, 0)
            self.value_of[code & 31] = value
            white = code > 0
            sign = 1 if white else -1
            for sq in geo.squares:
                self.table[(sq << 5) | (code & 31)] = sign * (value + self.placement(upper, sq, white))

    # --- hooks -------------------------------------------------------------------------

    def placement(self, letter: str, sq: int, white: bool) -> int:
        """Bonus (cp) of a piece of type ``letter`` and colour ``white`` standing on ``sq``.

        A letter of :attr:`PLACEMENT` reads its table; any other gets a little reward for the
        centre (every piece of these games moves in several directions, so central squares
        give more moves).
        """
        geo = self.variant.geometry
        cells = self.PLACEMENT.get(letter)
        if cells is not None:
            return cells[placement_index(geo, sq, white)]
        f, r = sq & 15, sq >> 4
        cf = abs(2 * f - (geo.width - 1))
        cr = abs(2 * r - (geo.height - 1))
        spread = geo.width + geo.height - 2
        return 12 - (12 * (cf + cr)) // max(1, spread)

    def dynamic(self, board: Board) -> int:
        """Terms that need the whole position (White's point of view, centipawns)."""
        return 0

    # --- helpers -------------------------------------------------------------------------

    def static(self, board: Board) -> int:
        """Piece-square sum of a position (White's point of view), computed from scratch."""
        b = board.squares
        table = self.table
        return sum(table[(sq << 5) | (b[sq] & 31)] for sq in board.geometry.squares if b[sq])

    def evaluate(self, board: Board) -> int:
        """Full evaluation from the side to move's point of view (for tests and tools)."""
        return board.side * (self.static(board) + self.dynamic(board)) + self.tempo


# a game may tune it like its own (exochess match's values=, mobility=): an interpreted subclass
@mypyc_attr(allow_interpreted_subclasses=True)
class GenericEvaluator(Evaluator):
    """The evaluation of a game without its own: material (the values the game declares in
    :attr:`Variant.piece_values`, else :attr:`default_value` a piece), a little centralisation
    and the tempo bonus; no dynamic term."""
