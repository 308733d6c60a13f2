"""The load generator's player sockets (``bench/cluster.py``), against a real websocket server
on 127.0.0.1: what a seat reads from the states, busy refusals and errors it is sent, on both
of its socket libraries (picows; ``websockets`` when the players offer compression)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from tests.helpers import bench_script
from tests.web.serverproc import run_async

cluster = bench_script("cluster")


def state(ply: int, padding: int = 0) -> str:
    """A state as the site's begins, compact as its encoder writes it (the player reads only its
    type and ply)."""
    return f'{{"type":"state","id":"g","ply":{ply},"turn":"white","fens":["{"x" * padding}"]}}'


async def until_error(player: Any) -> None:
    """Wait (10 s at most) until the seat has an error."""
    async with asyncio.timeout(10):
        while player.error is None:
            player.changed.clear()
            await player.changed.wait()


async def talk(deflate: bool) -> tuple[Any, list[dict[str, Any]], int]:
    """Open a seat on a server that sends a busy refusal, a whole state, a fragmented 40 KB
    state and another error, then closes; (the player, what the server received, the
    refusals the seat had counted when it saw the fragmented state)."""
    heard: list[dict[str, Any]] = []
    go_on = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        heard.append(json.loads(await ws.recv()))
        await ws.send('{"type": "error", "error": "busy: try again in a moment", "status": 503}')
        await ws.send(state(3))
        big = state(5, padding=40_000)
        await ws.send([big[:20], big[20:30_000], big[30_000:]])  # three frames: the ply in none
        async with asyncio.timeout(10):  # a seat that never saw ply 5 fails the test, not hangs it
            await go_on.wait()
        await ws.send('{"type": "error", "error": "not your move", "status": 409}')
        heard.append(json.loads(await ws.recv()))
        await ws.close()

    async with serve(handler, "127.0.0.1", 0, compression="deflate" if deflate else None) as server:
        port = server.sockets[0].getsockname()[1]
        player = await cluster.open_seat(f"ws://127.0.0.1:{port}/ws/games/g", "s3cret", deflate)
        assert await player.wait_ply(5, time.monotonic() + 10)
        refused = player.refused
        go_on.set()
        await until_error(player)
        await player.link.send('{"type": "move", "move": "a1-a2", "ply": 5}')
        await asyncio.sleep(0.2)  # the server reads it, then closes
        await player.link.close()
    return player, heard, refused


@pytest.mark.parametrize("deflate", [False, True], ids=["picows", "websockets"])
def test_a_seat_reads_plies_refusals_and_errors(deflate: bool) -> None:
    player, heard, refused = run_async(lambda: talk(deflate))
    assert heard == [{"type": "auth", "secret": "s3cret"}, {"type": "move", "move": "a1-a2", "ply": 5}]
    assert player.ply == 5  # the fragmented state was put together
    assert refused == 1  # the busy refusal was counted, not taken for an error
    assert player.error is not None and "not your move" in player.error  # kept over the close


def test_a_closed_socket_fails_the_seat() -> None:
    async def run() -> Any:
        async def handler(ws: ServerConnection) -> None:
            await ws.recv()
            await ws.close(code=1012, reason="restart")

        async with serve(handler, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            player = await cluster.open_seat(f"ws://127.0.0.1:{port}/", "s", False)
            await until_error(player)
            return player

    player = run_async(run)
    assert player.error.startswith("closed")
