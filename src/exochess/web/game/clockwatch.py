"""Timed games judged at their deadlines, with or without anybody connected
(:class:`ClockWatch`): one timer per game, armed again after every change."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable

from exochess.web.domain import Color, GameServiceError, GameStatus, StorageUnavailable
from exochess.web.game.clock import Clock, Timing, epoch_ms, ms_between
from exochess.web.game.live import LiveGame
from exochess.web.game.timecontrol import stored_time_control
from exochess.web.storage.store import GameRow
from exochess.web.storage.store import now as storage_now

log = logging.getLogger("exochess.web")

RETRY_S = 1.0
"""Delay before a game's time is judged again after the database was busy."""


class ClockWatch:
    """Each timed game's next deadline and the timer that has ``judge`` (the service reading
    the game, which judges its time) called then."""

    def __init__(self, timing: Timing, judge: Callable[[str], Awaitable[object]]) -> None:
        self.timing = timing
        self.judge = judge
        self.closed = False
        self._timers: dict[str, tuple[dt.datetime, asyncio.TimerHandle]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def watching(self, game_id: str) -> bool:
        """Whether a timer waits for ``game_id``'s deadline."""
        return game_id in self._timers

    def due(self, live: LiveGame) -> bool:
        """Whether the game's side to move is out of time now; if not, make sure a timer waits
        for its deadline (a game read from the database has none yet)."""
        if not live.active or live.row.time_control in (None, "-"):
            return False
        clock = live.clock(self.timing)
        if clock is not None and clock.expired(storage_now()) is not None:
            return True
        if not self.watching(live.row.id):
            self.arm(live)
        return False

    def arm(self, live: LiveGame) -> None:
        """Have the game judged at its next deadline (no timer for a game without one)."""
        game_id = live.row.id
        clock = live.clock(self.timing) if live.row.status == GameStatus.ACTIVE else None
        current = self._timers.get(game_id)
        if clock is None or not clock.judged or self.closed:  # the computer's turn: no deadline
            if current is not None:
                current[1].cancel()
                del self._timers[game_id]
            return
        deadline = clock.deadline
        if current is not None:
            if current[0] == deadline:
                return
            current[1].cancel()
        delay_s = max(0.0, ms_between(storage_now(), deadline) / 1000) + 0.001
        loop = asyncio.get_running_loop()
        self._timers[game_id] = (deadline, loop.call_later(delay_s, self._reached, game_id))

    def _reached(self, game_id: str) -> None:
        self._timers.pop(game_id, None)

        async def judge() -> None:
            try:
                await self.judge(game_id)
            except StorageUnavailable as exc:
                log.warning("cannot judge the time of game %s: %s", game_id, exc.message)
                if not self.closed:  # the database was busy: try again shortly
                    asyncio.get_running_loop().call_later(RETRY_S, self._reached, game_id)
            except GameServiceError as exc:
                log.warning("cannot judge the time of game %s: %s", game_id, exc.message)

        task = asyncio.create_task(judge())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def turn_and_deadline(self, row: GameRow) -> tuple[Color, int | None]:
        """The side to move of a listed game (a row with its last move's stamp only), and while
        it is played with a clock, when that side's time runs out (ms since 1970)."""
        turn = Color.to_move(row.start_fen, row.ply)
        if row.status != GameStatus.ACTIVE:
            return turn, None
        last = row.stamps[-1] if row.stamps else None
        control = stored_time_control(row.time_control)
        clock = Clock.of(control, row.created, row.ply, last, turn, self.timing, berserked=row.berserked)
        return turn, None if clock is None else epoch_ms(clock.deadline)

    def close(self) -> None:
        self.closed = True
        for _deadline, timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
