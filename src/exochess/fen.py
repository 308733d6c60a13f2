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
                run = int(row[i:j])
                if run == 0 or row[i] == "0":
                    raise FenError(f"rank {rank + 1}: an empty run cannot be {row[i:j]!r}")
                file += run
                i = j
                continue
            code = codes.get(ch)
            if code is None:
                raise FenError(f"rank {rank + 1}: {ch!r} is not a piece letter of this game")
            if file >= geo.width:
                break
            board[rank * STRIDE + file] = code
            file += 1
            i += 1
        if file > geo.width:
            raise FenError(f"rank {rank + 1} ({row!r}) describes more than {geo.width} squares")
    return board


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
