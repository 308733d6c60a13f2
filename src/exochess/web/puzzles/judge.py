"""An attempt at a puzzle judged move by move, with the position to show (the shape of the
analysis board's, :func:`~exochess.web.game.positions.position_json`).

The client sends the solver's own moves so far; each is compared with the solution's move
(canonical text), and the opponent's reply of the solution follows a right one.  A move other
than the solution's is accepted at once when it wins the game there and then, or when the
collection lists it as an alternative; otherwise it is left for the engine to judge
(:data:`CHECK`, see :mod:`exochess.web.puzzles.service` and decision 0024).

CPU work (it lists legal moves): the routes run it in a worker pool.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from exochess.board import Board
from exochess.errors import ExochessError
from exochess.puzzles import Puzzle
from exochess.web.domain import N_, IllegalMove, InvalidRequest
from exochess.web.game.analysis import tree_after
from exochess.web.game.positions import color_name, position_json

PLAYING, SOLVED, FAILED, CHECK = "playing", "solved", "failed", "check"
"""An attempt's states; :data:`CHECK`: its last move left the solution and only the engine can
tell whether it wins as clearly (never sent to a client)."""
MAX_ATTEMPT_MOVES = 8
"""Solver moves an attempt may carry (a solution has at most 8: 15 plies)."""


@dataclass
class Verdict:
    """Where an attempt stands after the solver's moves."""

    status: str
    line: list[str] = field(default_factory=list)
    """Every move played from the puzzle's position: the solver's and the replies."""
    departed: int | None = None
    """The index in the solution of the solver's move that left it (None: none did)."""
    alternative: bool = False
    """Solved by a move other than the solution's."""
    ends_game: bool = False
    """The solution ends the game with the solver's win (a royal capture, no move left)."""
    remaining: int = 0
    """Plies of the solution after the move that left it (0 when none did)."""


def _solver_wins(board: Board, solver: bool) -> bool:
    outcome = board.outcome()
    return outcome is not None and outcome.winner == solver


def ends_game(puzzle: Puzzle) -> bool:
    """Whether the solution ends the game with the solver's win (CPU work: replays it)."""
    board = Board(puzzle.variant, fen=puzzle.fen)
    solver = board.turn
    for text in puzzle.solution:
        board.push_text(text)
    return _solver_wins(board, solver)


def judge(puzzle: Puzzle, moves: list[str]) -> tuple[Verdict, Board]:
    """The attempt after the solver's ``moves``, and the board after them (and the replies).

    Raises :class:`IllegalMove` for a move that is not legal, :class:`InvalidRequest` for moves
    after the attempt is over."""
    if len(moves) > MAX_ATTEMPT_MOVES:
        raise InvalidRequest(N_("at most {count} moves"), count=MAX_ATTEMPT_MOVES)
    solution = puzzle.solution
    board = Board(puzzle.variant, fen=puzzle.fen)
    solver = board.turn
    verdict = Verdict(PLAYING)
    for i, text in enumerate(moves):
        at = 2 * i
        if verdict.status != PLAYING:
            raise InvalidRequest(N_("the puzzle is over: no more moves"))
        try:
            move = board.parse_move(text)
        except ExochessError as exc:
            raise IllegalMove(
                N_("move {number} ({move}): {reason}"), number=i + 1, move=text, reason=str(exc)
            ) from exc
        written = str(move)
        board.push(move)
        verdict.line.append(written)
        if written == solution[at]:
            if at + 1 < len(solution):
                board.push_text(solution[at + 1])
                verdict.line.append(solution[at + 1])
            else:
                verdict.status = SOLVED
            continue
        verdict.departed, verdict.remaining = at, len(solution) - at - 1
        if _solver_wins(board, solver) or written in puzzle.alternatives.get(str(at), ()):
            verdict.status, verdict.alternative = SOLVED, True
        elif board.outcome() is not None:
            verdict.status = FAILED  # the game ended there, not with the solver's win
        else:
            verdict.status = CHECK
    if verdict.status == CHECK:
        verdict.ends_game = ends_game(puzzle)
    return verdict, board


def attempt_position(puzzle: Puzzle, moves: list[str], prefix: list[str]) -> tuple[Verdict, dict[str, Any]]:
    """:func:`judge`, with the position after the moves as the pages show it: its legal moves
    (after the actions ``prefix``) while the attempt goes on, none once it is over."""
    verdict, board = judge(puzzle, moves)
    playing = verdict.status == PLAYING
    if playing and prefix:
        tree_after(board, prefix)  # checks the prefix: a clear error for a wrong one
    position = position_json(board, prefix if playing else ())
    if not playing:
        position["legal"], position["legal_count"] = [], 0
    return verdict, position


def start_position(puzzle: Puzzle) -> dict[str, Any]:
    """The puzzle's position with its legal moves, and the solver's side."""
    board = Board(puzzle.variant, fen=puzzle.fen)
    return {"color": color_name(board.turn), "position": position_json(board)}


def solution_position(puzzle: Puzzle) -> dict[str, Any]:
    """The whole solution played from the puzzle's position: its FENs and moves (no legal moves)."""
    board = Board(puzzle.variant, fen=puzzle.fen)
    for text in puzzle.solution:
        board.push_text(text)
    position = position_json(board)
    position["legal"], position["legal_count"] = [], 0
    return position
