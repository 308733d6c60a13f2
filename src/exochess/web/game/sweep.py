"""The sweep of Redis mode: computer moves that were never queued are queued again.

A server can die between storing a player's move and queueing the computer's reply (or Redis
can lose the queue when it restarts).  :class:`EngineSweep` mends that: every few seconds one
server (the holder of a short Redis lock) looks for computer games that have waited a while
for the computer's move and queues it again; the job id (:func:`~exochess.web.game.jobs.
move_job_id`) makes that a no-op when the job is there.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import secrets
from collections.abc import Awaitable, Callable

from redis.exceptions import RedisError

from exochess.web.domain import (
    Color,
    PlayerKind,
)
from exochess.web.game.queuestats import QUEUE_NAME
from exochess.web.live.pubsub import connect
from exochess.web.storage.store import Storage
from exochess.web.storage.store import now as storage_now

log = logging.getLogger("exochess.web")

SWEEP_EVERY_S = 5.0
"""How often a server tries to take the sweep's lock (the setting ``EXOCHESS_ENGINE_SWEEP_S``)."""
SWEEP_AFTER_S = 5.0
"""A computer game is swept when unchanged for this long (the setting ``EXOCHESS_ENGINE_SWEEP_AFTER_S``):
longer than queueing takes, so the sweep does not race the server that is queueing."""
SWEEP_LOCK = "exochess:engine-sweep"


def engine_to_move(start_fen: str, ply: int, white: PlayerKind, black: PlayerKind) -> bool:
    """Whether the side to move after ``ply`` plies from ``start_fen`` is the computer."""
    mover = white if Color.to_move(start_fen, ply) == Color.WHITE else black
    return mover == PlayerKind.ENGINE


class EngineSweep:
    """Queues again the computer moves nobody queued (their server died first, or Redis lost
    the queue).

    Every server runs one; each round, the server that takes the Redis lock (held for one
    round, so one server sweeps at a time, and another takes over when it dies) reads the
    computer games unchanged for :attr:`after_s` whose side to move is the computer, and hands
    each id to ``resume`` (the game service: it reads the game again and queues the move under
    the job's id, which arq refuses a second time while the job waits or runs).  Storing stays
    exactly once whatever the sweep does: the worker's update is guarded.
    """

    def __init__(
        self,
        url: str,
        storage: Storage,
        resume: Callable[[str], Awaitable[None]],
        *,
        every_s: float = SWEEP_EVERY_S,
        after_s: float = SWEEP_AFTER_S,
    ) -> None:
        self.storage = storage
        self.resume = resume
        self.every_s = every_s
        self.after_s = after_s
        self.origin = secrets.token_hex(6)
        self._redis = connect(url)
        self._task: asyncio.Task[None] | None = None
        self.swept = 0
        """Games handed to ``resume`` by this server (for the tests and the logs)."""

    def start(self) -> None:
        """Sweep in the background (in the running event loop)."""
        self._task = asyncio.create_task(self._run(), name="engine-sweep")

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every_s)
            try:
                await self.sweep_once()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database or Redis is away: try again next round
                log.warning("engine sweep failed", exc_info=True)

    async def _take_lock(self) -> bool:
        # held a little less than a round: the next round anyone (this server too) may take it
        hold_ms = max(1, int(self.every_s * 900))
        try:
            return bool(await self._redis.set(SWEEP_LOCK, self.origin, nx=True, px=hold_ms))
        except (RedisError, OSError):
            return False

    async def sweep_once(self) -> int:
        """One round: the number of games handed to ``resume`` (0 if another server sweeps)."""
        if not await self._take_lock():
            return 0
        loop = asyncio.get_running_loop()
        before = storage_now() - dt.timedelta(seconds=self.after_s)
        rows = await loop.run_in_executor(None, self.storage.idle_engine_games, before)
        # jobs stay in the queue's sorted set until finished, and the queue is bounded: one read
        queued = {member.decode().rsplit(":", 1)[0] for member in await self._redis.zrange(QUEUE_NAME, 0, -1)}
        waiting = [
            gid
            for gid, variant, fen, ply, white, black in rows
            if f"move:{gid}:{ply}" not in queued and engine_to_move(fen, ply, white, black)
        ]
        for game_id in waiting:
            try:
                await self.resume(game_id)
            except Exception:
                log.warning("engine sweep could not resume game %s", game_id, exc_info=True)
        if waiting:
            log.info("engine sweep queued the computer's move again in %d game(s)", len(waiting))
        self.swept += len(waiting)
        return len(waiting)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        with contextlib.suppress(Exception):
            await self._redis.aclose()


# --- the worker side -------------------------------------------------------------------------
