"""A player's or the computer's move on a live game (:class:`MovePlayer`): checked, read on a
copy of the board and stored through the :class:`~exochess.web.storage.movestore.MoveStore`,
then applied to the game in memory.

Reading a move and judging the position after it list legal moves, which a set-up position
or one reached mid-game may have by the ten thousand: that runs off the event loop, on a copy
(:func:`played`), and the copy becomes the game's board once the move is stored, so the game in
memory (which a GET may read and cache during the commit) is never ahead of the database.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from exochess.board import Board
from exochess.errors import ExochessError, IllegalMoveError
from exochess.web import metrics
from exochess.web.domain import (
    N_,
    Color,
    IllegalMove,
    InvalidRequest,
    NotYourTurn,
    PlayerKind,
    StalePosition,
    Stamp,
)
from exochess.web.game.clock import Timing
from exochess.web.game.finisher import finish_values, game_over
from exochess.web.game.legalview import LegalView
from exochess.web.game.live import LiveGame
from exochess.web.game.positions import PositionTooLargeError, game_view
from exochess.web.live.movenote import MoveNote
from exochess.web.storage.movestore import MoveStore
from exochess.web.storage.store import Finish


@dataclass(frozen=True, slots=True)
class Played:
    """A move read on a copy of the board: the board after it, the result columns if it ends
    the game, else the legal-move view after it."""

    board: Board
    finish: Finish | None
    view: LegalView | None

    @property
    def text(self) -> str:
        """The move's canonical text, as stored."""
        return str(self.board.peek())


def view_of(board: Board) -> LegalView:
    """The legal-move view of a live game's ``board`` (:func:`game_view`), or an empty one
    naming the error when the position has too many moves to serve (CPU work)."""
    try:
        return LegalView.of(game_view(board))
    except PositionTooLargeError as exc:
        return LegalView.too_large(str(exc))


def played(board: Board, text: str) -> Played:
    """``board`` after the move ``text`` (CPU work: run it off the event loop, on a board of
    the caller's own).  The view is made here, from the moves the game's end check has just
    listed, so that publishing the move needs no second trip to a worker."""
    try:
        move = board.parse_move(text)
    except IllegalMoveError as exc:
        raise IllegalMove(str(exc)) from exc
    except ExochessError as exc:
        raise InvalidRequest(str(exc)) from exc
    board.push(move)
    outcome = board.outcome()  # lists the legal moves after it here, off the loop
    if outcome:
        return Played(board, finish_values(board, outcome), None)
    return Played(board, None, view_of(board))


class MovePlayer:
    """Plays moves on live games.  Ports: the :class:`MoveStore` of the site's database, the
    site's timing, and ``unsure`` (read a game again once its lock is free: a cancelled store
    whose outcome is unknown)."""

    def __init__(self, store: MoveStore, timing: Timing, unsure: Callable[[LiveGame], None]) -> None:
        self.store = store
        self.timing = timing
        self.unsure = unsure

    async def play(
        self,
        live: LiveGame,
        seat: Color,
        text: str,
        ply: int | None,
        arrived: dt.datetime,
        lag_ms: int = 0,
        think_ms: int | None = None,
    ) -> MoveNote | None:
        """Play and store ``seat``'s move ``text`` arriving at ``arrived`` (the game's lock
        held, its time judged); ``ply``, if given, must be current; ``think_ms``, the computer's
        think time (what its move costs it at most).

        Returns the move as the other processes can play it on their copies (None when it
        ended the game: they read a finished game again, with its result and ratings).
        Raises :class:`~exochess.web.storage.store.ConflictError` when another writer stored
        a move first."""
        board = live.board
        if not live.active:
            raise game_over(live)
        if seat != live.to_move():
            raise NotYourTurn(N_("it is not your turn: {side} is to move"), side=live.to_move().capitalize())
        if ply is not None and ply != board.ply():
            raise StalePosition(
                N_("stale position: the game is at ply {now}, not {ply}"), now=board.ply(), ply=ply
            )
        current = board.ply()
        clock = live.clock(self.timing)
        stamp = Stamp(None, None, arrived) if clock is None else clock.after_move(arrived, lag_ms, think_ms)
        move = await self.store.play(
            live.row.id, current, stamp, partial(played, board.copy(), text), partial(self.unsure, live)
        )
        text_after, fen_after = move.text, move.board.fen()
        metrics.MOVES.labels("player" if live.kind_of(seat) == PlayerKind.HUMAN else "engine").inc()
        live.record_move(move.board, text_after, fen_after, stamp)
        if move.view is not None:
            live.legal_view = (live.legal_key(), move.view)
        if move.finish:
            live.mark_finished(move.finish)
            return None
        return MoveNote(current, text_after, fen_after, stamp)
