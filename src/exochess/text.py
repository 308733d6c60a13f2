"""Plain-text board diagrams with coordinates, for terminals and logs."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from exochess.geometry import square

if TYPE_CHECKING:
    from exochess.board import Board


def render(board: Board, *, highlight: Collection[int] = (), flipped: bool = False) -> str:
    """The board as text: rank numbers on the left, file letters below.

    Highlighted squares (for example the last move) are shown in brackets.

    >>> from exochess import Board
    >>> print(render(Board("fugue")).splitlines()[0])
    8  w  l  q  k  s  a  u  i
    """
    geo = board.geometry
    label_width = len(str(geo.height))
    ranks = range(geo.height) if flipped else range(geo.height - 1, -1, -1)
    files = list(range(geo.width - 1, -1, -1) if flipped else range(geo.width))
    lines = []
    b = board.squares
    for rank in ranks:
        cells = []
        for file in files:
            sq = square(file, rank)
            code = b[sq]
            symbol = board.variant.letters[code] if code else "."
            cells.append(f"[{symbol}]" if sq in highlight else f" {symbol} ")
        lines.append(f"{rank + 1:>{label_width}} " + "".join(cells).rstrip())
    lines.append(" " * label_width + " " + "".join(f" {chr(97 + f)} " for f in files).rstrip())
    return "\n".join(lines)
