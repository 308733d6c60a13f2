"""Issue 41's targets, run by ``bench/web.py --fair`` and ``bench/web.py --ws-flood``.

``--fair``: an honest player's level-8 computer replies, quiet and then while 30 addresses
flood the site with level-8 computer games (each address creating games as fast as the site's
per-address limit lets it, the computer to move first, ignoring Retry-After); the honest game
is started before the flood and played over its websocket, a move at a time, each reply timed
from the move's acknowledgement to the computer's move arriving.  Target: flood p99 within
2 x the quiet time.

``--ws-flood``: the ping round trip of one game's socket (a ping every 250 ms), quiet and while
another game's socket sends pings as fast as it can (reconnecting when it is closed).
Target: p99 < 50 ms while flooded.

The server runs with the site's default per-address limits; every client has its own loopback
address (127.0.x.y).  Loops are bounded by ``--seconds``.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import random
import time
from collections import Counter
from typing import Any

import httpx
import websockets

LEVEL = 8


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def pick(nodes: list[dict[str, Any]], rng: random.Random) -> str:
    done: list[str] = []
    while nodes:
        node = rng.choice(nodes)
        done.append(node["text"])
        if node["end"] and (not node["next"] or rng.random() < 0.5):
            return ",".join(done)
        nodes = node["next"]
    raise RuntimeError("no legal move")


async def honest_replies(url: str, moves: int, address: str) -> list[float]:
    """Create a level-8 game (honest player White) and play ``moves`` moves; the reply times."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=url, transport=transport, timeout=600) as ac:
        while True:
            res = await ac.post(
                "/api/games",
                json={"variant": "fugue", "opponent": "computer", "level": LEVEL, "color": "white"},
            )
            if res.status_code == 201:
                break
            await asyncio.sleep(float(res.headers.get("retry-after", "1")))
        game = res.json()
    rng = random.Random(7)
    ws_url = url.replace("http", "ws") + f"/ws/games/{game['id']}"
    times: list[float] = []
    async with websockets.connect(ws_url, max_size=None, max_queue=None) as ws:
        await ws.send(json.dumps({"type": "auth", "secret": game["seats"]["white"]["secret"], "ref": "a"}))
        state: dict[str, Any] = {}
        while state.get("type") != "state":
            state = json.loads(await ws.recv())
        for i in range(moves):
            if state["status"] != "active":
                break
            ply = state["ply"]
            move = pick(state["legal"], rng)
            await ws.send(json.dumps({"type": "move", "move": move, "ply": ply, "ref": i}))
            acked = None
            while True:
                msg = json.loads(await ws.recv())
                if msg.get("type") == "ack" and acked is None:
                    acked = time.perf_counter()
                if msg.get("type") == "error":
                    raise RuntimeError(msg)
                if msg.get("type") == "state" and (msg["ply"] >= ply + 2 or msg["status"] != "active"):
                    state = msg
                    break
            assert acked is not None
            times.append(time.perf_counter() - acked)
            await asyncio.sleep(0.5)  # the player looks at the reply
    return times


