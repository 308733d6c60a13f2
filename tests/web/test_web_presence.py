"""Presence and websocket caps (issue 17 #4): a join or leave costs each watcher at most one small
message; connections per client address and per game are capped with a clear close code."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.web.serverproc import Server, run_async

WATCHERS = 500
PRESENCE_BYTES = 200
"""A presence message names two seats: well under this."""


@pytest.fixture()
def roomy_server(tmp_path: Path) -> Iterator[Server]:
    # every test client comes from 127.0.0.1: lift the per-address cap above the watcher count
    srv = Server(tmp_path / "presence.sqlite", env={"EXOCHESS_WS_PER_ADDRESS": str(WATCHERS + 10)}).start()
    yield srv
    srv.stop()


async def until(ws: Any, kind: str) -> list[dict[str, Any]]:
    """The messages received up to and including the first of type ``kind``."""
    got: list[dict[str, Any]] = []
    while True:
        got.append(json.loads(await asyncio.wait_for(ws.recv(), 30)))
        if got[-1]["type"] == kind:
            return got


def seen(message: dict[str, Any]) -> dict[str, Any]:
    """A presence message without its times (``absent_since``), after checking their shape."""
    if message.get("type") != "presence":
        return message
    absent = message["absent_since"]
    assert all((absent[c] is None) == message["online"][c] for c in ("white", "black"))
    return {k: v for k, v in message.items() if k != "absent_since"}


async def raw_until_pong(ws: Any) -> list[str]:
    """Ping, then every frame received before the pong (each frame is checked for its size)."""
    await ws.send(json.dumps({"type": "ping"}))
    frames: list[str] = []
    while True:
        frame = await asyncio.wait_for(ws.recv(), 30)
        if json.loads(frame)["type"] == "pong":
            return frames
        frames.append(frame)


def test_one_join_costs_each_of_500_watchers_one_small_message(roomy_server: Server) -> None:
    async def run() -> None:
        async with httpx.AsyncClient(base_url=roomy_server.url) as ac:
            data = (await ac.post("/api/games", json={"variant": "fugue", "opponent": "friend"})).json()
        white = data["seats"]["white"]["secret"]
        url = roomy_server.url.replace("http", "ws") + f"/ws/games/{data['id']}"
        watchers: list[Any] = []
        try:
            for _ in range(WATCHERS // 50):  # in batches, to stay within the listen backlog
                batch = await asyncio.gather(*(websockets.connect(url, max_queue=None) for _ in range(50)))
                watchers.extend(batch)
            # each watcher gets the hello, then the state (for itself alone)
            for ws in watchers:
                first = await until(ws, "state")
                assert [m["type"] for m in first] == ["hello", "state"]

            async def everyone_got(expected: list[dict[str, Any]]) -> None:
                for ws in watchers:
                    frames = await raw_until_pong(ws)
                    assert [seen(json.loads(f)) for f in frames] == expected
                    assert all(len(f) < PRESENCE_BYTES for f in frames)

            # a spectator's join and leave change nobody's view: no message at all
            async with websockets.connect(url) as spectator:
                await until(spectator, "state")
                await everyone_got([])
            # a player's join: one presence message each
            async with websockets.connect(url) as player:
                await until(player, "state")
                await player.send(json.dumps({"type": "auth", "secret": white}))
                assert (await until(player, "hello"))[-1]["you"] == "white"
                online = {"type": "presence", "online": {"white": True, "black": False}}
                await everyone_got([online])
            # the player's leave: one presence message each, and nothing else
            offline = {"type": "presence", "online": {"white": False, "black": False}}
            for ws in watchers:
                assert [seen(m) for m in await until(ws, "presence")] == [offline]
            await everyone_got([])
        finally:
            await asyncio.gather(*(ws.close() for ws in watchers), return_exceptions=True)

    run_async(run)


def test_websocket_caps_per_address_and_per_game(tmp_path: Path) -> None:
    srv = Server(
        tmp_path / "caps.sqlite", env={"EXOCHESS_WS_PER_ADDRESS": "3", "EXOCHESS_WS_PER_GAME": "2"}
    ).start()

    async def refused(url: str) -> websockets.frames.Close:
        async with websockets.connect(url) as ws:
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    await asyncio.wait_for(ws.recv(), 30)
        assert closed.value.rcvd is not None
        return closed.value.rcvd

    async def run() -> None:
        async with httpx.AsyncClient(base_url=srv.url) as ac:
            ids = [
                (await ac.post("/api/games", json={"variant": "fugue", "opponent": "friend"})).json()["id"]
                for _ in range(3)
            ]
        base = srv.url.replace("http", "ws") + "/ws/games/"
        a1 = await websockets.connect(base + ids[0])
        a2 = await websockets.connect(base + ids[0])
        for ws in (a1, a2):
            await until(ws, "state")
        close = await refused(base + ids[0])
        assert close.code == 4429 and "this game" in close.reason
        b1 = await websockets.connect(base + ids[1])
        await until(b1, "state")
        close = await refused(base + ids[2])
        assert close.code == 4429 and "your address" in close.reason
        # the caps count open connections: one closes, one more is welcome
        await a2.close()
        for _ in range(100):  # until the server has seen the close
            async with websockets.connect(base + ids[2]) as c:
                try:
                    await until(c, "state")
                    break
                except websockets.ConnectionClosed:
                    pass
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("a connection was refused after another one closed")
        for ws in (a1, b1):
            await ws.close()

    try:
        run_async(run)
    finally:
        srv.stop()
