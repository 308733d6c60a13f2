"""Issue 45 in Redis mode: live analysis streamed from an engine worker through Redis pub/sub
(several updates of three lines; a stop reaches the worker, which takes the next analysis at
once), and a game report run by the workers' ``engine_report_position`` jobs
(test_analysis_failure.py kills a worker mid-analysis).

Two servers and one worker (one job at a time) on a real Redis and PostgreSQL.  Every wait is
on a message or a state, with generous bounds (a loaded machine may be slow; nothing is timed).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import websockets

from exochess.web.game.queuestats import QUEUE_NAME
from tests.cluster.harness import Cluster
from tests.web.serverproc import recv_until, run_async
from tests.web.test_web_engine_limits import engine, idle
from tests.web.test_web_reports import BETTER, MISSED, blunder_game, wait_report

WAIT_S = 120.0
"""Bound on waiting for any one message."""


def analysis_url(base: str) -> str:
    return base.replace("http://", "ws://") + "/ws/analysis"


async def start(ws: Any, **fields: Any) -> dict[str, Any]:
    """Send a ``start``; its reply (``started`` or ``error``)."""
    await ws.send(json.dumps({"type": "start", "ref": "s", **fields}))
    while True:
        msg: dict[str, Any] = json.loads(await ws.recv())
        if msg.get("ref") == "s":
            return msg


async def infos(ws: Any, started: dict[str, Any], count: int) -> list[dict[str, Any]]:
    """The next ``count`` updates of the analysis ``started``, each checked for three lines."""
    seen: list[dict[str, Any]] = []
    while len(seen) < count:
        info = await recv_until(ws, "info", timeout=WAIT_S)
        assert info["id"] == started["id"]
        assert [line["multipv"] for line in info["lines"]] == [1, 2, 3], info
        assert all(line["pv"] for line in info["lines"]), info
        assert info["nps"] > 0 and info["time_ms"] >= 0 and info["side_to_move"] == "white", info
        seen.append(info)
    return seen


def wait_engine(base: str, check: Any) -> dict[str, Any]:
    """``/api/engine`` (the queue as Redis holds it) once ``check`` holds; a hang guard only."""
    deadline = time.monotonic() + WAIT_S
    with httpx.Client(base_url=base, timeout=30.0) as c:
        while True:
            stats = engine(c)
            if check(stats):
                return stats
            assert time.monotonic() < deadline, stats
            time.sleep(0.05)


def test_live_analysis_streams_from_the_worker_and_stops_it(cluster: Cluster) -> None:
    a, b = (s.url for s in cluster.servers)

    async def run() -> None:
        async with websockets.connect(analysis_url(a), open_timeout=30) as ws:
            started = await start(ws, variant="rebelfury", movetime_ms=60_000)
            assert started["type"] == "started", started
            depths = [info["depth"] for info in await infos(ws, started, 3)]
            assert depths == sorted(depths) and depths[-1] > depths[0], depths
            # the worker runs it: both servers read it from the queue
            assert wait_engine(b, lambda s: s["running"] == 1)["running"] == 1
            await ws.send(json.dumps({"type": "stop"}))
            done = await recv_until(ws, "done", timeout=WAIT_S)
            assert done == {"type": "done", "id": started["id"], "reason": "stopped"}
        # the search had half a minute to go: stopped, the worker (one job at a time) takes
        # the next analysis, asked through the other server, and streams it
        wait_engine(a, idle)
        async with websockets.connect(analysis_url(b), open_timeout=30) as ws:
            again = await start(ws, variant="fugue", movetime_ms=60_000)
            assert again["type"] == "started", again
            await infos(ws, again, 3)
            await ws.send(json.dumps({"type": "stop"}))
            assert (await recv_until(ws, "done", timeout=WAIT_S))["reason"] == "stopped"
            # a short one runs to its end
            short = await start(ws, variant="interweave", movetime_ms=300)
            assert short["type"] == "started", short
            await infos(ws, short, 1)
            done = await recv_until(ws, "done", timeout=WAIT_S)
            assert done == {"type": "done", "id": short["id"], "reason": "finished"}

    run_async(run)
    wait_engine(b, idle)


def test_a_game_report_is_made_by_the_workers(cluster: Cluster) -> None:
    a, b = (s.url for s in cluster.servers)
    with httpx.Client(base_url=a, timeout=60.0) as c:
        game = blunder_game(c)
        assert c.post(f"/api/games/{game}/report", json={}).status_code == 200
    with httpx.Client(base_url=b, timeout=60.0) as c:  # shared: read through the other server
        done = wait_report(c, game, lambda d: d["status"] == "done")
    assert done["done"] == done["total"] == 3
    blunder, _reply = done["report"]["moves"]
    assert blunder["move"] == MISSED and blunder["mark"] == "??" and blunder["best"] == BETTER


async def both_queued(redis: Any) -> None:
    while await redis.zcard(QUEUE_NAME) < 2:
        await asyncio.sleep(0.02)


def test_an_analysis_stopped_while_queued_is_skipped_by_the_worker(cluster: Cluster) -> None:
    """The worker (one job at a time) is busy with A's analysis when B's is queued; B stops
    its own at once.  When the worker comes to B's job it sees the stop and skips it: the job's
    channel carries ``done`` without ever ``started`` (watched here on Redis itself)."""
    a, b = (s.url for s in cluster.servers)

    async def run() -> dict[str, list[str]]:
        from redis.asyncio import Redis

        redis = Redis.from_url(cluster.services.redis.url)
        watch = redis.pubsub()
        await watch.psubscribe("exochess:engine:live:*")
        seen: dict[str, list[str]] = {}
        try:
            async with (
                websockets.connect(analysis_url(a), open_timeout=30) as busy,
                websockets.connect(analysis_url(b), open_timeout=30) as queued,
            ):
                first = await start(busy, variant="rebelfury", movetime_ms=60_000)
                await infos(busy, first, 1)  # the worker is taken
                second = await start(queued, variant="fugue", movetime_ms=60_000)
                assert second["type"] == "started", second
                await asyncio.wait_for(both_queued(redis), WAIT_S)  # B's job waits behind A's
                await queued.send(json.dumps({"type": "stop"}))
                done = await recv_until(queued, "done", timeout=WAIT_S)
                assert done == {"type": "done", "id": second["id"], "reason": "stopped"}
                await busy.send(json.dumps({"type": "stop"}))
                await recv_until(busy, "done", timeout=WAIT_S)
            # two streams, each ended: the first started and stopped, the second only ended
            deadline = time.monotonic() + WAIT_S
            while len(seen) < 2 or any(kinds[-1] != "done" for kinds in seen.values()):
                assert time.monotonic() < deadline, seen
                msg = await watch.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if msg is None:  # nothing yet, or the subscription's own confirmation
                    continue
                kind = json.loads(msg["data"])["t"]
                seen.setdefault(msg["channel"].decode(), []).append(kind)
        finally:
            await watch.aclose()
            await redis.aclose()
        return seen

    seen = run_async(run)
    skipped = [kinds for kinds in seen.values() if "started" not in kinds]
    assert skipped == [["done"]], seen
    wait_engine(b, idle)
