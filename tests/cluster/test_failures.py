"""Issue 18's failure tests: a server killed with SIGKILL, Redis and PostgreSQL
restarted.  Each runs on a site of its own (two servers, one worker) and is bounded in time."""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import httpx
import websockets

from tests.cluster.common import a_move, game_state, new_game, recv_until, seated, ws_url
from tests.cluster.harness import Cluster, wait_ready
from tests.web.serverproc import run_async

GAMES = 4
PLIES = 40
"""Plies each game of the load plays, unless random play ends it sooner (the kill comes after
the first acknowledged move)."""


class Player:
    """Both seats of one game, on a websocket to one server; moves to the other server when its
    own one dies, as the game page does (it reconnects, gets the state, goes on)."""

    def __init__(self, gid: str, seats: dict[str, str], urls: list[str], first: int) -> None:
        self.gid, self.seats, self.urls, self.at = gid, seats, urls, first
        self.acked: list[tuple[int, str]] = []
        self.reconnects = 0
        self.rng = random.Random(gid)

    async def connect(self) -> tuple[Any, dict[str, Any]]:
        while True:
            try:
                ws = await websockets.connect(ws_url(self.urls[self.at], self.gid), open_timeout=5)
                return ws, await recv_until(ws, "state", timeout=10)
            except (OSError, websockets.WebSocketException, TimeoutError):
                self.at = (self.at + 1) % len(self.urls)
                self.reconnects += 1
                await asyncio.sleep(0.2)

    async def play(self, started: asyncio.Event) -> None:
        ws, state = await self.connect()
        while state["ply"] < PLIES and state["status"] == "active":
            ply, text = state["ply"], a_move(state, self.rng)
            try:
                await ws.send(
                    json.dumps(
                        {
                            "type": "move",
                            "move": text,
                            "ply": ply,
                            "ref": ply,
                            "secret": self.seats[state["turn"]],
                        }
                    )
                )
                # the new state comes before the ack (the server broadcasts, then answers)
                newer = None
                while True:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if msg["type"] == "state" and msg["ply"] > ply:
                        newer = msg
                    elif msg["type"] == "ack":
                        break
                    elif msg["type"] == "error":
                        # a server that missed a change (its announcer died) refuses the move as
                        # stale and sends the stored state: play on from it
                        assert msg.get("status") == 409, msg
                        break
                if msg["type"] == "ack":
                    self.acked.append((ply, text))
                    started.set()
                state = newer or await recv_until(ws, "state", lambda m, p=ply: m["ply"] > p, timeout=10)
            except (websockets.ConnectionClosed, OSError, TimeoutError):
                # server gone: the move may or may not be stored (no ack): the state says
                await ws.close()
                ws, state = await self.connect()
        await ws.close()


def test_a_server_killed_under_load(own_cluster: Cluster) -> None:
    a, b = own_cluster.servers
    urls = [a.url, b.url]
    players = []
    for i in range(GAMES):
        game = new_game(urls[i % 2], opponent="friend")
        players.append(Player(game["id"], {c: s["secret"] for c, s in game["seats"].items()}, urls, i % 2))

    async def run() -> None:
        started = asyncio.Event()
        tasks = [asyncio.create_task(p.play(started)) for p in players]
        await asyncio.wait_for(started.wait(), 30)
        a.kill()  # SIGKILL: no shutdown code runs
        await asyncio.wait_for(asyncio.gather(*tasks), 240)

    run_async(run)
    assert any(p.reconnects for p in players), "no client was on the killed server"
    for p in players:
        state = game_state(b.url, p.gid)
        stored = [m["text"] for m in state["moves"]]
        assert state["ply"] == len(stored)  # no move stored twice, none missing
        # random play ends about 1 Fugue game in 100 before PLIES (a royal captured): that game
        # must be over, not stopped short
        assert state["ply"] == PLIES or state["status"] != "active", state["status"]
        for ply, text in p.acked:  # every acknowledged move is there, at its ply
            assert stored[ply] == text