async def flooder(url: str, address: str, until: float, answers: Counter[str]) -> None:
    """Create level-8 games, the computer first, as fast as the limits let one address."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=url, transport=transport, timeout=120) as ac:
        while time.monotonic() < until:
            try:
                res = await ac.post(
                    "/api/games",
                    json={"variant": "fugue", "opponent": "computer", "level": LEVEL, "color": "black"},
                )
            except httpx.HTTPError as exc:
                answers[type(exc).__name__] += 1
                await asyncio.sleep(1)
                continue
            answers[str(res.status_code)] += 1
            if res.status_code == 429:  # the per-address limit: wait as little as it says
                await asyncio.sleep(min(5.0, float(res.headers.get("retry-after", "1"))))
            else:
                await asyncio.sleep(0.2)  # a refusal's Retry-After is ignored


async def fair_report(url: str, moves: int, seconds: float) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=120) as ac:
        while (s := (await ac.get("/api/engine")).json())["ready"] < s["workers"]:
            await asyncio.sleep(0.2)
    quiet = await honest_replies(url, moves, "127.0.5.1")
    until = time.monotonic() + seconds
    answers: Counter[str] = Counter()
    flood = [asyncio.create_task(flooder(url, f"127.0.6.{i + 1}", until, answers)) for i in range(30)]
    await asyncio.sleep(min(10.0, seconds / 4))  # the flood is under way
    loaded = await honest_replies(url, moves, "127.0.5.2")
    await asyncio.gather(*flood)
    async with httpx.AsyncClient(base_url=url, timeout=120) as ac:
        engine = (await ac.get("/api/engine")).json()
    print(
        f"honest level-{LEVEL} reply, quiet ({len(quiet)} moves): p50 {pct(quiet, 50):.2f} s, "
        f"p99 {pct(quiet, 99):.2f} s, max {max(quiet):.2f} s"
    )
    print(
        f"honest level-{LEVEL} reply under a 30-address level-{LEVEL} flood ({len(loaded)} moves): "
        f"p50 {pct(loaded, 50):.2f} s, p99 {pct(loaded, 99):.2f} s, max {max(loaded):.2f} s; "
        f"p99 ratio {pct(loaded, 99) / pct(quiet, 99):.2f} (target <= 2)"
    )
    print(
        f"flood's game creations by answer: {dict(sorted(answers.items()))}; engine: "
        f"completed {engine['completed']}, refused {engine['refused']}, long games holding a place "
        f"{engine.get('long_games')}"
    )


async def pinger(url: str, until: float, rtts: list[float]) -> None:
    async with websockets.connect(url) as ws:
        while json.loads(await ws.recv()).get("type") != "state":
            pass
        i = 0
        while time.monotonic() < until:
            i += 1
            t0 = time.perf_counter()
            await ws.send(json.dumps({"type": "ping", "ref": f"p{i}"}))
            while (msg := json.loads(await ws.recv())).get("ref") != f"p{i}":
                pass
            assert msg["type"] == "pong"
            rtts.append(time.perf_counter() - t0)
            await asyncio.sleep(0.25)  # 4 a second: under the per-connection message limit


async def ping_flood(url: str, until: float, counts: Counter[str]) -> None:
    while time.monotonic() < until:
        try:
            async with websockets.connect(url, max_queue=None) as ws:
                counts["connections"] += 1
                while time.monotonic() < until:
                    await ws.send('{"type": "ping"}')
                    counts["pings sent"] += 1
                    if counts["pings sent"] % 100 == 0:
                        await asyncio.sleep(0)
        except websockets.ConnectionClosed as exc:
            counts[f"closed {exc.rcvd.code if exc.rcvd else '?'}"] += 1
        except (OSError, websockets.InvalidStatus) as exc:
            counts[type(exc).__name__] += 1
            await asyncio.sleep(1)  # refused (the per-address limit on connections)


def _flood_process(url: str, seconds: float, out: Any) -> None:
    """The flooding socket in a process of its own: in the measuring process its tight send
    loop would delay the measured pings' own event loop."""
    counts: Counter[str] = Counter()
    asyncio.run(ping_flood(url, time.monotonic() + seconds, counts))
    out.send(dict(counts))


async def ws_flood_report(url: str, seconds: float) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=60) as ac:
        calm_id = (await ac.post("/api/games", json={"variant": "fugue", "opponent": "friend"})).json()["id"]
        flood_id = (await ac.post("/api/games", json={"variant": "fugue", "opponent": "friend"})).json()["id"]
    base = url.replace("http", "ws")
    quiet: list[float] = []
    await pinger(f"{base}/ws/games/{calm_id}", time.monotonic() + seconds / 2, quiet)
    loaded: list[float] = []
    receive, send = multiprocessing.Pipe(duplex=False)
    proc = multiprocessing.get_context("spawn").Process(
        target=_flood_process, args=(f"{base}/ws/games/{flood_id}", seconds + 2, send)
    )
    proc.start()
    await asyncio.sleep(2)  # the flood is under way
    await pinger(f"{base}/ws/games/{calm_id}", time.monotonic() + seconds, loaded)
    counts = await asyncio.to_thread(receive.recv)
    proc.join(30)
    ms = [x * 1000 for x in quiet]
    lms = [x * 1000 for x in loaded]
    print(
        f"another game's ping round trip, quiet ({len(ms)}): p50 {pct(ms, 50):.1f} ms, "
        f"p99 {pct(ms, 99):.1f} ms"
    )
    print(
        f"  while one socket floods pings ({len(lms)}): p50 {pct(lms, 50):.1f} ms, "
        f"p99 {pct(lms, 99):.1f} ms, max {max(lms):.1f} ms (target p99 < 50 ms); flood: {dict(counts)}"
    )
