"""No dead games: invitations nobody joins expire, and games without a real-time clock that
nobody moves in for a long time are called off.

Real-time games need none of this: their clocks end them (or the first move's deadline aborts
them).  A friend invitation or an untimed game has no clock, so without a sweep it would stay
"playing, 0 moves" in every list for ever.  The sweep aborts such games in the database (no
result, no rating change: an aborted game is never rated) and tells the service, which reloads
a game it holds in memory and sends its watchers the new state.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Callable

from exochess.web.domain import GameServiceError
from exochess.web.game.service import GameService
from exochess.web.storage.store import now

log = logging.getLogger("exochess.web")

INVITATION_TTL = dt.timedelta(days=1)
"""How long a game nobody has moved in waits for its players (a friend's invitation)."""
IDLE_TTL = dt.timedelta(days=30)
"""How long a game without a real-time clock may go without a move (a correspondence game's
own limit of days per move is shorter, and its clock ends it first when it runs)."""
SWEEP_EVERY_S = 600.0
"""How often the server looks for dead games."""


class DeadGames:
    """Finds and calls off the dead games (see the module docstring); ``clock`` gives the time
    (a test injects its own and calls :meth:`sweep`, never sleeping)."""

    def __init__(
        self,
        service: GameService,
        *,
        clock: Callable[[], dt.datetime] = now,
        invitation_ttl: dt.timedelta = INVITATION_TTL,
        idle_ttl: dt.timedelta = IDLE_TTL,
    ) -> None:
        self.service = service
        self.clock = clock
        self.invitation_ttl = invitation_ttl
        self.idle_ttl = idle_ttl
        self._task: asyncio.Task[None] | None = None

    async def sweep(self) -> list[str]:
        """Call off the games dead at the clock's time; returns their ids."""
        storage = self.service.storage
        at = self.clock()
        ids = await self.service.db(
            lambda: storage.abort_dead_games(
                at=at, invitation_ttl=self.invitation_ttl, idle_ttl=self.idle_ttl
            )
        )
        for game_id in ids:
            # the same path as a change another server made: a cached game is read again and
            # its watchers get the new state
            await self.service.on_remote_change(game_id, changed=True, delivered=False)
        if ids:
            log.info("called off %d dead games", len(ids))
        return ids

    def start(self, every_s: float = SWEEP_EVERY_S) -> None:
        """Sweep now and then every ``every_s`` seconds, until :meth:`close`."""

        async def loop() -> None:
            while True:
                with contextlib.suppress(GameServiceError):
                    await self.sweep()
                await asyncio.sleep(every_s)

        self._task = asyncio.create_task(loop())

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
