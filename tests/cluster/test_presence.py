"""Presence across server processes (issue 18): seats, the absence claim, the lobby's posters
and the websocket caps count the connections of every server, and a server that dies stops
counting after a short time.  The sites here repeat their counts every half second."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis
import websockets

from tests.cluster.common import a_move, game_state, new_game, recv_until, seated, ws_url
from tests.cluster.harness import Cluster, Services
from tests.web.serverproc import LOOSE_LOBBY, run_async

LIMIT_MS = 3000
"""The absence limit (and first-move limit) of these sites (``$EXOCHESS_TEST_TIMING``)."""
ENV = {
    "EXOCHESS_PRESENCE_REFRESH_S": "0.5",  # a dead server's counts expire after 1.5 s
    "EXOCHESS_LOBBY_GRACE_S": "1",
    "EXOCHESS_RATE_LIMITS": LOOSE_LOBBY,
    "EXOCHESS_TEST_TIMING": str(LIMIT_MS),
    "EXOCHESS_WS_PER_ADDRESS": "4",
    "EXOCHESS_WS_PER_GAME": "2",
}
WAIT_S = 30.0


@pytest.fixture(scope="module")
def site(services: Services) -> Iterator[Cluster]:
    cluster = Cluster(services, servers=2, workers=0, env=ENV).start()
    yield cluster
    cluster.stop()


@pytest.fixture()
def own_site(services: Services) -> Iterator[Cluster]:
    cluster = Cluster(services, servers=2, workers=0, env=ENV).start()
    yield cluster
    cluster.stop()


def ws(base: str, path: str) -> str:
    return base.replace("http://", "ws://") + path


def play_two_moves(base: str, game: dict[str, Any]) -> None:
    """White and Black move once each (a claim needs a started game)."""
    rng = random.Random(game["id"])
    for ply, color in enumerate(("white", "black")):
        state = game_state(base, game["id"])
        res = httpx.post(
            f"{base}/api/games/{game['id']}/moves",
            timeout=30,
            json={"secret": game["seats"][color]["secret"], "move": a_move(state, rng), "ply": ply},
        )
        assert res.status_code == 200, res.text


def claim(base: str, game: dict[str, Any], color: str) -> httpx.Response:
    return httpx.post(
        f"{base}/api/games/{game['id']}/claim", timeout=30, json={"secret": game["seats"][color]["secret"]}
    )


def claim_when_allowed(base: str, game: dict[str, Any], color: str) -> httpx.Response:
    deadline = time.monotonic() + WAIT_S
    while True:
        res = claim(base, game, color)
        if res.status_code == 200 or time.monotonic() > deadline:
            return res
        assert res.status_code == 409 and "too early" in res.json()["error"], res.text
        time.sleep(0.2)


def listed(base: str) -> set[str]:
    res = httpx.get(base + "/api/challenges", timeout=30)
    return {c["id"] for c in res.json()["challenges"]}


def test_the_absence_claim_counts_the_other_servers_seats(site: Cluster) -> None:
    a, b = (s.url for s in site.servers)
    game = new_game(a, opponent="friend", time_control="1+0")
    play_two_moves(a, game)

    async def run() -> None:
        black = await seated(ws_url(b, game["id"]), game["seats"]["black"]["secret"])
        await recv_until(black, "hello", lambda m: m["you"] == "black")
        white = await seated(ws_url(a, game["id"]), game["seats"]["white"]["secret"])
        await recv_until(white, "hello", lambda m: m["you"] == "white")
        await recv_until(black, "presence", lambda m: m["online"]["white"])
        # White sits on server A: through server B, Black's claim sees White connected
        res = claim(b, game, "black")
        assert res.status_code == 409 and "connected" in res.json()["error"], res.text
        await white.close()
        gone = await recv_until(black, "presence", lambda m: not m["online"]["white"])
        assert isinstance(gone["absent_since"]["white"], int)
        # server B started White's absence clock when server A said White left
        res = claim(b, game, "black")
        assert res.status_code == 409 and "too early" in res.json()["error"], res.text
        await black.close()

    run_async(run)
    res = claim_when_allowed(b, game, "black")
    assert res.status_code == 200, res.text
    assert (res.json()["result"], res.json()["termination"]) == ("0-1", "abandoned")


def test_the_lobby_keeps_a_challenge_while_its_poster_is_on_any_server(site: Cluster) -> None:
    a, b = (s.url for s in site.servers)
    alice = secrets.token_urlsafe(18)

    async def run() -> None:
        on_a = await websockets.connect(ws(a, "/ws/lobby"))
        await recv_until(on_a, "lobby")
        await on_a.send(json.dumps({"type": "hello", "player": alice, "ref": 1}))
        await recv_until(on_a, "hello")
        await on_a.send(
            json.dumps(
                {
                    "type": "post",
                    "variant": "fugue",
                    "time_control": "3+2",
                    "color": "white",
                    "name": "Alice",
                    "player": alice,
                    "ref": "p",
                }
            )
        )
        cid = (await recv_until(on_a, "posted"))["challenge"]["id"]
        # Alice's page reconnects to the other server, then the first socket closes
        on_b = await websockets.connect(ws(b, "/ws/lobby"))
        await recv_until(on_b, "lobby")
        await on_b.send(json.dumps({"type": "hello", "player": alice, "ref": 2}))
        await recv_until(on_b, "hello")
        await asyncio.sleep(1.0)  # her count on B has reached Redis (written every 0.5 s at most)
        await on_a.close()
        await asyncio.sleep(3.0)  # well past the grace time
        assert cid in await asyncio.to_thread(listed, a)
        await on_b.close()  # she leaves for good: the challenge goes after the grace time
        deadline = time.monotonic() + WAIT_S
        while cid in await asyncio.to_thread(listed, a):
            assert time.monotonic() < deadline, "the challenge outlived its poster"
            await asyncio.sleep(0.2)

    run_async(run)


def _counted(redis_url: str, kind: str, key: str, total: int) -> None:
    """Wait until the servers' counts of ``kind`` ``key`` in Redis add up to ``total``."""
    client = redis.Redis.from_url(redis_url)
    try:
        deadline = time.monotonic() + WAIT_S
        while True:
            counts = client.hgetall(f"exochess:count:{kind}:{key}")
            assert isinstance(counts, dict)  # the synchronous client's answer (typed as either client's)
            values = counts.values()
            if sum(int(v.split()[0]) for v in values) == total:
                return
            assert time.monotonic() < deadline, f"{kind} {key}: {list(values)}"
            time.sleep(0.05)
    finally:
        client.close()


