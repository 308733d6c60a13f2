"""Reading and writing the placement part of a FEN, for any board size.

Ranks are listed from the top; runs of empty squares are decimal numbers that
may have two digits on large boards (``12``).  A rank that is too short is
padded with empty squares on the right, as some published diagrams need
(``1P`` reads as ``1P6`` on an 8-wide board).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from exochess.errors import FenError
from exochess.geometry import STRIDE, Geometry

DIGITS = frozenset("0123456789")
"""The digits of a FEN.  ``str.isdigit`` is not enough: it accepts "²" or "٣", which
``int`` then refuses or reads as a number no FEN writer means."""


def parse_placement(text: str, geo: Geometry, codes: Mapping[str, int]) -> list[int]:
    """Parse a placement field into a board list of piece codes.

    ``codes`` maps each piece letter (both cases) to its signed code.

    >>> from exochess.geometry import geometry
    >>> b = parse_placement("1P/8", geometry(8, 2), {"P": 1, "p": -1})
    >>> b[16 + 1], b.count(1)
    (1, 1)
    """
    rows = text.split("/")
    if len(rows) != geo.height:
        raise FenError(
            f"the placement has {len(rows)} ranks, this {geo.width}x{geo.height} board has {geo.height}"
        )
    board = [0] * geo.size
    for index, row in enumerate(rows):
        rank = geo.height - 1 - index
        file = 0
        i = 0
        while i < len(row):
            ch = row[i]
            if ch in DIGITS:
                j = i
                while j < len(row) and row[j] in DIGITS:
                    j += 1
                digits = row[i:j]
                # A run never exceeds the board's width, so more than two digits is an error
                # before ``int`` is asked (thousands of digits would exceed its limit).
                if row[i] == "0":
                    raise FenError(f"rank {rank + 1}: an empty run cannot be {digits[:8]!r}")
                if len(digits) > _MAX_RUN_DIGITS:
                    raise FenError(_too_long(rank, row, geo))
                file += int(digits)
                if file > geo.width:
                    raise FenError(_too_long(rank, row, geo))
                i = j
                continue
            code = codes.get(ch)
            if code is None:
                raise FenError(f"rank {rank + 1}: {ch!r} is not a piece letter of this game")
            if file >= geo.width:
                # a piece past the end of the rank: refusing it is the only safe reading
                # (dropping it silently could remove a King and decide the game)
                raise FenError(_too_long(rank, row, geo))
            board[rank * STRIDE + file] = code
            file += 1
            i += 1
    return board


_MAX_RUN_DIGITS = 2
"""Boards are at most 16 wide, so a run of empty squares has one or two digits."""


def _too_long(rank: int, row: str, geo: Geometry) -> str:
    """The message for a rank that describes more squares than the board is wide."""
    shown = row if len(row) <= 40 else row[:37] + "..."
    return f"rank {rank + 1} ({shown!r}) describes more than {geo.width} squares"


def format_placement(board: Sequence[int], geo: Geometry, letters: Mapping[int, str]) -> str:
    """Write a board list as a placement field (inverse of :func:`parse_placement`)."""
    rows = []
    for rank in range(geo.height - 1, -1, -1):
        row = []
        empty = 0
        base = rank * STRIDE
        for file in range(geo.width):
            code = board[base + file]
            if code == 0:
                empty += 1
                continue
            if empty:
                row.append(str(empty))
                empty = 0
            row.append(letters[code])
        if empty:
            row.append(str(empty))
        rows.append("".join(row))
    return "/".join(rows)
