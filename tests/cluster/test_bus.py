"""The Redis bus's sender (issue 18, target 2): a process's envelopes go out in batches, in the
order they were published, and a publish that cannot be sent says so instead of hanging."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.cluster.harness import Services
from tests.web.serverproc import free_port, run_async


async def connected_pair(
    url: str, got: list[Any], *, keys: bool = True, done: asyncio.Event | None = None, expect: int = 0
) -> tuple[Any, Any]:
    """A sender and a subscribed receiver on the Redis at ``url``; the receiver appends each
    envelope (or only its ``k`` when ``keys``) to ``got`` and sets ``done`` at ``expect``."""
    from exochess.web.live.pubsub import RedisBus

    sender, receiver = RedisBus(url), RedisBus(url)

    async def keep(envelope: dict[str, Any]) -> None:
        got.append(envelope["k"] if keys else envelope)
        if done is not None and len(got) == expect:
            done.set()

    receiver.on_message = keep
    receiver.start()
    await asyncio.wait_for(receiver.subscribed.wait(), 10)
    return sender, receiver


def test_a_burst_of_envelopes_arrives_whole_and_in_order(services: Services) -> None:

    async def run() -> tuple[list[bool], list[Any], Any]:
        got: list[Any] = []
        done = asyncio.Event()
        sender, receiver = await connected_pair(services.redis.url, got, keys=False, done=done, expect=300)
        # 300 publishes at once, as 300 games' moves stored in one pass of the event loop
        sent = await asyncio.gather(
            *(sender.publish({"k": f"g{i}", "m": f'{{"n": {i}}}', "c": True}) for i in range(300))
        )
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
    from exochess.web.live.pubsub import RedisBus

    async def run() -> tuple[list[bool], bool]:
        bus = RedisBus(f"redis://127.0.0.1:{free_port()}/0")
        results = await asyncio.wait_for(
            asyncio.gather(*(bus.publish({"k": "g", "m": "{}"}) for _ in range(5))), 10
        )
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

    async def run() -> list[str]:
        got: list[str] = []
        sender, receiver = await connected_pair(services.redis.url, got)
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
    from exochess.web.live import pubsub

    monkeypatch.setattr(pubsub, "OUTBOX_MAX", 3)

    async def run() -> bool:
        bus = pubsub.RedisBus(f"redis://127.0.0.1:{free_port()}/0")
        for i in range(3):
            bus.post({"k": f"g{i}"})
        refused = await asyncio.wait_for(bus.publish({"k": "late"}), 1)
        await bus.close(flush_s=0.1)
        return refused

    assert run_async(run) is False


def test_a_sender_connection_killed_midstream_loses_no_caller(services: Services) -> None:
    """The sender writes without waiting for replies.  Envelopes written and still waiting for
    Redis's replies when it drops the connection (Redis paused, then ``CLIENT KILL``) are each
    answered False and counted, none hangs; the next ones go out on a new connection and
    arrive."""
    from prometheus_client import REGISTRY

    from exochess.web import metrics  # noqa: F401 - registers the counter read below

    def errors() -> float:
        return REGISTRY.get_sample_value("exochess_errors_total", {"kind": "redis"}) or 0.0

    async def run() -> tuple[list[bool], list[bool], list[str], float]:
        got: list[str] = []
        sender, receiver = await connected_pair(services.redis.url, got)
        assert await sender.publish({"k": "first"})  # the sender's connection is open
        admin = sender.redis
        before = errors()
        await admin.client_pause(10_000, all=False)  # write commands wait: PUBLISH too
        try:
            during = [asyncio.ensure_future(sender.publish({"k": f"d{i}"})) for i in range(50)]
            await asyncio.sleep(0.2)  # written, their replies held back by the pause
            assert not any(f.done() for f in during)
            await admin.client_kill_filter(_type="normal", skipme=True)
            answered = await asyncio.wait_for(asyncio.gather(*during), 10)
        finally:
            await admin.client_unpause()
        lost = errors() - before
        after = await asyncio.wait_for(
            asyncio.gather(*(sender.publish({"k": f"a{i}"}) for i in range(20))), 10
        )
        for _ in range(500):
            if sum(k.startswith("a") for k in got) == 20:
                break
            await asyncio.sleep(0.01)
        await sender.close()
        await receiver.close()
        return list(answered), list(after), got, lost

    answered, after, got, lost = run_async(run)
    assert answered == [False] * 50
    assert lost == 50
    assert after == [True] * 20
    assert [k for k in got if k.startswith("a")] == [f"a{i}" for i in range(20)]
    assert not any(k.startswith("d") for k in got)


def test_a_redis_that_stops_replying_is_given_up(services: Services, monkeypatch: Any) -> None:
    """Redis takes the envelopes but does not reply (paused, as a hung server or a cut network
    would look): the callers are told False once the reply is overdue instead of waiting for
    ever, and once Redis answers again the next envelopes go out on a new connection."""
    from exochess.web.live import pubsub

    monkeypatch.setattr(pubsub, "REPLY_TIMEOUT_S", 0.3)

    async def run() -> tuple[list[bool], list[bool]]:
        sender = pubsub.RedisBus(services.redis.url)
        assert await sender.publish({"k": "first"})
        admin = sender.redis
        await admin.client_pause(10_000, all=False)
        try:
            stuck = await asyncio.wait_for(
                asyncio.gather(*(sender.publish({"k": f"s{i}"}) for i in range(10))), 10
            )
        finally:
            await admin.client_unpause()
        after = await asyncio.wait_for(
            asyncio.gather(*(sender.publish({"k": f"a{i}"}) for i in range(10))), 10
        )
        await sender.close()
        return list(stuck), list(after)

    stuck, after = run_async(run)
    assert stuck == [False] * 10
    assert after == [True] * 10