def test_websocket_caps_hold_for_the_whole_site(site: Cluster) -> None:
    a, b = (s.url for s in site.servers)
    redis_url = site.services.redis.url
    first, second, third = (new_game(a, opponent="friend")["id"] for _ in range(3))

    async def refused(base: str, gid: str) -> str:
        sock = await websockets.connect(ws_url(base, gid))
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await asyncio.wait_for(sock.recv(), WAIT_S)
        assert sock.close_code == 4429
        return str(sock.close_reason)

    async def run() -> None:
        open_ = [await seated(ws_url(a, first), None), await seated(ws_url(b, first), None)]
        await asyncio.to_thread(_counted, redis_url, "ws-game", first, 2)
        # two watchers of the game (one per server) is the cap: a third is refused on either
        assert "this game" in await refused(a, first)
        assert "this game" in await refused(b, first)
        open_ += [await seated(ws_url(a, second), None), await seated(ws_url(b, second), None)]
        await asyncio.to_thread(_counted, redis_url, "ws-address", "127.0.0.1", 4)
        # four from this address over the two servers is the cap
        assert "your address" in await refused(b, third)
        await open_.pop().close()
        await asyncio.to_thread(_counted, redis_url, "ws-address", "127.0.0.1", 3)
        sock = await seated(ws_url(b, third), None)
        await recv_until(sock, "state")
        await sock.close()
        for sock in open_:
            await sock.close()

    run_async(run)


