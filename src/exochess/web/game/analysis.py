"""Free positions: the analysis board's answers and a new game's set-up position, read from
what a client sends (CPU work, run in the bounded pool of free positions)."""

from __future__ import annotations

import json
from typing import Any

from exochess.board import Board
from exochess.errors import ExochessError, FenError, UnknownVariantError
from exochess.web.domain import N_, Color, GameOver, IllegalMove, InvalidRequest, PositionTooLarge, TooLarge
from exochess.web.game.positions import PositionTooLargeError, legal_tree, position_json

MAX_ANALYSIS_MOVES = 1000
MAX_START_MOVES = 1000
"""Legal moves a game's set-up starting position may have: a live game keeps its board's list
of legal moves in memory, and checks moves against it (the starting positions of the three
games have 22 to 118; the position of issue 17 has 45,136)."""
POSITION_TIME_LIMIT_S = 15.0
"""Wall-clock bound on serving a free position (analysis board, a new game's FEN): past it the
client gets "too large" instead of a stall (the setting ``EXOCHESS_POSITION_TIME_LIMIT_S``
changes it, for a slow or crowded machine)."""


def analysis_board(variant: str, fen: str | None, moves: list[str]) -> Board:
    """A free position for the analysis board: ``moves`` played from ``fen`` (or the start)."""
    if len(moves) > MAX_ANALYSIS_MOVES:
        raise TooLarge(N_("at most {count} moves"), count=MAX_ANALYSIS_MOVES)
    try:
        board = Board(variant, fen=fen.strip() if fen and fen.strip() else None)
    except UnknownVariantError as exc:
        raise InvalidRequest(str(exc)) from exc
    except FenError as exc:
        raise InvalidRequest(N_("bad FEN: {reason}"), reason=str(exc)) from exc
    for i, text in enumerate(moves):
        try:
            board.push_text(text)
        except ExochessError as exc:  # unreadable or illegal: either way this line cannot be played
            raise IllegalMove(
                N_("move {number} ({move}): {reason}"), number=i + 1, move=text, reason=str(exc)
            ) from exc
    return board


def tree_after(board: Board, prefix: list[str]) -> dict[str, Any]:
    """The legal-move tree of ``board`` after the actions ``prefix`` (CPU work: run it off the
    event loop, on a board of the caller's own)."""
    try:
        view = legal_tree(board, prefix)
    except PositionTooLargeError as exc:
        raise PositionTooLarge(str(exc)) from exc
    except ExochessError as exc:
        raise InvalidRequest(N_("bad action in prefix: {reason}"), reason=str(exc)) from exc
    if prefix and not view["count"]:
        raise IllegalMove(N_("no legal move starts with {actions}"), actions=",".join(prefix))
    return view


def analysis_position(variant: str, fen: str | None, moves: list[str], prefix: list[str]) -> str:
    """The analysis board's answer as JSON text: ``moves`` played from ``fen``, with the
    legal-move tree after the actions ``prefix`` (CPU work: run it in a worker)."""
    board = analysis_board(variant, fen, moves)
    if board.is_game_over():
        if prefix:
            raise GameOver(N_("the game is over in this position"))
        return json.dumps(position_json(board))
    tree_after(board, prefix)  # checks the prefix (the tree is built again below, from the cache)
    return json.dumps(position_json(board, prefix))


def analysis_line(variant: str, fen: str | None, moves: list[str]) -> tuple[str, str, list[str]]:
    """(variant, starting FEN, canonical move texts) of an analysis request whose position is
    not over (CPU work: run it in a worker; raises the service's errors)."""
    board = analysis_board(variant, fen, moves)
    if board.is_game_over():
        raise GameOver(N_("the game is over in this position"))
    return board.variant.name, board.starting_fen, [str(m) for m in board.move_stack]


def start_moves(variant: str, fen: str) -> int:
    """How many legal moves a new game's set-up position has (CPU work: run it in a worker)."""
    return len(Board(variant, fen=fen).raw_moves())


def checked_fen(variant: str, fen: str) -> dict[str, Any]:
    """The board editor's check of ``fen``: the library's reading of it (its own FEN text, the
    side to move), or :class:`InvalidRequest` with the library's reason (CPU work: run it in
    a worker; a FEN may describe a board whose move list is huge, so no move is listed)."""
    if not fen.strip():
        raise InvalidRequest(N_("bad FEN: {reason}"), reason="the FEN is empty")
    board = analysis_board(variant, fen, [])
    return {"variant": board.variant.name, "fen": board.fen(), "turn": Color.of(board.turn).value}
