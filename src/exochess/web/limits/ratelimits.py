""":class:`RateLimits`: every rate limit of the site through one object.

``await rate_limits.hit(name, key)`` counts one action of ``key`` against the declared limit
``name`` (``catalogue.py``) and returns None, or a :class:`Refusal` saying when to retry (a
refused action is not counted).  Counting is a moving window, as the ``limits`` library's
``MovingWindowRateLimiter`` counts, in the storage chosen once when the object is made:

- one process: in memory, with :class:`~exochess.web.limits.windows.MovingWindows` (the
  library's asyncio ``MemoryStorage`` starts a task per counted hit that walks every key, each
  key through a thread: see docs/decisions/0014-rate-limit-windows-in-memory.md);
- Redis mode: the library's async Redis storage (Lua scripts, one round trip a hit), so that
  every server process sharing the Redis counts the same windows.

The limits of one websocket connection (declared ``local``) are counted in this process's
memory in both modes (the same :class:`~exochess.web.limits.windows.MovingWindows`): a
connection lives in one process, so a shared count would add nothing but a Redis round trip
to every message it sends.

While Redis cannot be reached, a hit raises :class:`LimiterUnavailable` for the limits declared
``fail_closed`` (logins: never let through uncounted) and is let through, with a warning in the
log, for the others (the site stays usable through a Redis restart).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from limits import RateLimitItem
from limits.aio.storage import RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError

from exochess.web.limits.catalogue import BY_NAME, Limit, parse_rate_limits
from exochess.web.limits.windows import MovingWindows

log = logging.getLogger("exochess.web")

MAX_BLOCKED = 10_000
"""Keys remembered as over a ``precheck`` limit before the expired ones are dropped."""


class LimiterUnavailable(Exception):
    """The shared storage of the limits (Redis) cannot be reached."""


@dataclass(frozen=True)
class Refusal:
    """An action over its limit: which limit, and the seconds until one more is allowed."""

    limit: Limit
    item: RateLimitItem
    """The rate that is used up (a limit may have several)."""
    retry_s: int

    def message(self, whose: str = "") -> str:
        """The English message of an HTTP answer (the limit, the wait); ``whose`` follows
        what is counted (" from your address")."""
        return f"too many {self.limit.what}{whose}: at most {self.item}; try again in {self.retry_s} s"


class _Backend(Protocol):
    async def hit(self, item: RateLimitItem, name: str, key: str) -> bool: ...

    async def retry_in(self, item: RateLimitItem, name: str, key: str) -> float: ...

    async def full(self, item: RateLimitItem, name: str, key: str) -> bool: ...

    async def close(self) -> None: ...


class _Memory:
    """One process's windows (no I/O: each call completes without suspending)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.windows = MovingWindows(clock)

    async def hit(self, item: RateLimitItem, name: str, key: str) -> bool:
        return self.windows.hit(item, name, key)

    async def retry_in(self, item: RateLimitItem, name: str, key: str) -> float:
        return self.windows.retry_in(item, name, key)

    async def full(self, item: RateLimitItem, name: str, key: str) -> bool:
        return not self.windows.test(item, name, key)

    async def close(self) -> None:
        return None


class _Shared:
    """The ``limits`` library's moving windows in Redis (shared by every process using it)."""

    def __init__(self, redis_url: str) -> None:
        scheme, sep, rest = redis_url.partition("://")
        # the ``redis`` package (the one the site's bus uses); its errors come out as StorageError
        self.storage = RedisStorage(
            f"async+{scheme}{sep}{rest}",
            implementation="redispy",
            wrap_exceptions=True,
            key_prefix="exochess-limits",
        )
        self.limiter = MovingWindowRateLimiter(self.storage)

    async def hit(self, item: RateLimitItem, name: str, key: str) -> bool:
        return await self.limiter.hit(item, name, key)

    async def retry_in(self, item: RateLimitItem, name: str, key: str) -> float:
        stats = await self.limiter.get_window_stats(item, name, key)
        return max(0.0, stats.reset_time - time.time())

    async def full(self, item: RateLimitItem, name: str, key: str) -> bool:
        return not await self.limiter.test(item, name, key)

    async def close(self) -> None:
        # the redis-py client the storage made (never ``reset()``: that deletes the counts)
        client = getattr(getattr(self.storage, "bridge", None), "storage", None)
        close = getattr(client, "aclose", None)
        if close is not None:
            try:
                await close()
            except Exception:  # pragma: no cover - closing is best effort
                log.debug("closing the rate limits' Redis client failed", exc_info=True)


