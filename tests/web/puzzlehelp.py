"""Helpers of the puzzle tests: the shipped puzzles, and a move that surely fails one."""

from __future__ import annotations

from exochess import Board
from exochess.engine import analyse
from exochess.puzzles import Puzzle, load_puzzles
from exochess.variants import all_variants

GAMES = [v.name for v in all_variants() if load_puzzles(v)]


def puzzle_of(game: str, puzzle_id: str) -> Puzzle:
    """The shipped puzzle ``puzzle_id`` of ``game``."""
    return next(p for p in load_puzzles(game) if p.id == puzzle_id)


def solver_moves(puzzle: Puzzle) -> list[str]:
    """The solver's moves of the solution."""
    return puzzle.solution[0::2]


LOSING_NODES = 800
"""The search that picks a failing move: counted in nodes, so the same move on any machine."""
LOSING_CP = 100
"""The least score for the opponent after a move called failing: far below the site's winning
bar (DECISIVE_CP), so that no longer search on the server can call it winning."""


def losing_move(puzzle: Puzzle, single_action: bool = False) -> str | None:
    """A first move other than the solution's that no engine could call as good: after it the
    opponent wins by force, or (of the first 40) the one the opponent likes best, if it leaves
    them at least :data:`LOSING_CP`; None when there is none (a forced move, or every move
    keeps an edge).  ``single_action``: a move of one action (entered by two clicks)."""
    board = Board(puzzle.variant, fen=puzzle.fen)
    worst: tuple[int, str] | None = None
    for move in list(board.legal_moves)[:40]:
        text = str(move)
        if text == puzzle.solution[0] or (single_action and len(move.actions) != 1):
            continue
        board.push(move)
        try:
            if board.outcome() is not None:
                continue  # it ends the game: perhaps a win the site accepts
            found = analyse(board, nodes=LOSING_NODES)
        finally:
            board.pop()
        if found.mate is not None and found.mate > 0:
            return text  # the opponent wins by force
        score = found.score_cp  # the opponent's view
        if score >= LOSING_CP and (worst is None or score > worst[0]):
            worst = (score, text)
    return None if worst is None else worst[1]
