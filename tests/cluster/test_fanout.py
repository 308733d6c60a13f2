"""Issue 18: two server processes on PostgreSQL + Redis and an engine worker behave as one site."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import httpx

from tests.cluster.common import a_move, game_state, new_game, recv_until, seated, ws_url
from tests.cluster.harness import Cluster, Services
from tests.web.serverproc import run_async


def test_a_move_through_one_server_reaches_the_watchers_of_the_other(cluster: Cluster) -> None:
    a, b = (s.url for s in cluster.servers)
    game = new_game(a, opponent="friend")
    gid, seats = game["id"], {c: s["secret"] for c, s in game["seats"].items()}
    rng = random.Random(18)

    async def run() -> list[float]:
        watcher = await seated(ws_url(a, gid), None)
        player = await seated(ws_url(b, gid), seats["black"])
        state = await recv_until(watcher, "state")
        waits = []
        async with httpx.AsyncClient(timeout=30) as client:
            for ply in range(6):
                mover = b if ply % 2 else a  # half the moves through each server
                text = a_move(state, rng)
                sent = time.perf_counter()
                res = await client.post(
                    f"{mover}/api/games/{gid}/moves",
                    json={"secret": seats[state["turn"]], "move": text, "ply": ply},
                )
                assert res.status_code == 200, res.text
                state = await recv_until(watcher, "state", lambda m, p=ply: m["ply"] == p + 1)
                waits.append(time.perf_counter() - sent)
                assert state["moves"][-1]["text"] == text
                # the player on server B sees the same state
                seen = await recv_until(player, "state", lambda m, p=ply: m["ply"] == p + 1)
                assert seen["fen"] == state["fen"]
        await watcher.close()
        await player.close()
        return waits

    waits = run_async(run)
    print(f"move to the other server's watcher: worst {max(waits) * 1000:.0f} ms")
    # both servers now answer the same game from the database, whichever stored the last move
    assert game_state(a, gid)["fens"] == game_state(b, gid)["fens"]


def test_presence_is_the_whole_sites(cluster: Cluster) -> None:
    a, b = (s.url for s in cluster.servers)
    game = new_game(a, opponent="friend")
    gid, white = game["id"], game["seats"]["white"]["secret"]

    async def run() -> None:
        watcher = await seated(ws_url(b, gid), None)
        await recv_until(watcher, "state")
        player = await seated(ws_url(a, gid), white)  # White sits down on the other server
        online = await recv_until(watcher, "presence", lambda m: m["online"]["white"])
        assert online["online"] == {"white": True, "black": False}
        assert game_state(b, gid)["online"]["white"] is True
        await player.close()
        await recv_until(watcher, "presence", lambda m: not m["online"]["white"])
        await watcher.close()

    run_async(run)


class Inbox:
    """A websocket as the hub sees one, keeping what it is sent."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def send_text(self, data: str) -> None:
        self.texts.append(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        pass


def test_hub_channels_cross_processes(services: Services) -> None:
    """Any hub key (the lobby, chat lines) reaches the connections of another process, through
    the same ``broadcast(key, message)`` that games use."""
    from exochess.web.live.hub import Hub
    from exochess.web.live.pubsub import RedisBus

    async def run() -> list[str]:
        hubs, buses = [], []
        for _ in range(2):
            hub, bus = Hub(), RedisBus(services.redis.url)
            hub.attach(bus)
            bus.on_message = hub.receive
            bus.start()
            await asyncio.wait_for(bus.subscribed.wait(), 10)
            hubs.append(hub)
            buses.append(bus)
        inbox = Inbox()
        hubs[1].join("lobby", inbox, None)
        await hubs[0].broadcast("lobby", '{"type": "seek", "id": 1}')
        await hubs[0].broadcast("chat:g1", '{"type": "chat"}')  # nobody listens: dropped
        for _ in range(200):
            if inbox.texts:
                break
            await asyncio.sleep(0.01)
        for hub, bus in zip(hubs, buses, strict=True):
            await hub.close()
            await bus.close()
        return inbox.texts

    assert run_async(run) == ['{"type": "seek", "id": 1}']


def test_computer_moves_come_from_the_worker(cluster: Cluster) -> None:
    a, b = (s.url for s in cluster.servers)
    game = new_game(a, opponent="computer", level=1, color="black")  # the computer opens
    gid, black = game["id"], game["seats"]["black"]["secret"]
    rng = random.Random(7)

    async def run() -> dict[str, Any]:
        ws = await seated(ws_url(b, gid), black)
        state = await recv_until(ws, "state", lambda m: m["ply"] == 1)
        async with httpx.AsyncClient(timeout=30) as client:
            res = await client.post(
                f"{b}/api/games/{gid}/moves", json={"secret": black, "move": a_move(state, rng), "ply": 1}
            )
            assert res.status_code == 200, res.text
        state = await recv_until(ws, "state", lambda m: m["ply"] == 3)
        await ws.close()
        return state

    state = run_async(run)
    assert state["turn"] == "black" and len(state["moves"]) == 3
    assert "engine move stored" in cluster.workers[0].log_text()


def test_health_readiness_and_metrics(cluster: Cluster) -> None:
    a = cluster.servers[0].url
    assert httpx.get(a + "/healthz").json() == {"status": "ok"}
    ready = httpx.get(a + "/readyz").json()
    assert ready["checks"] == {"database": "ok", "redis": "ok", "subscribed": "ok"}
    res = httpx.get(a + "/api/variants", headers={"X-Request-ID": "trace-18"})
    assert res.headers["X-Request-ID"] == "trace-18"
    metrics = httpx.get(a + "/metrics").text
    for name in ("exochess_http_requests_total", "exochess_websocket_clients", "exochess_engine_queue_depth"):
        assert name in metrics


def test_a_full_engine_queue_refuses_new_computer_games(services: Services) -> None:
    # no worker: the jobs stay queued; a queue of its own (Redis database 1)
    redis_url = services.redis.url.rsplit("/", 1)[0] + "/1"
    site = Cluster(
        services,
        servers=1,
        workers=0,
        env={"EXOCHESS_ENGINE_QUEUE_LIMIT": "2", "EXOCHESS_REDIS_URL": redis_url},
    ).start()
    try:
        url = site.servers[0].url
        for _ in range(2):  # the computer opens each: one job each
            new_game(url, opponent="computer", level=1, color="black")
        deadline = time.monotonic() + 30
        while True:
            res = httpx.post(
                url + "/api/games",
                json={"variant": "fugue", "opponent": "computer", "level": 1, "color": "black"},
                timeout=30,
            )
            if res.status_code != 201 or time.monotonic() > deadline:
                break
            time.sleep(0.2)  # the jobs are queued just after the games are created
        assert res.status_code == 503, res.text
        assert "the computer is busy" in res.json()["error"] and res.headers["Retry-After"] == "30"
        # games against a friend are never refused for the engine's sake
        assert new_game(url, opponent="friend")["id"]
    finally:
        site.stop()


def test_a_state_from_another_process_is_followed_by_the_presence_known_here(services: Services) -> None:
    """A state carries the presence its sender knew; the receiving process, knowing better (a
    seat here its sender has not heard of yet), has its own presence told after it, and only
    then."""
    from exochess.web.domain import Color
    from exochess.web.live.hub import Hub
    from exochess.web.live.pubsub import RedisBus

    async def run() -> tuple[list[str], list[str]]:
        sender, receiver = Hub(), Hub()
        seated, watching = Inbox(), Inbox()
        # joined before the bus is attached: the sender never hears of Black's seat here
        receiver.join("g1", seated, Color.BLACK)
        receiver.join("g2", watching, None)
        told: list[str] = []

        async def on_presence(key: str) -> None:
            told.append(key)

        receiver.on_presence = on_presence
        buses = []
        for hub in (sender, receiver):
            bus = RedisBus(services.redis.url)
            hub.attach(bus)
            bus.on_message = hub.receive
            bus.start()
            await asyncio.wait_for(bus.subscribed.wait(), 10)
            buses.append(bus)
        await sender.broadcast("g1", '{"type": "state"}', coalesce=True, changed=True)
        await sender.broadcast("g2", '{"type": "state"}', coalesce=True, changed=True)
        for _ in range(200):
            if seated.texts and watching.texts:
                break
            await asyncio.sleep(0.01)
        for hub, bus in zip((sender, receiver), buses, strict=True):
            await hub.close()
            await bus.close()
        return told, seated.texts + watching.texts

    told, delivered = run_async(run)
    assert delivered == ['{"type": "state"}', '{"type": "state"}']
    assert told == ["g1"]  # g2's seats are empty on both: nothing to correct