class RateLimits:
    """Every declared limit, counted in memory or (``redis_url``) in Redis.

    ``limits``: the rates by limit name (default: :data:`~exochess.web.limits.LIMITS`'
    defaults); a setting's text is parsed by :func:`parse_rate_limits`.  A name without a rate
    is not limited.
    """

    def __init__(
        self,
        limits: Mapping[str, list[RateLimitItem]] | str | None = None,
        redis_url: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rates = parse_rate_limits(limits) if limits is None or isinstance(limits, str) else dict(limits)
        unknown = set(self.rates) - set(BY_NAME)
        if unknown:
            raise ValueError(f"undeclared rate limits: {', '.join(sorted(unknown))}")
        self.shared = redis_url is not None
        memory = self._memory = _Memory(clock)
        backend: _Backend = memory if redis_url is None else _Shared(redis_url)
        self._backend = backend
        self._plan = {
            name: (
                BY_NAME[name],
                [(item, f"{name}/{item.amount}/{item.get_expiry()}") for item in items],
                memory if BY_NAME[name].local else backend,
            )
            for name, items in self.rates.items()
            if items
        }
        """Per limit: its declaration, its rates, each with the name its window is counted
        under (a limit's rates are counted apart), and where it is counted."""
        self._clock = clock
        self._blocked: dict[tuple[str, str], tuple[float, Refusal]] = {}
        """(name, key) -> (until, the refusal) for the ``precheck`` limits."""

    def __bool__(self) -> bool:
        return bool(self._plan)

    def limited(self, name: str) -> bool:
        """Whether the limit ``name`` is on."""
        return name in self._plan

    async def hit(self, name: str, key: str) -> Refusal | None:
        """Count one action of ``key`` against the limit ``name``: None if allowed, else the
        refusal (nothing counted).  Raises :class:`LimiterUnavailable` for a ``fail_closed``
        limit whose storage cannot be reached."""
        plan = self._plan.get(name)
        if plan is None:
            return None
        limit, rates, backend = plan
        try:
            for item, window in rates:
                if not await backend.hit(item, window, key):
                    return await self._refusal(backend, limit, item, window, key)
            if limit.precheck:
                for item, window in rates:
                    if await backend.full(item, window, key):
                        self._remember(await self._refusal(backend, limit, item, window, key), key)
                        break
        except StorageError as exc:
            if limit.fail_closed:
                raise LimiterUnavailable(str(exc)) from exc
            log.warning("rate limit %s not counted: its storage cannot be reached (%s)", name, exc)
        return None

    def hit_local(self, name: str, key: str) -> Refusal | None:
        """:meth:`hit` for a limit declared ``local``, without suspending: its windows are in
        this process's memory (what a connection pays per message it receives)."""
        plan = self._plan.get(name)
        if plan is None:
            return None
        limit, rates, _backend = plan
        if not limit.local:
            raise ValueError(f"the rate limit {name} is not counted locally")
        windows = self._memory.windows
        for item, window in rates:
            if not windows.hit(item, window, key):
                return Refusal(limit, item, max(1, math.ceil(windows.retry_in(item, window, key))))
        return None

    async def test(self, name: str, key: str) -> Refusal | None:
        """Whether ``key`` is over the limit ``name`` now (nothing counted)."""
        plan = self._plan.get(name)
        if plan is None:
            return None
        limit, rates, backend = plan
        try:
            for item, window in rates:
                if await backend.full(item, window, key):
                    return await self._refusal(backend, limit, item, window, key)
        except StorageError as exc:
            if limit.fail_closed:
                raise LimiterUnavailable(str(exc)) from exc
            log.warning("rate limit %s not tested: its storage cannot be reached (%s)", name, exc)
        return None

    def blocked(self, name: str, key: str) -> Refusal | None:
        """For a ``precheck`` limit, without asking the storage: the refusal this process saw
        last for ``key`` while its window is still full, else None.  What is refused before
        any work (a websocket handshake in the server's protocol, a read past the misses)."""
        entry = self._blocked.get((name, key))
        if entry is None:
            return None
        until, refusal = entry
        left = until - self._clock()
        if left <= 0:
            del self._blocked[(name, key)]
            return None
        return Refusal(refusal.limit, refusal.item, max(1, math.ceil(left)))

    async def _refusal(
        self, backend: _Backend, limit: Limit, item: RateLimitItem, window: str, key: str
    ) -> Refusal:
        wait = max(1, math.ceil(await backend.retry_in(item, window, key)))
        refusal = Refusal(limit, item, wait)
        if limit.precheck:
            self._remember(refusal, key)
        return refusal

    def _remember(self, refusal: Refusal, key: str) -> None:
        now = self._clock()
        if len(self._blocked) >= MAX_BLOCKED:
            self._blocked = {k: v for k, v in self._blocked.items() if v[0] > now}
        self._blocked[(refusal.limit.name, key)] = (now + refusal.retry_s, refusal)

    async def close(self) -> None:
        """Let go of the storage's connections."""
        await self._backend.close()
