"""Issue 41, finding 5: one game websocket flooding pings raised another game's ping p99 from
5.5 to 499 ms.  Each connection now has a message limit (pings included): a flood is closed
with code 1008 and a reason saying why, a person's pace is answered, and the lobby socket,
which answers "slow down" first, closes a flood that goes on."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from exochess.web.limits import CLOSE_FLOOD, MessageLimit, RateLimits
from exochess.web.limits.catalogue import BY_NAME, parse_rate
from tests.web.serverproc import Server, create, run_async

FLOOD = 2000
"""Pings the flooding socket sends (bounded: the test ends whatever the server does)."""
BURST = min(item.amount for item in parse_rate(BY_NAME["game-messages"].default))
"""Messages a game socket may send at once (its default limit's smallest window)."""


@pytest.fixture(scope="module")
def flood_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("flood") / "flood.sqlite").start()
    yield srv
    srv.stop()


def ws_url(server: Server, path: str) -> str:
    return server.url.replace("http", "ws") + path


async def flood(url: str, first: str) -> tuple[int | None, str, int]:
    """Send :data:`FLOOD` pings as fast as possible; the close code and reason, and how many
    pongs came back."""
    pongs = 0
    async with websockets.connect(url, max_queue=None) as ws:
        while json.loads(await ws.recv()).get("type") != first:
            pass
        try:
            for i in range(FLOOD):
                await ws.send(json.dumps({"type": "ping", "ref": str(i)}))
        except ConnectionClosed:
            pass
        try:
            async with asyncio.timeout(60):
                while True:
                    if json.loads(await ws.recv()).get("type") == "pong":
                        pongs += 1
        except ConnectionClosed:
            pass
        assert ws.close_code is not None, "the flooding socket was never closed"
        return ws.close_code, ws.close_reason or "", pongs


def test_a_flooding_game_socket_is_closed_and_another_game_is_served(flood_server: Server) -> None:
    with httpx.Client(base_url=flood_server.url, timeout=30) as client:
        flooded = create(client, variant="fugue", opponent="friend")["id"]
        other = create(client, variant="fugue", opponent="friend")["id"]

    async def scenario() -> tuple[tuple[int | None, str, int], list[Any]]:
        async with websockets.connect(ws_url(flood_server, f"/ws/games/{other}")) as calm:
            while json.loads(await calm.recv()).get("type") != "state":
                pass
            result = await flood(ws_url(flood_server, f"/ws/games/{flooded}"), "state")
            # the other game's socket, at a person's pace, is answered throughout
            replies = []
            for i in range(5):
                await calm.send(json.dumps({"type": "ping", "ref": f"calm{i}"}))
                while (msg := json.loads(await calm.recv())).get("type") != "pong":
                    pass
                replies.append(msg["ref"])
            return result, replies

    (code, reason, pongs), replies = run_async(scenario)
    assert code == CLOSE_FLOOD and "too many messages" in reason, (code, reason)
    assert pongs <= BURST + 10, pongs  # the burst and what came in meanwhile, no more
    assert replies == [f"calm{i}" for i in range(5)]


def test_a_person_pace_is_never_closed() -> None:
    now = [1000.0]
    limit = MessageLimit(RateLimits(None, clock=lambda: now[0]), "game-messages")  # the defaults
    for _ in range(40):  # a burst (a reconnect: auth, pings, a move)
        assert limit.check() == "ok"
    for _ in range(600):  # then a message every 0.2 s for two minutes
        now[0] += 0.2
        assert limit.check() == "ok"
    # past the limit, "slow" then "close"
    lobby = MessageLimit(
        RateLimits("lobby-messages=2/second", clock=lambda: now[0]), "lobby-messages", strikes=3
    )
    assert [lobby.check() for _ in range(6)] == ["ok", "ok", "slow", "slow", "slow", "close"]
    assert "at most 2 per 1 second" in lobby.reason()


def test_a_sustained_flood_is_refused_and_another_connection_is_not() -> None:
    """A connection sending 20 messages a second (over its sustained 8 a second) is refused
    within the minute; another connection, with a key of its own, is not."""
    now = [1000.0]
    limits = RateLimits(None, clock=lambda: now[0])
    flooding, other = MessageLimit(limits, "game-messages"), MessageLimit(limits, "game-messages")
    verdict = "ok"
    for _ in range(60 * 20):
        now[0] += 0.05
        verdict = flooding.check()
        if verdict != "ok":
            break
    assert verdict == "close"
    assert other.check() == "ok"


def test_a_flooding_lobby_socket_is_closed(flood_server: Server) -> None:
    code, reason, _pongs = run_async(lambda: flood(ws_url(flood_server, "/ws/lobby"), "lobby"))
    assert code == CLOSE_FLOOD and "too many messages" in reason, (code, reason)
