"""Which server processes of a site are alive (Redis mode), so that a survivor knows when a
peer is gone and may have left changes unannounced.

A server stores a change in the database and then announces it over Redis
(:mod:`exochess.web.live.pubsub`).  A server killed between the two (or cut from Redis while it
stores moves) leaves the others' cached copies of its games behind the database, and nothing
else would tell them.  So each server writes a heartbeat, its origin id in the sorted set
:data:`PEERS_KEY` scored with an expiry (epoch ms) :data:`TTL_S` ahead, every
:data:`BEAT_S`; and reads the set at the same pace.  When a peer it knew has expired (died,
or lost Redis) or a peer appears that it did not know (started, or back from an outage whose
changes went unannounced), ``on_change`` is called: the game service then treats every cached
game as stale and sends the watched ones their stored state again.

With :data:`TTL_S` at 1.5 s, a surviving server reads again, within about 2 s of a peer's death,
every game that peer may have changed.  A missed beat (a busy event loop) costs one needless
resync, never a wrong state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from exochess.web import metrics

log = logging.getLogger("exochess.web")

PEERS_KEY = "exochess:servers"
BEAT_S = 0.4
"""How often a server writes its heartbeat and reads the others'."""
TTL_S = 1.5
"""A server counts as gone this long after its last heartbeat."""


class PeerWatch:
    """This server's heartbeat, and the others' watched (see the module docstring)."""

    def __init__(
        self, client: aioredis.Redis, origin: str, on_change: Callable[[str], Awaitable[None]]
    ) -> None:
        """``on_change`` gets a short text of what changed (for the log)."""
        self.redis = client
        self.origin = origin
        self.on_change = on_change
        self.peers: set[str] | None = None
        """The other servers seen alive last round (None before the first read)."""
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Beat and watch in the background (in the running event loop)."""
        self._task = asyncio.create_task(self._run(), name="peer-watch")

    async def beat_once(self) -> set[str]:
        """Write this server's heartbeat; the other servers alive now."""
        now_ms = int(time.time() * 1000)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(PEERS_KEY, {self.origin: now_ms + int(TTL_S * 1000)})
            pipe.zremrangebyscore(PEERS_KEY, "-inf", now_ms)
            pipe.zrange(PEERS_KEY, 0, -1)
            _added, _removed, members = await pipe.execute()
        return {member.decode() for member in members} - {self.origin}

    async def _run(self) -> None:
        while True:
            try:
                alive = await self.beat_once()
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                # this server cannot see the others now; the bus resyncs when it subscribes again
                log.debug("peer heartbeat failed: %s", exc)
            else:
                await self._compare(alive)
            await asyncio.sleep(BEAT_S)

    async def _compare(self, alive: set[str]) -> None:
        known, self.peers = self.peers, alive
        if known is None or known == alive:
            return
        gone, new = known - alive, alive - known
        what = ", ".join(
            filter(
                None,
                [f"{len(gone)} server(s) gone" if gone else "", f"{len(new)} server(s) new" if new else ""],
            )
        )
        log.info("peer servers changed (%s): cached games are read again", what)
        metrics.PEER_CHANGES.inc()
        try:
            await self.on_change(what)
        except Exception:
            log.exception("resync after a peer change failed")

    async def close(self) -> None:
        """Stop, and leave the set at once (the others need not wait for the heartbeat to
        expire: a clean stop announced its changes)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        with contextlib.suppress(RedisError, OSError):
            await self.redis.zrem(PEERS_KEY, self.origin)
