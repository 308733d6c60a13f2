"""The one FEN reader and writer shared by the three slow reference generators.

The references (``tests/variants/fugue/test_reference.py``,
``tests/variants/interweave/reference.py``, ``tests/variants/rebelfury/reference.py``)
check the library's fast generators, so they must not lean on the library: this module
deliberately does not import :mod:`exochess.fen`.  If the library's FEN code had a bug,
a reference that read positions through it would inherit the bug and agree with it.

A placement is a dict ``{(file, rank): letter}`` with zero-based coordinates (``a1`` is
``(0, 0)``), which is the plainest form to write rules against.  Boards are square, so
the size is the number of ranks in the FEN.

>>> placement, side, rest = read("4k3/8/8/8/8/8/8/K7 w - 000000")
>>> placement, side, rest
({(4, 7): 'k', (0, 0): 'K'}, 'w', ['-', '000000'])
>>> write(placement, 8, side, *rest)
'4k3/8/8/8/8/8/8/K7 w - 000000'
>>> square_name((11, 11)), parse_square_name("l12")
('l12', (11, 11))
"""

from __future__ import annotations

Coord = tuple[int, int]
Placement = dict[Coord, str]

FILES = "abcdefghijklmnopqrstuvwxyz"


def parse_placement(text: str) -> Placement:
    """The pieces of a FEN placement field (ranks from the top, runs of empty squares as numbers).

    Numbers may have several digits (``12`` on a 12x12 board).  A rank whose width differs
    from the number of ranks is a mistake in a test's FEN, so it fails loudly.
    """
    rows = text.split("/")
    size = len(rows)
    placement: Placement = {}
    for index, row in enumerate(rows):
        rank = size - 1 - index
        file = 0
        digits = ""
        for ch in row + "/":  # the sentinel flushes a trailing run of empty squares
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                file += int(digits)
                digits = ""
            if ch != "/":
                placement[(file, rank)] = ch
                file += 1
        if file != size:
            raise ValueError(f"rank {rank + 1} of {text!r} is {file} squares wide, not {size}")
    return placement


def format_placement(placement: Placement, size: int) -> str:
    """Inverse of :func:`parse_placement` for a ``size`` x ``size`` board."""
    rows = []
    for rank in range(size - 1, -1, -1):
        row, empty = "", 0
        for file in range(size):
            letter = placement.get((file, rank))
            if letter is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += letter
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def read(fen: str) -> tuple[Placement, str, list[str]]:
    """Placement, side to move (``"w"``/``"b"``) and the game's further fields, untouched."""
    fields = fen.split()
    return parse_placement(fields[0]), fields[1], fields[2:]


def write(placement: Placement, size: int, side: str, *rest: str) -> str:
    """Inverse of :func:`read`."""
    return " ".join([format_placement(placement, size), side, *rest])


def square_name(c: Coord) -> str:
    """``(4, 3)`` -> ``"e4"``."""
    return FILES[c[0]] + str(c[1] + 1)


def parse_square_name(text: str) -> Coord:
    """``"e4"`` -> ``(4, 3)``."""
    return (FILES.index(text[0]), int(text[1:]) - 1)
