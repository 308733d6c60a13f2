"""Cluster sync (Redis mode): another server's stored move played on this server's cached copy
of the game, when the copy can take it (:func:`apply_note`); otherwise the copy is read again
from the database (:class:`ClusterSync`)."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable

from exochess.errors import ExochessError
from exochess.web import metrics
from exochess.web.domain import GameServiceError
from exochess.web.game.cache import GameCache
from exochess.web.game.live import LiveGame
from exochess.web.live.movenote import MoveNote


def apply_note(live: LiveGame, note: MoveNote | None) -> bool:
    """Play another process's stored move on the cached game; False (nothing changed) when the
    copy cannot take it: no note, a ply missed or the copy already stale, the copy in use (its
    lock held: a move or a reload is under way), or a move or position that does not match.
    Synchronous, so that no other task sees the copy half changed."""
    if note is None or live.stale or live.lock.locked():
        return False
    row, board = live.row, live.board
    if not live.active or note.ply != board.ply() or note.ply != len(row.moves):
        return False
    try:
        move = board.parse_move(note.move)
    except ExochessError:
        return False
    board.push(move)
    if board.fen() != note.fen:
        board.pop()
        return False
    live.record_move(board, note.move, note.fen, note.stamp)
    row.updated = note.stamp.at
    return True


def already_played(live: LiveGame, note: MoveNote) -> bool:
    """Whether the cached game, fresh, already holds the note's move (it was read again after
    the move was stored, before the note arrived)."""
    moves = live.row.moves
    return not live.stale and note.ply < len(moves) and moves[note.ply] == note.move


class ClusterSync:
    """What this server does with another server's envelope about a game.  Ports: the cache of
    live games, ``watched`` (whether anyone here watches a game), ``refresh`` (read a stale game
    again, under its lock), ``send_state`` (send the watchers here a game's state), ``arm``
    (judge the game at its new deadline) and ``schedule`` (the computer's turn, if it is to
    move)."""

    def __init__(
        self,
        cache: GameCache,
        watched: Callable[[str], bool],
        refresh: Callable[[LiveGame], Awaitable[None]],
        send_state: Callable[[LiveGame], Awaitable[None]],
        arm: Callable[[LiveGame], None],
        schedule: Callable[[LiveGame], None],
    ) -> None:
        self.cache = cache
        self.watched = watched
        self.refresh = refresh
        self.send_state = send_state
        self.arm = arm
        self.schedule = schedule

    async def resync_all(self) -> None:
        """Changes may have been missed (the Redis subscription was lost): every cached game is
        stale, and the watched ones are sent their state again."""
        for game_id in list(self.cache.games):
            await self.changed(game_id, True, False)

    async def changed(self, game_id: str, changed: bool, delivered: bool, note: object = None) -> None:
        """An envelope about ``game_id``: play its move ``note`` on the cached game if it follows
        on, or else mark the copy stale; if the change came without a state (an engine worker
        stored a move), send the watchers here the state read again."""
        live = self.cache.games.get(game_id)
        if live is None:
            loading = self.cache.loading.get(game_id)
            if changed and loading is not None and loading.locked():
                self.cache.changed_while_loading.add(game_id)
            return
        live.state_cache = None  # at least the presence in it changed
        if not changed:
            return
        move_note = MoveNote.from_json(note)
        if move_note is not None and already_played(live, move_note):
            metrics.REMOTE_MOVES.labels("known").inc()  # read again meanwhile: nothing to do
            return
        busy, stale = live.lock.locked(), live.stale
        if apply_note(live, move_note):
            metrics.REMOTE_MOVES.labels("applied").inc()
            self.arm(live)
            if not delivered and self.watched(game_id):
                await self.send_state(live)
            self.schedule(live)
            return
        if note is not None:
            # "busy": the copy was in use here (a move, a clock check or a reload under way), a
            # race of a loaded machine; "stale": it was to be read again already (an earlier
            # change came without a note); "reloaded": it had missed a move or disagreed
            metrics.REMOTE_MOVES.labels("busy" if busy else "stale" if stale else "reloaded").inc()
        live.stale = True
        if not delivered and self.watched(game_id):
            with contextlib.suppress(GameServiceError):
                await self.refresh(live)
                await self.send_state(live)
        if not live.stale:
            self.schedule(live)
