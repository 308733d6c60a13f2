"""The fence around redis-py's internals (docs/decisions/0010-private-subclasses-pinned.md): the
subscription's connection class overrides ``Connection._connection_arguments`` to widen its
stream's buffer.  redis is pinned to a tested range in pyproject.toml; this test, on a real
Redis, fails on the version that stops honouring the override, instead of the buffer silently
falling back to asyncio's 64 KiB."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from exochess.cli.localservices import MissingProgram, RedisServer
from tests.web.serverproc import run_async


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    try:
        server = RedisServer(Path(tmp_path_factory.mktemp("redis")))
    except MissingProgram as exc:
        pytest.skip(str(exc))
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


def test_the_subscription_stream_has_the_wide_buffer(redis_url: str) -> None:
    aioredis = pytest.importorskip("redis.asyncio")
    from exochess.web.live.pubsub import SUBSCRIPTION_BUFFER, _wide_subscription

    async def limits() -> tuple[int, int]:
        wide = aioredis.Redis.from_url(redis_url, **_wide_subscription(redis_url))
        plain = aioredis.Redis.from_url(redis_url)
        try:
            found = []
            for client in (wide, plain):
                async with client.pubsub() as pubsub:
                    await pubsub.subscribe("fence")
                    # the StreamReader redis-py reads the subscription from
                    found.append(pubsub.connection._reader._limit)
            return found[0], found[1]
        finally:
            await wide.aclose()
            await plain.aclose()

    wide_limit, plain_limit = run_async(limits)
    assert wide_limit == SUBSCRIPTION_BUFFER
    assert plain_limit < SUBSCRIPTION_BUFFER  # asyncio's default: the override is what widens it
