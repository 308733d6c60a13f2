"""In Redis mode every rate limit is counted in Redis, so it holds across servers: two
:class:`RateLimits` on one Redis (two server processes) count one window; while Redis is down a
limit that fails closed (logins) says so and the others let the action through."""

from __future__ import annotations

import secrets

import pytest

from exochess.web.limits import LimiterUnavailable, RateLimits
from tests.cluster.harness import Services
from tests.web.serverproc import run_async


def test_a_limit_holds_across_servers_sharing_redis(services: Services) -> None:
    address = f"198.51.100.{secrets.randbelow(250)}-{secrets.token_hex(4)}"

    async def run() -> None:
        one = RateLimits("games=4/minute;sockets=2/minute", redis_url=services.redis.url)
        two = RateLimits("games=4/minute;sockets=2/minute", redis_url=services.redis.url)
        try:
            allowed = [await (one, two)[i % 2].hit("games", address) is None for i in range(6)]
            assert allowed == [True] * 4 + [False] * 2
            refusal = await two.hit("games", address)
            assert refusal is not None and 1 <= refusal.retry_s <= 60
            assert await one.hit("games", address + "-other") is None
            # a precheck limit filled through one server is refused by it before any work
            assert await one.hit("sockets", address) is None and await two.hit("sockets", address) is None
            assert await one.hit("sockets", address) is not None
            assert one.blocked("sockets", address) is not None
        finally:
            await one.close()
            await two.close()

    run_async(run)


def test_without_redis_logins_fail_closed_and_the_others_open(services: Services) -> None:
    async def run() -> None:
        # a port nothing listens on: what a stopped Redis looks like to the client
        limits = RateLimits("games=1/minute;login-account=1/minute", redis_url="redis://127.0.0.1:9/0")
        try:
            assert await limits.hit("games", "a") is None and await limits.hit("games", "a") is None
            with pytest.raises(LimiterUnavailable):
                await limits.hit("login-account", "alice")
        finally:
            await limits.close()

    run_async(run)
