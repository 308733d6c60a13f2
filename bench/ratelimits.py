"""The cost of one rate-limit check, per storage: what the HTTP middleware pays on each limited
request.  Each run counts ``--hits`` hits over ``--keys`` client addresses against one limit
that never fills (30/minute per key would; the bench uses 10**9/minute so every hit is
counted and stored), and reports microseconds per hit and the threads and asyncio tasks the
storage started.

    nice -n 10 .venv/bin/python bench/ratelimits.py [--hits 100000] [--keys 1000] [--redis]

- ``windows``: :class:`~exochess.web.limits.windows.MovingWindows` called directly (what the
  middleware did before :class:`RateLimits`);
- ``ratelimits-memory``: :meth:`RateLimits.hit` in memory (the same windows behind an ``await``);
- ``limits-aio-memory``: the ``limits`` library's asyncio ``MemoryStorage`` and moving window;
- ``ratelimits-redis`` (``--redis``: starts a ``redis-server`` on a free port): Redis mode.

Then what a websocket connection pays per message received, over ``--keys`` connections, with
rates that never fill (every message is counted and kept; two windows, as ``game-messages``
has):

- ``token-bucket``: the token bucket the connections had before (``social/throttle.py``, copied
  here as it was), called as it was, without an ``await``;
- ``message-limit``: :meth:`MessageLimit.check` (``game-messages`` through :class:`RateLimits`);
- ``message-limit-redis`` (``--redis``): the same in Redis mode, where it stays in memory.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from limits import parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter

from exochess.web.limits import MessageLimit, RateLimits
from exochess.web.limits.windows import MovingWindows

BIG = "1000000000/minute"
BIG_SECOND = "1000000000/second"


class TokenBucket:
    """The former ``social/throttle.py`` bucket (rate 8, burst 40), for reference."""

    def __init__(self, clock: Callable[[], float], rate: float = 8.0, burst: int = 40) -> None:
        self.rate, self.burst, self._clock = rate, burst, clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def allow(self, key: str) -> bool:
        now = self._clock()
        tokens, then = self._buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - 1.0, now)
        return True


def _bucket(hits: int, keys: int) -> None:
    bucket = TokenBucket(time.monotonic, rate=1e9, burst=10**9)
    names = [str(i) for i in range(keys)]
    start = time.perf_counter()
    refused = sum(not bucket.allow(names[i % keys]) for i in range(hits))
    per = (time.perf_counter() - start) / hits * 1e6
    print(f"{'token-bucket':20s} {per:8.2f} us/message   refused {refused}")


async def _messages(name: str, hits: int, keys: int, redis: str | None) -> None:
    # two windows, as the default game-messages has, that never fill
    limits = RateLimits(f"game-messages={BIG_SECOND},{BIG}", redis_url=redis)
    connections = [MessageLimit(limits, "game-messages") for _ in range(keys)]
    start = time.perf_counter()
    refused = 0
    for i in range(hits):
        refused += connections[i % keys].check() != "ok"
    per = (time.perf_counter() - start) / hits * 1e6
    print(f"{name:20s} {per:8.2f} us/message   refused {refused}")
    await limits.close()


async def _timed(name: str, hits: int, keys: int, hit: Callable[[str], Awaitable[object]]) -> None:
    threads = set()
    tasks_before = len(asyncio.all_tasks())
    started_threads = threading.active_count()
    addresses = [f"10.0.{i // 250}.{i % 250}" for i in range(keys)]
    start = time.perf_counter()
    most_tasks = 0
    for i in range(hits):
        await hit(addresses[i % keys])
        if i % 1000 == 0:
            most_tasks = max(most_tasks, len(asyncio.all_tasks()) - tasks_before)
            threads.add(threading.active_count())
    per = (time.perf_counter() - start) / hits * 1e6
    print(
        f"{name:20s} {per:8.2f} us/hit   threads {started_threads}->{max(threads)}   "
        f"tasks at once (sampled) {most_tasks}"
    )


async def main(hits: int, keys: int, redis: str | None) -> None:
    item = parse(BIG)
    windows = MovingWindows()

    async def direct(key: str) -> object:
        return windows.hit(item, "games", key)

    await _timed("windows", hits, keys, direct)
    memory = RateLimits(f"games={BIG}")
    await _timed("ratelimits-memory", hits, keys, lambda key: memory.hit("games", key))
    library = MovingWindowRateLimiter(MemoryStorage())
    await _timed("limits-aio-memory", hits, keys, lambda key: library.hit(item, "games", key))
    if redis is not None:
        shared = RateLimits(f"games={BIG}", redis_url=redis)
        await _timed("ratelimits-redis", max(1, hits // 10), keys, lambda key: shared.hit("games", key))
        await shared.close()
    _bucket(hits, keys)
    await _messages("message-limit", hits, keys, None)
    if redis is not None:
        await _messages("message-limit-redis", hits, keys, redis)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--hits", type=int, default=100_000)
    parser.add_argument("--keys", type=int, default=1000)
    parser.add_argument("--redis", action="store_true", help="also Redis mode (needs redis-server)")
    args = parser.parse_args()
    if args.redis:
        from exochess.cli.localservices import RedisServer

        with tempfile.TemporaryDirectory() as tmp:
            server = RedisServer(Path(tmp)).start()
            try:
                asyncio.run(main(args.hits, args.keys, server.url))
            finally:
                server.stop()
    else:
        asyncio.run(main(args.hits, args.keys, None))
