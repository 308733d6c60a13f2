"""Perft: count the legal move sequences of a given length.

Move identity is the canonical text and a position where the game is over has
no moves.  The history starts at the board's position, so repetition rules
apply inside the tree.  Every counted node is played and undone, which makes
perft a test of make/unmake and hashing as well as of move generation.

>>> from exochess import Board
>>> perft(Board("fugue"), 2)
484
"""

from __future__ import annotations

from collections.abc import Callable

from exochess.board import Board
from exochess.rawmove import to_move


def perft(board: Board, depth: int) -> int:
    """Number of legal move sequences of length ``depth`` from the board's position."""
    if depth < 0:
        raise ValueError("perft depth must be >= 0")
    if depth == 0:
        return 1
    moves = board.raw_moves()
    # board.push_raw(raw), not a bound method kept in a local: compiled, the first is a direct
    # C call, the second a call through a Python object (CPython 3.11 runs both alike).
    if depth == 1:
        # Play and undo each leaf too: the benchmark measures full make/unmake.
        for raw in moves:
            board.push_raw(raw)
            board.pop_raw()
        return len(moves)
    total = 0
    for raw in moves:  # the list is never mutated: push/pop replace the board's cache
        board.push_raw(raw)
        total += perft(board, depth - 1)
        board.pop_raw()
    return total


def divide(
    board: Board, depth: int, progress: Callable[[int, int], None] | None = None
) -> list[tuple[str, int]]:
    """Perft split by root move: ``[(move text, count), ...]`` sorted by move text.

    ``progress(done, total)`` is called after each root move if given.
    """
    if depth < 1:
        raise ValueError("divide needs depth >= 1")
    roots = list(board.raw_moves())
    results = []
    for done, raw in enumerate(roots, start=1):
        board.push_raw(raw)
        results.append((str(to_move(raw)), perft(board, depth - 1)))
        board.pop_raw()
        if progress is not None:
            progress(done, len(roots))
    return sorted(results)
