"""Board geometry: square numbering, directions and precomputed rays.

Every board in exochess, whatever its size (up to 16 x 16), numbers its squares
the same way: ``square = rank * 16 + file`` with ``file`` and ``rank`` counted
from zero.  Because the numbering does not depend on the board width, a
:class:`~exochess.move.Move` can name its squares without knowing which board it
belongs to, and the canonical move text is the same for every game.

Rays, neighbours and knight targets are computed once per board size and shared
by every board of that size; move generators walk these tuples instead of doing
bounds arithmetic in their inner loops.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from itertools import compress
from typing import Final

STRIDE: Final = 16
"""Index distance between two ranks (the numbering is 16 squares wide)."""

MAX_SIZE: Final = 16
"""Largest supported width and height."""

ORTHOGONAL: Final[tuple[tuple[int, int], ...]] = ((1, 0), (-1, 0), (0, 1), (0, -1))
"""The four rook directions, as (file delta, rank delta)."""

DIAGONAL: Final[tuple[tuple[int, int], ...]] = ((1, 1), (1, -1), (-1, 1), (-1, -1))
"""The four bishop directions, as (file delta, rank delta)."""

QUEEN: Final[tuple[tuple[int, int], ...]] = ORTHOGONAL + DIAGONAL
"""All eight directions: indices 0-3 are orthogonal, 4-7 diagonal."""

KNIGHT: Final[tuple[tuple[int, int], ...]] = (
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
)
"""The eight knight offsets."""

OPPOSITE: Final[tuple[int, ...]] = tuple(QUEEN.index((-dx, -dy)) for dx, dy in QUEEN)
"""``OPPOSITE[d]`` is the index of the direction opposite to direction ``d``."""


def square(file: int, rank: int) -> int:
    """Return the square index of a zero-based file and rank.

    >>> square(4, 3)
    52
    """
    return rank * STRIDE + file


def square_file(sq: int) -> int:
    """Return the zero-based file of a square."""
    return sq & 15


def square_rank(sq: int) -> int:
    """Return the zero-based rank of a square."""
    return sq >> 4


def square_name(sq: int) -> str:
    """Return the algebraic name of a square (``a1``, ``l12``).

    >>> square_name(square(11, 11))
    'l12'
    """
    return chr(97 + (sq & 15)) + str((sq >> 4) + 1)


def parse_square(name: str) -> int:
    """Parse an algebraic square name such as ``e4`` or ``k10``.

    Raises :class:`ValueError` for anything that is not a letter ``a``-``p``
    followed by a rank number 1-16.

    >>> parse_square("k10") == square(10, 9)
    True
    """
    # at most three characters: a rank of thousands of digits is no square (nor a job for int)
    digits = name[1:]
    if not 2 <= len(name) <= 3 or not "a" <= name[0] <= "p" or not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"not a square name: {name!r}")
    if name[1] == "0":
        raise ValueError(f"not a square name: {name!r}")
    rank = int(name[1:])
    if not 1 <= rank <= MAX_SIZE:
        raise ValueError(f"not a square name: {name!r}")
    return square(ord(name[0]) - 97, rank - 1)


def victim_order(sq: int) -> tuple[int, int]:
    """Sort key of the canonical victim list: by file, then numerically by rank."""
    return (sq & 15, sq >> 4)


class Geometry:
    """Precomputed tables for one board size.

    Obtain instances through :func:`geometry`, which caches them, so that all
    boards of a size share one set of tables.
    """

    __slots__ = (
        "height",
        "indices",
        "knight_targets",
        "neighbours",
        "rays",
        "size",
        "squares",
        "width",
    )

    width: int
    """Number of files."""
    height: int
    """Number of ranks."""
    size: int
    """Length of a board list (``height * 16``); indices of off-board files are unused."""
    squares: tuple[int, ...]
    """Every square of the board, rank 1 first, files left to right."""
    rays: tuple[tuple[tuple[int, ...], ...], ...]
    """``rays[sq][d]``: the squares from ``sq`` outward in direction ``QUEEN[d]``, edge excluded."""
    neighbours: tuple[tuple[int, ...], ...]
    """``neighbours[sq]``: the adjacent squares (eight directions) that are on the board."""
    knight_targets: tuple[tuple[int, ...], ...]
    """``knight_targets[sq]``: squares a knight's move away that are on the board."""
    indices: tuple[int, ...]
    """Every index of a board list, ``0 .. size - 1``: ``compress(indices, squares)`` yields the
    occupied squares (what :meth:`occupied` returns), for loops that cannot afford the call."""

    def __init__(self, width: int, height: int) -> None:
        if not (1 <= width <= MAX_SIZE and 1 <= height <= MAX_SIZE):
            raise ValueError(f"board size {width}x{height} is outside 1x1 .. 16x16")
        self.width = width
        self.height = height
        self.size = height * STRIDE
        self.squares = tuple(square(f, r) for r in range(height) for f in range(width))
        # A tuple, not a range: compress() walks a tuple faster (about 20 instructions a square).
        self.indices = tuple(range(self.size))
        empty: tuple[int, ...] = ()
        rays: list[tuple[tuple[int, ...], ...]] = [()] * self.size
        neigh: list[tuple[int, ...]] = [empty] * self.size
        knights: list[tuple[int, ...]] = [empty] * self.size
        for sq in self.squares:
            f, r = sq & 15, sq >> 4
            per_dir = []
            for dx, dy in QUEEN:
                ray = []
                x, y = f + dx, r + dy
                while 0 <= x < width and 0 <= y < height:
                    ray.append(square(x, y))
                    x += dx
                    y += dy
                per_dir.append(tuple(ray))
            rays[sq] = tuple(per_dir)
            neigh[sq] = tuple(ray[0] for ray in per_dir if ray)
            knights[sq] = tuple(
                square(f + dx, r + dy) for dx, dy in KNIGHT if 0 <= f + dx < width and 0 <= r + dy < height
            )
        self.rays = tuple(rays)
        self.neighbours = tuple(neigh)
        self.knight_targets = tuple(knights)

    def occupied(self, squares: Sequence[int]) -> Iterator[int]:
        """The squares of a board list that hold a piece, in order.

        ``compress()`` skips the empty squares at C speed: generators and evaluations
        that visit every piece start with this instead of a Python loop over all squares.
        """
        return compress(self.indices, squares)

    def on_board(self, sq: int) -> bool:
        """Whether ``sq`` is a square of this board."""
        return 0 <= sq < self.size and (sq & 15) < self.width

    def __repr__(self) -> str:
        return f"geometry({self.width}, {self.height})"


@cache
def geometry(width: int, height: int) -> Geometry:
    """Return the shared :class:`Geometry` of a board size."""
    return Geometry(width, height)
