"""Counts shared by every server process of a site (Redis mode): who is connected where.

A server knows its own websockets only.  For the caps on websockets (per client address, per
game) and for the lobby's posters (a real-time challenge goes when its poster has no lobby open
on *any* server), each process writes its own counts into Redis and reads the others'.

Each count is a Redis hash ``exochess:count:<kind>:<key>`` with one field per process (its
origin id); the value is ``"<count> <expires>"``, the expiry in epoch milliseconds.  A process
rewrites its non-zero counts every :data:`REFRESH_S` seconds with an expiry :data:`TTL_S` ahead,
so the counts of a process that died (SIGKILL, a lost machine) stop counting after at most
:data:`TTL_S`, and the whole hash expires with its last writer.  Writes are batched: a change
only marks the count dirty, and one task sends the dirty ones in a pipeline, so a burst of
connections costs one round trip.

Reads fail soft: if Redis does not answer, the others count as zero (each server still applies
its own caps to its own connections, as without Redis).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable
from typing import cast

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from exochess.web import metrics

log = logging.getLogger("exochess.web")

PREFIX = "exochess:count:"
REFRESH_S = 10.0
"""How often a process rewrites its counts (the setting ``EXOCHESS_PRESENCE_REFRESH_S``)."""
TTL_FACTOR = 3
"""A process's counts expire this many refresh periods after its last write."""


def _name(kind: str, key: str) -> str:
    return f"{PREFIX}{kind}:{key}"


class SharedCounts:
    """This process's counts, written to Redis, and the sum of the other processes' ones."""

    def __init__(self, client: aioredis.Redis, origin: str, refresh_s: float = REFRESH_S) -> None:
        self.redis = client
        self.origin = origin
        self.refresh_s = refresh_s
        self.ttl_s = TTL_FACTOR * self.refresh_s
        self._mine: dict[tuple[str, str], int] = {}
        self._dirty: set[tuple[str, str]] = set()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Write in the background (in the running event loop)."""
        self._task = asyncio.create_task(self._writer(), name="shared-counts")

    def set(self, kind: str, key: str, count: int) -> None:
        """This process now has ``count`` of ``kind`` ``key`` (0 forgets it); written soon."""
        if count > 0:
            self._mine[(kind, key)] = count
        else:
            self._mine.pop((kind, key), None)
        self._dirty.add((kind, key))
        self._wake.set()

    def mine(self, kind: str, key: str) -> int:
        return self._mine.get((kind, key), 0)

    async def others(self, kind: str, key: str) -> int:
        """The other processes' live counts of ``kind`` ``key`` (0 if Redis does not answer)."""
        try:
            # redis-py types the method for its sync and async clients at once
            fields = await cast("Awaitable[dict[bytes, bytes]]", self.redis.hgetall(_name(kind, key)))
        except (RedisError, OSError) as exc:
            metrics.ERRORS.labels("redis").inc()
            log.warning("shared counts unreadable: %s", exc)
            return 0
        now_ms = time.time() * 1000
        total = 0
        for origin, value in fields.items():
            if origin.decode() == self.origin:
                continue
            try:
                count, expires = value.decode().split(" ")
                if float(expires) > now_ms:
                    total += int(count)
            except ValueError:
                continue  # not ours to understand: ignored
        return total

    async def anywhere(self, kind: str, key: str) -> bool:
        """Whether any process (this one first) has ``kind`` ``key``."""
        return self.mine(kind, key) > 0 or await self.others(kind, key) > 0

    async def _writer(self) -> None:
        last_refresh = time.monotonic()
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.refresh_s)
            self._wake.clear()
            if time.monotonic() - last_refresh >= self.refresh_s:
                self._dirty.update(self._mine)  # the live counts, written again before they expire
                last_refresh = time.monotonic()
            try:
                await self.flush()
            except (RedisError, OSError) as exc:
                metrics.ERRORS.labels("redis").inc()
                log.warning("shared counts not written: %s", exc)
                self._dirty.update(self._mine)  # Redis may have restarted empty
                await asyncio.sleep(min(1.0, self.refresh_s))

    async def flush(self) -> None:
        """Send the dirty counts now (one pipeline)."""
        if not self._dirty:
            return
        dirty, self._dirty = self._dirty, set()
        expires = int((time.time() + self.ttl_s) * 1000)
        ttl_ms = int(self.ttl_s * 1000)
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for kind, key in dirty:
                    name = _name(kind, key)
                    count = self._mine.get((kind, key), 0)
                    if count > 0:
                        pipe.hset(name, self.origin, f"{count} {expires}")
                        pipe.pexpire(name, ttl_ms)
                    else:
                        pipe.hdel(name, self.origin)
                await pipe.execute()
        except BaseException:
            self._dirty |= dirty
            raise

    async def close(self) -> None:
        """Stop writing and take this process's counts out (a clean stop counts at once)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        for kind, key in list(self._mine):
            self.set(kind, key, 0)
        with contextlib.suppress(RedisError, OSError):
            await asyncio.wait_for(self.flush(), 2.0)
