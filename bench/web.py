"""Web benchmark: move round-trip p99 with 200 concurrent live games on SQLite, game page load
time, first engine reply at level 4, and a level-1 reply while 20 clients flood the engine with
analyses.  Starts its own server on 127.0.0.1 with a temp SQLite file.

    python bench/web.py [--games 200] [--moves 10] [--engine-only]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "web"))
from serverproc import Server


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def open_game(
    ws_base: str, gid: str, secrets: dict[str, str], gate: asyncio.Semaphore
) -> dict[str, Any]:
    socks = {}
    for color in ("white", "black"):
        async with gate:
            socks[color] = await websockets.connect(
                f"{ws_base}/ws/games/{gid}", open_timeout=120, max_queue=None
            )
            await socks[color].send(json.dumps({"type": "auth", "secret": secrets[color]}))
    return socks


async def next_state(sock: Any, ply: int) -> dict[str, Any]:
    while True:
        msg = json.loads(await sock.recv())
        if msg["type"] == "state" and msg["ply"] >= ply:
            return msg  # type: ignore[no-any-return]


async def play_game(socks: dict[str, Any], moves: int, lat: list[float], think: tuple[float, float]) -> None:
    state = await next_state(socks["white"], 0)
    rng = random.Random(id(socks))
    for ply in range(moves):
        if state["status"] != "active":
            break
        if think[1] > 0:
            await asyncio.sleep(rng.uniform(*think))
        mover = socks[state["turn"]]
        text = state["legal"][(ply * 7) % len(state["legal"])]["text"]
        t0 = time.perf_counter()
        await mover.send(json.dumps({"type": "move", "move": text, "ply": ply, "ref": ply}))
        latest = None
        while True:
            msg = json.loads(await mover.recv())
            if msg["type"] == "state" and msg["ply"] == ply + 1:
                latest = msg
            if msg["type"] == "ack":
                lat.append(time.perf_counter() - t0)
                break
            if msg["type"] == "error":
                raise RuntimeError(msg["error"])
        state = latest or await next_state(mover, ply + 1)


async def round_trips(
    server: Server, games: int, moves: int, think: tuple[float, float]
) -> tuple[list[float], float]:
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as ac:
        created = []
        for _ in range(games):
            d = (await ac.post("/api/games", json={"variant": "fugue", "opponent": "friend"})).json()
            created.append((d["id"], {c: s["secret"] for c, s in d["seats"].items()}))
    lat: list[float] = []
    ws_base = server.url.replace("http", "ws")
    gate = asyncio.Semaphore(16)
    t_open = time.perf_counter()
    games_socks = await asyncio.gather(*(open_game(ws_base, gid, sec, gate) for gid, sec in created))
    print(f"  ({2 * len(created)} websockets opened in {time.perf_counter() - t_open:.1f}s)")
    t0 = time.perf_counter()
    await asyncio.gather(*(play_game(socks, moves, lat, think) for socks in games_socks))
    wall = time.perf_counter() - t0
    for socks in games_socks:
        for sock in socks.values():
            await sock.close()
    return lat, wall


async def join_cost(server: Server, watchers: int) -> tuple[int, int]:
    """Frames and bytes that ``watchers`` spectators of a game receive, in all, when one player
    connects and claims their seat (each watcher's ping, answered after the join's messages,
    marks the end)."""
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as ac:
        d = (await ac.post("/api/games", json={"variant": "fugue", "opponent": "friend"})).json()
    url = server.url.replace("http", "ws") + f"/ws/games/{d['id']}"
    socks = []
    for _ in range(0, watchers, 50):
        socks += await asyncio.gather(*(websockets.connect(url, max_queue=None, open_timeout=300)
                                        for _ in range(50)))
    socks = socks[:watchers]
    for sock in socks:  # drain what the watchers' own joins brought
        await sock.send(json.dumps({"type": "ping"}))
        while json.loads(await sock.recv())["type"] != "pong":
            pass
    async with websockets.connect(url) as player:
        await player.send(json.dumps({"type": "auth", "secret": d["seats"]["white"]["secret"]}))
        while json.loads(await player.recv()).get("you") != "white":
            pass
        frames = size = 0
        for sock in socks:
            await sock.send(json.dumps({"type": "ping"}))
            while (frame := await sock.recv()) and json.loads(frame)["type"] != "pong":
                frames += 1
                size += len(frame)
    await asyncio.gather(*(s.close() for s in socks))
    return frames, size


def page_load(server: Server, gid: str) -> tuple[float, float | None]:
    t = []
    with httpx.Client(base_url=server.url) as client:
        client.get(f"/game/{gid}").raise_for_status()
        for _ in range(20):
            t0 = time.perf_counter()
            client.get(f"/game/{gid}").raise_for_status()
            t.append(time.perf_counter() - t0)
    html_ms = statistics.median(t) * 1000
    if not os.path.exists("/usr/bin/chromium"):
        return html_ms, None
    from playwright.sync_api import sync_playwright

    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
        page = browser.new_page()
        page.goto(f"{server.url}/game/{gid}")  # warm the cache once
        loads = []
        for _ in range(5):
            t0 = time.perf_counter()
            page.goto(f"{server.url}/game/{gid}")
            page.wait_for_selector("#game[data-connected='1'] svg.board .piece")
            loads.append(time.perf_counter() - t0)
        browser.close()
    return html_ms, statistics.median(loads) * 1000


def first_engine_reply(server: Server, level: int) -> float | None:
    with httpx.Client(base_url=server.url, timeout=120) as c:
        info = c.get("/api/variants").json()
        if not info["engine"]:
            return None
        t0 = time.perf_counter()
        d = c.post("/api/games", json={"variant": "fugue", "opponent": "computer", "level": level,
                                      "color": "black"}).json()
        gid = d["id"]
        while True:
            if c.get(f"/api/games/{gid}").json()["ply"] >= 1:
                return time.perf_counter() - t0
            time.sleep(0.01)


async def engine_under_load(server: Server, analyses: int, abandon: bool) -> tuple[float, dict[str, int]]:
    """Level-1 reply time while ``analyses`` clients (distinct 127.0.0.x addresses) each ask for a
    10 s analysis; with ``abandon`` they hang up once their request is in (fire and forget)."""
    answers: dict[int, int] = {}

    async def one(i: int) -> None:
        transport = httpx.AsyncHTTPTransport(local_address=f"127.0.0.{100 + i}")
        async with httpx.AsyncClient(base_url=server.url, transport=transport, timeout=120) as ac:
            res = await ac.post("/api/analyse", json={"variant": "fugue", "movetime_ms": 10_000})
            answers[i] = res.status_code

    with httpx.Client(base_url=server.url, timeout=120) as c:
        while (before := c.get("/api/engine").json())["ready"] < before["workers"]:
            await asyncio.sleep(0.1)  # the workers are still loading the engine
        tasks = [asyncio.create_task(one(i)) for i in range(analyses)]
        while True:  # every request has reached the engine pool (running, waiting or refused)
            s = c.get("/api/engine").json()
            if s["running"] + s["queued_analyses"] + s["refused"] - before["refused"] >= analyses:
                break
            await asyncio.sleep(0.01)
        stop_ms = None
        if abandon:
            t0 = time.perf_counter()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            while c.get("/api/engine").json()["running"]:  # hang-up to stopped search
                await asyncio.sleep(0.005)
            stop_ms = round((time.perf_counter() - t0) * 1000)
        reply = await asyncio.to_thread(first_engine_reply, server, 1)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        while c.get("/api/engine").json()["running"]:
            await asyncio.sleep(0.05)
        after = c.get("/api/engine").json()
    counts = {k: after[k] - before[k] for k in ("refused", "cancelled", "killed")}
    counts["answered 503"] = sum(1 for v in answers.values() if v == 503)
    if stop_ms is not None:
        counts["hang-up to all stopped, ms"] = stop_ms
    assert reply is not None
    return reply, counts


def reply_among_level8_games(server: Server, games: int) -> float:
    """Level-1 reply time while ``games`` level-8 games (from distinct addresses) wait for the
    computer's first move; the games are resigned afterwards, which stops their searches."""
    seats = []
    for i in range(games):
        transport = httpx.HTTPTransport(local_address=f"127.0.1.{10 + i}")
        with httpx.Client(base_url=server.url, transport=transport, timeout=120) as c:
            d = c.post("/api/games", json={"variant": "fugue", "opponent": "computer", "level": 8,
                                          "color": "black"}).json()
            seats.append((d["id"], d["seats"]["black"]["secret"]))
    reply = first_engine_reply(server, 1)
    assert reply is not None
    with httpx.Client(base_url=server.url, timeout=120) as c:
        for gid, secret in seats:
            c.post(f"/api/games/{gid}/resign", json={"secret": secret})
    return reply