def test_redis_restarted(own_cluster: Cluster) -> None:
    a, b = own_cluster.servers
    game = new_game(a.url, opponent="friend")
    gid, seats = game["id"], {c: s["secret"] for c, s in game["seats"].items()}
    redis = own_cluster.services.redis
    rng = random.Random(3)

    async def run() -> None:
        watcher = await seated(ws_url(a.url, gid), None)
        state = await recv_until(watcher, "state")
        redis.stop()
        redis.start()  # same port, empty
        for server in (a, b):
            await asyncio.to_thread(wait_ready, server.url, 30)
        async with httpx.AsyncClient(timeout=30) as client:
            res = await client.post(
                f"{b.url}/api/games/{gid}/moves",
                json={"secret": seats["white"], "move": a_move(state, rng), "ply": 0},
            )
            assert res.status_code == 200, res.text
        state = await recv_until(watcher, "state", lambda m: m["ply"] == 1)
        await watcher.close()

    run_async(run)
    # and the engine queue works again: a computer game gets its first move
    computer = new_game(b.url, opponent="computer", level=1, color="black")
    deadline = time.monotonic() + 30
    while game_state(a.url, computer["id"])["ply"] == 0:
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_postgresql_restarted(own_cluster: Cluster) -> None:
    a, b = own_cluster.servers
    game = new_game(a.url, opponent="friend")
    gid, seats = game["id"], {c: s["secret"] for c, s in game["seats"].items()}
    postgres = own_cluster.services.postgres
    rng = random.Random(5)
    state = game_state(a.url, gid)
    first = a_move(state, rng)
    assert (
        httpx.post(
            f"{a.url}/api/games/{gid}/moves", json={"secret": seats["white"], "move": first, "ply": 0}
        ).status_code
        == 200
    )
    state = game_state(b.url, gid)
    postgres.stop()
    try:
        res = httpx.post(
            f"{b.url}/api/games/{gid}/moves",
            json={"secret": seats["black"], "move": a_move(state, rng), "ply": 1},
            timeout=30,
        )
        assert res.status_code == 503, res.text
        assert "database" in res.json()["error"]
        ready = httpx.get(a.url + "/readyz", timeout=30)
        assert ready.status_code == 503 and ready.json()["checks"]["database"] != "ok"
    finally:
        postgres.start()
    wait_ready(a.url, 30)
    res = httpx.post(
        f"{b.url}/api/games/{gid}/moves",
        json={"secret": seats["black"], "move": a_move(state, rng), "ply": 1},
        timeout=30,
    )
    assert res.status_code == 200, res.text
    after = game_state(a.url, gid)
    assert after["ply"] == 2 and after["moves"][0]["text"] == first  # nothing acknowledged was lost


def test_a_computer_move_nobody_queued_is_swept_up(services: Any) -> None:
    """A server that dies between storing a player's move and queueing the computer's reply
    (simulated: the move is stored straight into the database, nothing queued, nothing
    announced): a surviving server's sweep queues the reply, which is stored once."""
    from exochess.web.domain import Stamp
    from exochess.web.storage.store import Storage
    from exochess.web.storage.store import now as storage_now

    site = Cluster(
        services,
        servers=2,
        workers=1,
        env={"EXOCHESS_ENGINE_SWEEP_S": "0.5", "EXOCHESS_ENGINE_SWEEP_AFTER_S": "1"},
    ).start()
    try:
        a, b = site.servers
        game = new_game(a.url, opponent="computer", level=1, color="white")
        gid = game["id"]
        state = game_state(b.url, gid)  # both servers hold the game now, at ply 0
        assert game_state(a.url, gid)["ply"] == 0
        move = a_move(state, random.Random(11))

        async def run() -> dict[str, Any]:
            watcher = await seated(ws_url(b.url, gid), None)
            await recv_until(watcher, "state")
            storage = Storage(services.postgres.url)
            try:
                storage.add_move(gid, 0, move, None, Stamp(None, None, storage_now()))
            finally:
                storage.close()
            # the watcher on the server that knew nothing of the move gets the reply
            reply = await recv_until(watcher, "state", lambda m: m["ply"] == 2, timeout=30)
            await watcher.close()
            return reply

        reply = run_async(run)
        assert reply["moves"][0]["text"] == move
        time.sleep(1.5)  # further rounds of the sweep find nothing to do
        for server in (a, b):
            after = game_state(server.url, gid)
            assert after["ply"] == 2 and len(after["moves"]) == 2
    finally:
        site.stop()
