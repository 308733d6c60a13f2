"""How a live game ends other than by a move (:class:`Finisher`): resignation, abort, a time
out (abort before the first moves, loss on time after), an abandonment claim; the result is
stored (the ratings updated in the same transaction) before the game in memory shows it.

Every method runs with the game's lock held; the service publishes the ended game after.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable

from exochess.board import Board
from exochess.outcome import Outcome, Termination
from exochess.web.domain import (
    N_,
    Color,
    Conflict,
    GameOver,
    GameStatus,
    PlayerKind,
    StalePosition,
)
from exochess.web.game.clock import Expiry, Timing, ms_between
from exochess.web.game.live import LiveGame
from exochess.web.game.positions import (
    aborted_by_text,
    left_game_text,
    lost_on_time_text,
    no_first_move_text,
    reason_text,
)
from exochess.web.game.timecontrol import TimeControlKind
from exochess.web.storage.store import ConflictError, Finish, Storage
from exochess.web.storage.store import now as storage_now
from exochess.web.storage.threads import DbThreads

TIME_FORFEIT = "time forfeit"
ABANDONED = "abandoned"
ABORTED = "aborted"
"""Terminations the site itself decides (the rules' own are :class:`Termination`'s)."""


class TimeRanOut(GameOver):
    """A move came after its side's time was out: the game has just ended instead."""


def finish_values(board: Board, outcome: Outcome) -> Finish:
    """The result columns stored for a game that ended with ``outcome`` on ``board``."""
    return {
        "result": outcome.result(),
        "termination": outcome.termination.value,
        "reason": reason_text(board.variant, outcome),
    }


def game_over(live: LiveGame) -> GameOver:
    """The error of an action on a game that is over."""
    return GameOver(N_("the game is over ({reason})"), reason=live.row.reason or "")


class Finisher:
    """Ends games: stores the result, then marks the game in memory.

    Ports: the database threads and storage, the site's timing, ``online`` (which seats are
    connected anywhere), ``reload`` (read a game again after another writer changed it) and
    ``load_players`` (read the seats' accounts again: the ratings changed)."""

    def __init__(
        self,
        storage: Storage,
        db: DbThreads,
        timing: Timing,
        online: Callable[[str], dict[Color, bool]],
        reload: Callable[[LiveGame], Awaitable[None]],
        load_players: Callable[[LiveGame], Awaitable[None]],
    ) -> None:
        self.storage = storage
        self.db = db
        self.timing = timing
        self.online = online
        self.reload = reload
        self.load_players = load_players

    def with_end_clocks(self, live: LiveGame, values: Finish, ended: dt.datetime) -> Finish:
        """``values`` with the clocks of a real-time game that ends without a move at ``ended``:
        the running clock stopped where it stood (0 on a flag), the other as it was
        (:meth:`~exochess.web.game.clock.Clock.at_end`); other controls store none."""
        clock = live.clock(self.timing)
        if clock is None or live.time_control.kind != TimeControlKind.REALTIME:
            return values
        end = clock.at_end(ended)
        values = values.copy()
        values["end_white_ms"], values["end_black_ms"] = end.white_ms, end.black_ms
        return values

    async def finish(
        self,
        live: LiveGame,
        values: Finish,
        status: GameStatus,
        ended: dt.datetime | None = None,
    ) -> None:
        """Store the end ``values``, ``status`` and the clocks at ``ended`` (now by default),
        then show them (raises :class:`~exochess.web.domain.StalePosition` if another writer
        changed the game first: it has been read again)."""
        values = self.with_end_clocks(live, values, storage_now() if ended is None else ended)
        try:
            await self.db.call(self.storage.finish, live.row.id, live.board.ply(), values, status)
        except ConflictError as exc:
            await self.reload(live)
            raise StalePosition(str(exc)) from exc
        live.mark_finished(values, status)
        if live.row.rated:
            await self.load_players(live)  # the ratings changed

    async def expire(self, live: LiveGame, now: dt.datetime) -> bool:
        """Abort or flag the game if its side to move's time is out at ``now``; whether it
        ended."""
        clock = live.clock(self.timing) if live.active else None
        expiry = clock.expired(now) if clock is not None else None
        if expiry is None:
            return False
        loser = live.to_move()
        if expiry == Expiry.ABORT:
            values: Finish = {"result": "*", "termination": ABORTED, "reason": no_first_move_text(loser)}
            status = GameStatus.ABORTED
        else:
            values = {
                "result": "0-1" if loser == Color.WHITE else "1-0",
                "termination": TIME_FORFEIT,
                "reason": lost_on_time_text(loser),
            }
            status = GameStatus.FINISHED
        await self.finish(live, values, status, now)
        return True

    async def resign(self, live: LiveGame, seat: Color) -> None:
        """``seat`` resigns."""
        if not live.active:
            raise game_over(live)
        outcome = Outcome(Termination.RESIGNATION, seat != Color.WHITE)
        await self.finish(live, finish_values(live.board, outcome), GameStatus.FINISHED)

    async def abort(self, live: LiveGame, seat: Color) -> None:
        """``seat`` calls the game off without a result: allowed until both sides have moved."""
        if not live.active:
            raise game_over(live)
        if live.board.ply() >= 2:
            raise Conflict(N_("both sides have moved: the game can no longer be aborted (resign instead)"))
        values: Finish = {"result": "*", "termination": ABORTED, "reason": aborted_by_text(seat)}
        await self.finish(live, values, GameStatus.ABORTED)

    async def claim(self, live: LiveGame, seat: Color) -> None:
        """``seat`` claims the win: its opponent has been disconnected longer than the absence
        limit of a real-time game whose clock runs."""
        row = live.row
        if not live.active:
            raise game_over(live)
        control = live.time_control
        if control.kind != TimeControlKind.REALTIME:
            raise Conflict(N_("a win can only be claimed in a real-time game"))
        if live.board.ply() < 2:
            raise Conflict(N_("the game has not started yet: abort it instead"))
        other = seat.other
        if live.kind_of(other) != PlayerKind.HUMAN:
            raise Conflict(N_("the computer never leaves"))
        gone = live.absent_since.get(other)
        if self.online(row.id)[other] or gone is None:
            raise Conflict(N_("your opponent is connected"))
        waited = ms_between(gone, storage_now())
        limit = self.timing.absence_ms(control)
        if waited < limit:
            raise Conflict(
                N_("too early: your opponent left {waited} s ago; you may claim after {limit} s"),
                waited=f"{waited / 1000:.0f}",
                limit=f"{limit / 1000:.0f}",
            )
        values: Finish = {
            "result": "1-0" if seat == Color.WHITE else "0-1",
            "termination": ABANDONED,
            "reason": left_game_text(other),
        }
        await self.finish(live, values, GameStatus.FINISHED)