def engine_report(server: Server) -> None:
    for abandon in (True, False):
        reply, counts = asyncio.run(engine_under_load(server, 20, abandon))
        how = "fired and abandoned" if abandon else "still waiting"
        print(f"level-1 reply with 20 analyses of 10 s from 20 addresses {how}: {reply * 1000:.0f} ms "
              f"({', '.join(f'{k} {v}' for k, v in counts.items())})")
    reply = reply_among_level8_games(server, 30)
    print(f"level-1 reply while 30 level-8 games wait for the computer: {reply * 1000:.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--moves", type=int, default=10)
    ap.add_argument("--engine-only", action="store_true", help="only the engine-under-load figures")
    ap.add_argument("--watchers", type=int, default=500, help="spectators for the join-cost figure")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average before the run "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        # every bench client comes from 127.0.0.1: lift the per-address websocket cap
        server = Server(Path(tmp) / "bench.sqlite", engine_workers=2,
                        env={"EXOCHESS_WS_PER_ADDRESS": str(max(2 * args.games, args.watchers) + 10)}).start()
        try:
            if args.engine_only:
                engine_report(server)
                return
            for label, think in (("paced: each game moves every 2-6 s", (2.0, 6.0)),
                                 ("burst: all games send every move at the same time", (0.0, 0.0))):
                lat, wall = asyncio.run(round_trips(server, args.games, args.moves, think))
                ms = [x * 1000 for x in lat]
                print(f"move round-trip over websocket (send -> stored -> ack), {args.games} concurrent "
                      f"live games on SQLite, {label}; {len(ms)} moves in {wall:.1f}s:")
                print(f"  p50 {pct(ms, 50):.1f} ms   p90 {pct(ms, 90):.1f} ms   p99 {pct(ms, 99):.1f} ms   "
                      f"max {max(ms):.1f} ms")
            with httpx.Client(base_url=server.url) as c:
                gid = c.get("/api/games?limit=1").json()["games"][0]["id"]
            html_ms, browser_ms = page_load(server, gid)
            shown = "n/a" if browser_ms is None else f"{browser_ms:.0f} ms"
            print(f"game page load: HTML {html_ms:.1f} ms (median of 20, kept-alive connection); "
                  f"in Chromium until the live board is drawn: {shown} (median of 5)")
            frames, size = asyncio.run(join_cost(server, args.watchers))
            print(f"one player joining a game watched by {args.watchers}: {frames} messages, "
                  f"{size / 1000:.1f} kB sent to the watchers in all")
            reply = first_engine_reply(server, 4)
            if reply is None:
                print("first engine reply at level 4: n/a (the engine is not installed)")
            else:
                print(f"first engine reply at level 4: {reply * 1000:.0f} ms (game creation to stored move)")
                engine_report(server)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
