"""Issue 45, item 2: live analysis over the websocket ``/ws/analysis``.

A real server on 127.0.0.1 with two engine workers (one of them takes analyses).  The stream
shows several iterations with three lines each; ``stop`` frees the worker at once; the pool's
bound per client refuses a third analysis politely; a game in progress between people is
refused.  Every wait is on a message or on the pool's counters, with generous bounds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from exochess.web.compute.enginepool import PER_CLIENT_LIMIT
from tests.web.serverproc import Server, create, recv_until, run_async
from tests.web.test_web_engine_limits import idle, wait_for

WAIT_S = 120.0
"""Bound on waiting for any one message (a loaded machine may be slow; nothing is timed)."""


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(Path(tmp_path_factory.mktemp("live")) / "site.sqlite", engine_workers=2).start()
    with httpx.Client(base_url=srv.url, timeout=30.0) as c:
        assert c.get("/api/variants").json()["engine"], "these tests need the engine"
        wait_for(c, "ready", lambda s: s["ready"] == s["workers"])
    yield srv
    srv.stop()


def ws_url(server: Server) -> str:
    return server.url.replace("http", "ws") + "/ws/analysis"


async def start(ws: Any, skipped: list[dict[str, Any]] | None = None, **fields: Any) -> dict[str, Any]:
    """Send a ``start`` and return its reply (the messages before it go to ``skipped``)."""
    await ws.send(json.dumps({"type": "start", "ref": "s", **fields}))
    while True:
        msg = json.loads(await ws.recv())
        if msg.get("ref") == "s":
            return msg  # type: ignore[no-any-return]
        if skipped is not None:
            skipped.append(msg)


def test_three_lines_deepen_then_stop_frees_the_worker(live_server: Server) -> None:
    async def run() -> None:
        async with websockets.connect(ws_url(live_server)) as ws:
            started = await start(ws, variant="rebelfury", movetime_ms=60_000)
            assert started["type"] == "started", started
            depths: list[int] = []
            while len(depths) < 3:
                info = await recv_until(ws, "info", timeout=WAIT_S)
                assert info["id"] == started["id"]
                assert len(info["lines"]) == 3, info
                assert [line["multipv"] for line in info["lines"]] == [1, 2, 3]
                assert all(line["pv"] for line in info["lines"])
                assert info["nps"] >= 0 and info["side_to_move"] == "white"
                depths.append(info["depth"])
            assert depths == sorted(depths) and depths[-1] > depths[0], depths
            with httpx.Client(base_url=live_server.url) as c:
                assert c.get("/api/engine").json()["running"] == 1
                await ws.send(json.dumps({"type": "stop"}))
                done = await recv_until(ws, "done", timeout=WAIT_S)
                assert done == {"type": "done", "id": started["id"], "reason": "stopped"}
                # the worker is free as soon as the stop is answered (the search's time was a minute)
                stats = c.get("/api/engine").json()
                assert stats["running"] == 0 and idle(stats), stats

    run_async(run)


def test_a_short_analysis_finishes_and_a_new_start_replaces_the_old(live_server: Server) -> None:
    async def run() -> None:
        async with websockets.connect(ws_url(live_server)) as ws:
            first = await start(ws, variant="fugue", movetime_ms=60_000)
            await recv_until(ws, "info", timeout=WAIT_S)
            before: list[dict[str, Any]] = []
            second = await start(ws, before, variant="fugue", moves=["d2-d3"], movetime_ms=200, lines=2)
            assert second["id"] == first["id"] + 1
            # the first is stopped before the second starts; the second runs to its end
            assert {"type": "done", "id": first["id"], "reason": "stopped"} in before, before
            info = await recv_until(ws, "info", lambda m: m["id"] == second["id"], timeout=WAIT_S)
            assert info["side_to_move"] == "black" and 1 <= len(info["lines"]) <= 2
            done = await recv_until(ws, "done", lambda m: m["id"] == second["id"], timeout=WAIT_S)
            assert done["reason"] == "finished"

    run_async(run)


def test_bounds_and_bad_messages_are_refused_politely(live_server: Server) -> None:
    async def run() -> None:
        sockets = [await websockets.connect(ws_url(live_server)) for _ in range(PER_CLIENT_LIMIT + 1)]
        try:
            for ws in sockets[:PER_CLIENT_LIMIT]:
                assert (await start(ws, variant="fugue", movetime_ms=60_000))["type"] == "started"
            refused = await start(sockets[-1], variant="fugue", movetime_ms=60_000)
            assert refused["type"] == "error" and refused["status"] == 429, refused
            assert f"at most {PER_CLIENT_LIMIT}" in refused["error"]
            ws = sockets[-1]
            # bad positions and messages: the reason, and the connection stays usable
            bad = await start(ws, variant="fugue", fen="not a fen")
            assert bad["status"] == 400 and "FEN" in bad["error"], bad
            bad = await start(ws, variant="fugue", moves=["e2-e5"])
            assert bad["status"] == 422 and "move 1 (e2-e5)" in bad["error"], bad
            bad = await start(ws, variant="fugue", lines=9)
            assert bad["status"] == 400 and "lines" in bad["error"], bad
            await ws.send("{oops")
            assert "malformed JSON" in (await recv_until(ws, "error"))["error"]
            await ws.send(json.dumps({"type": "ping", "ref": 7}))
            assert (await recv_until(ws, "pong"))["ref"] == 7
        finally:
            for ws in sockets:
                await ws.close()
        with httpx.Client(base_url=live_server.url) as c:
            wait_for(c, "idle after the sockets closed", idle)

    run_async(run)


def test_no_engine_for_a_game_between_people_in_progress(live_server: Server) -> None:
    with httpx.Client(base_url=live_server.url) as c:
        game = create(c, variant="fugue", opponent="friend")
        computer = create(c, variant="fugue", opponent="computer", level=1)

    async def run() -> None:
        async with websockets.connect(ws_url(live_server)) as ws:
            refused = await start(ws, variant="fugue", game=game["id"])
            assert refused["type"] == "error" and refused["status"] == 403, refused
            assert "no engine while a game between people is on" in refused["error"]
            missing = await start(ws, variant="fugue", game="nosuchgame")
            assert missing["status"] == 404, missing
            # a game against the computer is its player's own business
            ok = await start(ws, variant="fugue", game=computer["id"], movetime_ms=100)
            assert ok["type"] == "started", ok
            await recv_until(ws, "done", timeout=WAIT_S)

    run_async(run)
