"""The Redis bus's sender (issue 18, target 2): a process's envelopes go out in batches, in the
order they were published, and a publish that cannot be sent says so instead of hanging."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.cluster.harness import Services
from tests.web.serverproc import free_port, run_async


def test_a_burst_of_envelopes_arrives_whole_and_in_order(services: Services) -> None:
    from exochess.web.pubsub import RedisBus

    async def run() -> tuple[list[bool], list[Any], Any]:
        sender, receiver = RedisBus(services.redis.url), RedisBus(services.redis.url)
        got: list[Any] = []
        done = asyncio.Event()

        async def keep(envelope: dict[str, Any]) -> None:
            got.append(envelope)
            if len(got) == 300:
                done.set()

        receiver.on_message = keep
        receiver.start()
        await asyncio.wait_for(receiver.subscribed.wait(), 10)
        # 300 publishes at once, as 300 games' moves stored in one pass of the event loop
        sent = await asyncio.gather(*(sender.publish({"k": f"g{i}", "m": f'{{"n": {i}}}', "c": True})
                                      for i in range(300)))
        await asyncio.wait_for(done.wait(), 10)
        info = await sender.redis.info("commandstats")
        await sender.close()
        await receiver.close()
        return list(sent), got, info

    sent, got, info = run_async(run)
    assert sent == [True] * 300
    assert [e["k"] for e in got] == [f"g{i}" for i in range(300)]  # one sender: the calls' order
    assert got[7]["m"] == '{"n": 7}' and got[7]["o"] != "" and isinstance(got[7]["ts"], float)
    assert info["cmdstat_publish"]["calls"] >= 300


def test_a_publish_redis_does_not_take_answers_false(services: Services) -> None:
    """Nothing listens on the port: each publish is told False (and counted), none hangs, and
    the bus still closes cleanly; after closing, a publish is False at once."""
    from prometheus_client import REGISTRY

    from exochess.web import metrics  # noqa: F401 - registers the counters read below
    from exochess.web.pubsub import RedisBus

    async def run() -> tuple[list[bool], bool]:
        bus = RedisBus(f"redis://127.0.0.1:{free_port()}/0")
        results = await asyncio.wait_for(
            asyncio.gather(*(bus.publish({"k": "g", "m": "{}"}) for _ in range(5))), 10)
        await bus.close()
        after = await asyncio.wait_for(bus.publish({"k": "g"}), 1)
        return list(results), after

    def errors() -> float:
        return REGISTRY.get_sample_value("exochess_errors_total", {"kind": "redis"}) or 0.0

    before = errors()
    results, after = run_async(run)
    assert results == [False] * 5
    assert after is False
    assert errors() - before == 5


def test_closing_sends_what_was_posted_first(services: Services) -> None:
    """A server shutting down announces the changes it stored: envelopes posted (not awaited,
    as the hub's broadcasts are) just before :meth:`close` still reach the other processes."""
    from exochess.web.pubsub import RedisBus

    async def run() -> list[str]:
        sender, receiver = RedisBus(services.redis.url), RedisBus(services.redis.url)
        got: list[str] = []

        async def keep(envelope: dict[str, Any]) -> None:
            got.append(envelope["k"])

        receiver.on_message = keep
        receiver.start()
        await asyncio.wait_for(receiver.subscribed.wait(), 10)
        for i in range(50):
            sender.post({"k": f"g{i}", "m": "{}"})
        await sender.close()
        for _ in range(500):
            if len(got) == 50:
                break
            await asyncio.sleep(0.01)
        await receiver.close()
        return got

    assert run_async(run) == [f"g{i}" for i in range(50)]


def test_the_outbox_is_bounded(monkeypatch: Any) -> None:
    """While Redis is away envelopes cannot pile up without bound: past the outbox's bound a
    new one is refused at once (a receiver that missed a move reads the game again)."""
    from exochess.web import pubsub

    monkeypatch.setattr(pubsub, "OUTBOX_MAX", 3)

    async def run() -> bool:
        bus = pubsub.RedisBus(f"redis://127.0.0.1:{free_port()}/0")
        for i in range(3):
            bus.post({"k": f"g{i}"})
        refused = await asyncio.wait_for(bus.publish({"k": "late"}), 1)
        await bus.close(flush_s=0.1)
        return refused

    assert run_async(run) is False
