"""Issue 42: no stale game on a surviving server.  A server killed after storing moves it never
announced leaves the other servers' cached copies behind the database; the survivor must serve
every game at its stored ply (REST, a new websocket, the websockets already open) soon after,
and never judge a clock from the old copy."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import websockets

from tests.cluster.common import a_move, game_state, new_game, recv_until, seated, ws_url
from tests.cluster.harness import Cluster
from tests.web.serverproc import run_async

WAIT_S = 60.0
"""Generous bound of every wait; the point is the state reached, not how fast."""
GAMES = 4


def stored(database_url: str, game_id: str) -> tuple[int, str]:
    from exochess.web.storage.store import Storage

    storage = Storage(database_url)
    try:
        mark = storage.game_mark(game_id)
    finally:
        storage.close()
    assert mark is not None
    return mark


def store_unannounced(database_url: str, game_id: str, ply: int, move: str) -> None:
    """What a server killed between storing a move and announcing it leaves: the move in the
    database, no message on Redis."""
    from exochess.web.domain import Stamp
    from exochess.web.storage.store import Storage
    from exochess.web.storage.store import now as storage_now

    storage = Storage(database_url)
    try:
        storage.add_move(game_id, ply, move, None, Stamp(None, None, storage_now()))
    finally:
        storage.close()


async def play_until_killed(
    url: str, gid: str, seats: dict[str, str], rng: random.Random, moved: asyncio.Event
) -> None:
    """Both seats on ``url`` playing moves until the server dies under them."""
    try:
        async with websockets.connect(ws_url(url, gid), open_timeout=30) as ws:
            state = await recv_until(ws, "state")
            while state["status"] == "active":
                ply = state["ply"]
                await ws.send(
                    json.dumps(
                        {
                            "type": "move",
                            "move": a_move(state, rng),
                            "ply": ply,
                            "ref": ply,
                            "secret": seats[state["turn"]],
                        }
                    )
                )
                state = await recv_until(ws, "state", lambda m, p=ply: m["ply"] > p)
                moved.set()
    except (websockets.ConnectionClosed, OSError, TimeoutError):
        return  # the server died


def test_a_survivor_serves_every_game_at_its_stored_ply(own_cluster: Cluster) -> None:
    a, b = own_cluster.servers
    database = own_cluster.services.postgres.url
    games = [new_game(a.url, opponent="friend") for _ in range(GAMES)]
    quiet = games[0]  # its last move is stored by "a" but never announced
    rng = random.Random(7)

    async def run() -> list[dict[str, Any]]:
        watchers = []
        for game in games:  # b holds every game in its cache, watched
            ws = await seated(ws_url(b.url, game["id"]), None)
            await recv_until(ws, "state")
            watchers.append(ws)
        state = game_state(b.url, quiet["id"])
        store_unannounced(database, quiet["id"], 0, a_move(state, rng))
        assert game_state(b.url, quiet["id"])["ply"] == 0  # b's copy is behind, for now
        moved = asyncio.Event()
        players = [
            asyncio.create_task(
                play_until_killed(
                    a.url, g["id"], {c: s["secret"] for c, s in g["seats"].items()}, random.Random(i), moved
                )
            )
            for i, g in enumerate(games[1:])
        ]
        await asyncio.wait_for(moved.wait(), WAIT_S)
        a.kill()  # SIGKILL while moves are in flight: no shutdown code runs
        await asyncio.gather(*players)
        # the watchers already on b get each game's stored state
        seen = []
        for game, ws in zip(games, watchers, strict=True):
            ply = stored(database, game["id"])[0]
            seen.append(await recv_until(ws, "state", lambda m, p=ply: m["ply"] == p, timeout=WAIT_S))
            await ws.close()
        return seen

    seen = run_async(run)
    for game, state in zip(games, seen, strict=True):
        ply, status = stored(database, game["id"])
        assert state["ply"] == ply
        # REST and a newly opened websocket on the survivor: the stored ply, its moves
        rest = game_state(b.url, game["id"])
        assert (rest["ply"], rest["status"], len(rest["moves"])) == (ply, status, ply)

        async def fresh(gid: str = game["id"]) -> dict[str, Any]:
            async with websockets.connect(ws_url(b.url, gid), open_timeout=30) as ws:
                return await recv_until(ws, "state")

        assert run_async(fresh)["ply"] == ply
    assert stored(database, quiet["id"])[0] == 1
