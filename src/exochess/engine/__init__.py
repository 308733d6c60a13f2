"""The exochess engine: alpha-beta search with per-game evaluation, for every game.

>>> from exochess import Board
>>> from exochess.engine import best_move
>>> board = Board("fugue", fen="3k4/8/8/8/8/8/8/3QK3 w")
>>> str(best_move(board, level=8, movetime_ms=500))
'd1xd8'
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from exochess.board import Board
from exochess.engine.levels import LEVELS, Level, level
from exochess.engine.levels import level as get_level
from exochess.engine.limits import Limits
from exochess.engine.search import MATE, MAX_MULTIPV, Analysis, EngineError, Searcher, SearchOptions
from exochess.move import Move


def best_move(
    board: Board,
    level: int = 8,
    *,
    movetime_ms: int | None = None,
    seed: int = 0,
    searcher: Searcher | None = None,
) -> Move:
    """The move the engine plays at ``level`` (1-8) in ``board``'s position.

    Each game has its own table of levels (:mod:`exochess.engine.levels`).
    ``movetime_ms`` bounds the thinking time (each level uses its share of it;
    None = the level's default).  ``seed`` makes the weak levels' noise
    reproducible.  ``searcher`` reuses a table across the moves of a game.
    The board is not modified.  Raises :class:`EngineError` if the game is over.
    """
    lv = get_level(level, board.variant.name)
    s = searcher if searcher is not None else Searcher()
    limits = Limits(movetime_ms=lv.movetime_ms(movetime_ms))
    return s.search(board, limits, options=lv.options(), seed=seed).best


def analyse(
    board: Board,
    *,
    depth: int | None = None,
    movetime_ms: int | None = None,
    nodes: int | None = None,
    on_iteration: Callable[[Analysis], None] | None = None,
    searcher: Searcher | None = None,
    multipv: int = 1,
    searchmoves: Collection[Move] | None = None,
) -> Analysis:
    """Full-strength analysis of ``board`` (not modified).

    Stops at ``depth``, ``movetime_ms`` or ``nodes``, whichever comes first
    (with none given: 1000 ms).  ``on_iteration`` is called with the
    :class:`Analysis` of every completed iteration.  ``multipv`` lines (best
    first, in :meth:`Analysis.all_lines`) and ``searchmoves`` (the root moves to
    consider) are :meth:`Searcher.search`'s.
    """
    if depth is None and movetime_ms is None and nodes is None:
        movetime_ms = 1000
    s = searcher if searcher is not None else Searcher()
    limits = Limits(depth=depth, movetime_ms=movetime_ms, nodes=nodes)
    return s.search(board, limits, on_iteration=on_iteration, multipv=multipv, searchmoves=searchmoves)


__all__ = [
    "LEVELS",
    "MATE",
    "MAX_MULTIPV",
    "Analysis",
    "EngineError",
    "Level",
    "Limits",
    "SearchOptions",
    "Searcher",
    "analyse",
    "best_move",
    "level",
]
