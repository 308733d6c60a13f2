"""Issue 18's three targets, measured on a real cluster on this machine (PostgreSQL + Redis
from Debian's packages, server processes, engine workers), all on 127.0.0.1.

1. Many websocket clients over 2 server processes (200 live games, the rest watching):
   round trip of a move = a player sends it on the websocket of one server, the opponent,
   connected to the *other* server, receives the new state.  Target p99 < 100 ms.
2. Moves stored per second by the same load generator (games moving as fast as they can)
   against 1 server process and against 2.  Target: 2 processes >= 1.6 x 1 process.
3. The human games' round-trip p99 without and with 20 concurrent level-8 computer games.
   Target: at most 20 ms more.

On a 2-core machine the load generator, the database, Redis, the servers and the engine
workers share the cores: ratios matter more than totals (the issue says so).  Run:

    .venv/bin/python bench/cluster.py            # the issue's sizes
    .venv/bin/python bench/cluster.py --quick    # smaller, about a minute
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.cluster.harness import Cluster, Services
from tests.web.legaltree import whole_moves


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else float("nan")


class Sock:
    """A websocket whose reader keeps the latest state (and drains everything else)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.state: dict[str, Any] | None = None
        self.errors: list[str] = []
        self.changed = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, secret: str | None = None) -> Sock:
        ws = await websockets.connect(url, open_timeout=120, max_queue=None, max_size=None)
        if secret is not None:
            await ws.send(json.dumps({"type": "auth", "secret": secret}))
        return cls(ws)

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                if raw.startswith('{"type": "state"') or raw.startswith('{"type":"state"'):
                    self.state = json.loads(raw)
                    self.changed.set()
                elif raw.startswith('{"type": "error"'):
                    self.errors.append(json.loads(raw)["error"])
                    self.changed.set()
        except websockets.ConnectionClosed as exc:
            self.errors.append(f"closed: {exc}")
        self.changed.set()

    async def wait_ply(self, ply: int, timeout: float = 60, mover: Sock | None = None) -> dict[str, Any]:
        """The state at ``ply`` or later; an error on this socket or on ``mover``'s is raised."""
        deadline = time.monotonic() + timeout
        while self.state is None or self.state["ply"] < ply:
            if self.errors or (mover is not None and mover.errors):
                raise RuntimeError(f"websocket: {self.errors or mover.errors if mover else ''}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"no state at ply {ply} after {timeout} s")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):  # a second's wait, then look at the mover again
                await asyncio.wait_for(self.changed.wait(), 1.0)
        return self.state

    async def close(self) -> None:
        await self.ws.close()
        self.task.cancel()


def ws_base(url: str) -> str:
    return url.replace("http://", "ws://")


async def create_games(urls: list[str], n: int, **body: Any) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(timeout=120) as client:
        out = []
        for i in range(n):
            res = await client.post(urls[i % len(urls)] + "/api/games",
                                    json={"variant": "fugue", "opponent": "friend", **body})
            res.raise_for_status()
            out.append(res.json())
        return out


async def open_all(factories: list[Any], gate: int = 32) -> list[Sock]:
    sem = asyncio.Semaphore(gate)

    async def one(factory: Any) -> Sock:
        async with sem:
            sock: Sock = await factory()
            return sock

    return list(await asyncio.gather(*(one(f) for f in factories)))


async def human_load(urls: list[str], games: int, watchers: int, seconds: float,
                     think: tuple[float, float]) -> tuple[list[float], int, int]:
    """Friend games whose two players sit on different servers, plus watchers; returns (round
    trips, moves stored, sockets)."""
    created = await create_games(urls, games)
    factories: list[Any] = []
    for i, game in enumerate(created):
        gid = game["id"]
        for k, color in enumerate(("white", "black")):
            url = f"{ws_base(urls[(i + k) % len(urls)])}/ws/games/{gid}"
            factories.append(lambda u=url, s=game["seats"][color]["secret"]: Sock.open(u, s))
    for j in range(watchers):
        gid = created[j % games]["id"]
        url = f"{ws_base(urls[j % len(urls)])}/ws/games/{gid}"
        factories.append(lambda u=url: Sock.open(u))
    socks = await open_all(factories)
    players = [(socks[2 * i], socks[2 * i + 1]) for i in range(games)]
    lat: list[float] = []
    moves = 0
    until = time.monotonic() + seconds

    async def play(white: Sock, black: Sock, rng: random.Random) -> None:
        nonlocal moves
        state = await white.wait_ply(0)
        seat = {"white": white, "black": black}
        while time.monotonic() < until and state["status"] == "active":
            if think[1] > 0:
                await asyncio.sleep(rng.uniform(*think))
            ply = state["ply"]
            mover, other = seat[state["turn"]], seat["black" if state["turn"] == "white" else "white"]
            text = rng.choice(whole_moves(state["legal"]))["text"]
            sent = time.perf_counter()
            await mover.ws.send(json.dumps({"type": "move", "move": text, "ply": ply}))
            state = await other.wait_ply(ply + 1, mover=mover)
            lat.append(time.perf_counter() - sent)
            moves += 1
            await mover.wait_ply(ply + 1)

    await asyncio.gather(*(play(w, b, random.Random(i)) for i, (w, b) in enumerate(players)))
    await asyncio.gather(*(s.close() for s in socks))
    return lat, moves, len(socks)


async def computer_load(urls: list[str], games: int, level: int, stop: asyncio.Event) -> int:
    """Computer games at ``level``, the human side answering at once; returns engine moves seen."""
    created = await create_games(urls, games, opponent="computer", level=level, color="black")
    socks = await open_all([
        (lambda g=g, i=i: Sock.open(f"{ws_base(urls[i % len(urls)])}/ws/games/{g['id']}",
                                    g["seats"]["black"]["secret"]))
        for i, g in enumerate(created)
    ])
    seen = 0

    async def play(sock: Sock, secret: str, rng: random.Random) -> None:
        nonlocal seen
        ply = 1
        while not stop.is_set():
            try:
                state = await sock.wait_ply(ply, timeout=5)
            except TimeoutError:
                continue
            seen += 1
            if state["status"] != "active":
                return
            text = rng.choice(whole_moves(state["legal"]))["text"]
            await sock.ws.send(json.dumps({"type": "move", "move": text, "ply": state["ply"],
                                           "secret": secret}))
            ply = state["ply"] + 2

    await asyncio.gather(*(play(s, g["seats"]["black"]["secret"], random.Random(i))
                           for i, (s, g) in enumerate(zip(socks, created, strict=True))))
    await asyncio.gather(*(s.close() for s in socks))
    return seen


def run_site(services: Services, servers: int, workers: int, fn: Any) -> Any:
    # workers niced as `exochess cluster` starts them: on one machine the players come first;
    # every client comes from 127.0.0.1, so the per-address cap on websockets is lifted
    site = Cluster(services, servers=servers, workers=workers, worker_nice=10,
                   env={"EXOCHESS_WS_PER_ADDRESS": "100000"}).start()
    try:
        return asyncio.run(fn([s.url for s in site.servers]))
    finally:
        site.stop()


THINK = (1.0, 3.0)
"""Seconds a player of targets 1 and 3 thinks before each move."""


def target_1(services: Services, args: argparse.Namespace) -> None:
    watchers = max(0, args.clients - 2 * args.games)
    lat, moves, socks = run_site(services, 2, 1, lambda urls: human_load(
        urls, args.games, watchers, args.seconds, THINK))
    print(f"1. {socks} websockets on 2 servers, {args.games} games: {moves} moves, round trip "
          f"p50 {pct(lat, 50) * 1000:.0f} ms, p99 {pct(lat, 99) * 1000:.0f} ms (target p99 < 100 ms)",
          flush=True)


def target_2(services: Services, args: argparse.Namespace) -> None:
    games = args.games  # enough games at once that the servers, not the round trips, set the pace
    rates = {}
    for servers in (1, 2):
        _lat, moves, _ = run_site(services, servers, 0, lambda urls: human_load(
            urls, games, 0, args.seconds, (0.0, 0.0)))
        rates[servers] = moves / args.seconds
    print(f"2. moves stored per second, {games} games moving at once: 1 process "
          f"{rates[1]:.0f}/s, 2 processes {rates[2]:.0f}/s, ratio {rates[2] / rates[1]:.2f} "
          "(target >= 1.6)", flush=True)


def target_3(services: Services, args: argparse.Namespace) -> None:
    games = max(10, args.games // 4)

    async def with_engine(urls: list[str], computer: int) -> tuple[list[float], int]:
        stop = asyncio.Event()
        engine = asyncio.create_task(computer_load(urls, computer, 8, stop)) if computer else None
        if engine is not None:
            await asyncio.sleep(2.0)  # the workers are busy before the humans start
        lat, _moves, _ = await human_load(urls, games, 0, args.seconds, THINK)
        stop.set()
        seen = await engine if engine is not None else 0
        return lat, seen

    base, _ = run_site(services, 2, 2, lambda urls: with_engine(urls, 0))
    loaded, engine_moves = run_site(services, 2, 2, lambda urls: with_engine(urls, 20))
    print(f"3. human round trip p99 ({games} games): {pct(base, 99) * 1000:.0f} ms alone, "
          f"{pct(loaded, 99) * 1000:.0f} ms beside 20 level-8 computer games ({engine_moves} engine "
          f"moves), +{(pct(loaded, 99) - pct(base, 99)) * 1000:.0f} ms (target <= +20 ms)", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="smaller loads (about a minute)")
    parser.add_argument("--clients", type=int, default=2000, help="websocket clients of target 1")
    parser.add_argument("--games", type=int, default=200, help="live games of target 1")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each measurement")
    parser.add_argument("--targets", default="123", help="which targets to measure (default 123)")
    args = parser.parse_args(argv)
    if args.quick:
        args.clients, args.games, args.seconds = 400, 40, 10.0
    services = Services().start()
    try:
        for name, fn in (("1", target_1), ("2", target_2), ("3", target_3)):
            if name in args.targets:
                fn(services, args)
    finally:
        services.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