def test_a_dead_servers_players_and_posters_go_away(own_site: Cluster) -> None:
    a, b = own_site.servers
    game = new_game(a.url, opponent="friend", time_control="1+0")
    play_two_moves(a.url, game)
    alice = secrets.token_urlsafe(18)

    async def run() -> None:
        white = await seated(ws_url(a.url, game["id"]), game["seats"]["white"]["secret"])
        await recv_until(white, "hello", lambda m: m["you"] == "white")
        poster = await websockets.connect(ws(a.url, "/ws/lobby"))
        await recv_until(poster, "lobby")
        await poster.send(json.dumps({"type": "hello", "player": alice, "ref": 1}))
        await recv_until(poster, "hello")
        await poster.send(
            json.dumps(
                {
                    "type": "post",
                    "variant": "fugue",
                    "time_control": "3+2",
                    "color": "white",
                    "name": "Alice",
                    "player": alice,
                    "ref": "p",
                }
            )
        )
        cid = (await recv_until(poster, "posted"))["challenge"]["id"]
        black = await seated(ws_url(b.url, game["id"]), game["seats"]["black"]["secret"])
        await recv_until(black, "presence", lambda m: m["online"]["white"], timeout=WAIT_S)
        a.kill()  # SIGKILL: White's and Alice's sockets close, and nobody on A tells anyone
        # server B stops counting A's seats when they are not repeated: Black sees White gone
        gone = await recv_until(black, "presence", lambda m: not m["online"]["white"], timeout=WAIT_S)
        assert isinstance(gone["absent_since"]["white"], int)
        res = await asyncio.to_thread(claim_when_allowed, b.url, game, "black")
        assert res.status_code == 200, res.text
        # and Alice's real-time challenge goes, as if she had closed the lobby
        deadline = time.monotonic() + WAIT_S
        while cid in await asyncio.to_thread(listed, b.url):
            assert time.monotonic() < deadline, "the dead server's poster kept her challenge"
            await asyncio.sleep(0.2)
        await black.close()

    run_async(run)


def test_every_watcher_sees_the_presence_its_server_ends_with(services: Services) -> None:
    """Seats taken and left on two servers at once, watched from both: whatever order the
    servers hear of each other's seats in, every watcher's last word is the site's presence.

    (CI caught a watcher left with "Black offline" although both seats were connected: a server
    heard of the other's seat after announcing its own, and nobody announced the change.)"""
    env = {**ENV, "EXOCHESS_WS_PER_GAME": "8", "EXOCHESS_WS_PER_ADDRESS": "200"}
    cluster = Cluster(services, servers=2, workers=0, env=env).start()
    try:
        a, b = (s.url for s in cluster.servers)
        games = [new_game(a, opponent="friend") for _ in range(6)]

        async def settles_on(sock: Any, online: dict[str, bool]) -> None:
            """Read ``sock`` until its latest presence is ``online``."""
            latest: dict[str, bool] | None = None
            deadline = time.monotonic() + WAIT_S
            while latest != online:
                try:
                    msg = json.loads(await asyncio.wait_for(sock.recv(), deadline - time.monotonic()))
                except TimeoutError:
                    left = f"a watcher was left with {latest}, the seats being {online}"
                    raise AssertionError(left) from None
                if msg["type"] in ("state", "presence"):
                    latest = msg["online"]

        async def one_game(game: dict[str, Any]) -> None:
            gid, secrets_ = game["id"], game["seats"]
            watchers = [await seated(ws_url(base, gid), None) for base in (a, b)]
            for sock in watchers:
                await recv_until(sock, "hello")
            # both seats at the same moment, one on each server
            white, black = await asyncio.gather(
                seated(ws_url(a, gid), secrets_["white"]["secret"]),
                seated(ws_url(b, gid), secrets_["black"]["secret"]),
            )
            await asyncio.gather(*(settles_on(s, {"white": True, "black": True}) for s in watchers))
            await asyncio.gather(white.close(), black.close())
            await asyncio.gather(*(settles_on(s, {"white": False, "black": False}) for s in watchers))
            for sock in watchers:
                await sock.close()

        async def run() -> None:
            await asyncio.gather(*(one_game(game) for game in games))

        run_async(run)
    finally:
        cluster.stop()
