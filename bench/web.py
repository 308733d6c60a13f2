"""Web benchmark: move round-trip p99 with 200 concurrent live games on SQLite, game page load
time, first engine reply at level 4, and a level-1 reply while 20 clients flood the engine with
analyses.  Starts its own server on 127.0.0.1 with a temp SQLite file.

    python bench/web.py [--games 200] [--moves 10] [--engine-only] [--lobby-only] [--watchers 500]
    python bench/web.py --attack [--seconds 60] [--games 200] [--only KINDS] [--phases] [--limits off]
    python bench/web.py --clocks [--games 200] [--moves 10]
    python bench/web.py --lobby-only [--watchers 500] [--lobby-procs 4]
    python bench/web.py --refusals 4000
    python bench/web.py --fair [--moves 10] [--seconds 120]
    python bench/web.py --ws-flood [--seconds 30]

``--fair`` and ``--ws-flood`` (issue 41): see ``bench/fairshare.py``.

``--lobby-only`` (issue 20): ``--watchers`` sockets watch the lobby, spread over ``--lobby-procs``
client processes; 20 challenges are posted one after the other, and for each the time from
sending the post to each socket's receiving a view that lists it is kept (a first post warms the
server up and is not counted), with the server's CPU time per lobby update.  One process reading
500 sockets spends more CPU than the server writing them (about 25 against 20 ms an update), so
alone it times its own backlog; several processes avoid that where they have cores of their own
(on a 2-core machine they share the one the server leaves, and the figure is the machine's).

``--clocks`` (issue 20): 200 games on a 10+5 clock play paced moves (every 2-6 s) over websockets, each
client estimating the server's time from its pings as the game page does (the least-delayed
of its last six pongs). At each state a client receives, two figures: how long its clocks were
out of date (from the move's arrival at the server, the state's ``since``, to the state's
arrival at the client: meanwhile it showed the mover's clock still running), and how far its
estimate of the server's time is off (the server runs on the same machine, so the true offset
is zero).  The sum bounds how far a clock the client shows was from the server's.

``--attack`` (issue 17): while 200 human games play paced moves over websockets, an attacker
sends the worst request of each kind in a loop (a position with 45,136 legal chains, JSON
nested 1,000 deep to every POST endpoint, floods of long analyses abandoned at once, game
creation, websocket joins and leaves, unknown game ids); it prints the humans' move
round-trip percentiles, the attacker's answers by status, and whether any acknowledged move
is missing from the stored games.  The humans connect from their own loopback addresses
(127.0.1.x, 127.0.2.x), the attacker from 127.0.0.1, so per-address limits apply as they
would on the Internet (the server runs with the site's default rate limits, ``--limits off``
to measure without them); 429 and 503 answers are counted, not errors.  Each phase also
prints the server's event-loop thread's time run and time spent waiting for a CPU (schedstat):
on a loaded machine the wait, not the server's work, makes most of the tail.

``--refusals N`` (issue 17): the server CPU one websocket handshake refused by the rate limit
costs, over N handshakes in bursts of 50 from one address (the attacker's join flood).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import statistics
import string
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.web.serverproc import Server

from exochess.web.limits import LIMITS

DEFAULT_LIMITS = {limit.name: limit.default for limit in LIMITS}


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def authed(url: str, secret: str, **kwargs: Any) -> Any:
    """A websocket holding a seat: the secret goes in an ``auth`` message, never in the URL."""
    sock = await websockets.connect(url, open_timeout=120, max_queue=None, max_size=None, **kwargs)
    await sock.send(json.dumps({"type": "auth", "secret": secret, "ref": "auth"}))
    return sock


async def open_game(
    ws_base: str, gid: str, secrets: dict[str, str], gate: asyncio.Semaphore
) -> dict[str, Any]:
    socks = {}
    for color in ("white", "black"):
        async with gate:
            socks[color] = await authed(f"{ws_base}/ws/games/{gid}", secrets[color])
    return socks


def pick_move(nodes: list[dict[str, Any]], rng: random.Random) -> str | None:
    """A legal move from the state's legal-move tree (None if the tree is cut on the way)."""
    done = []
    while nodes:
        node = rng.choice(nodes)
        if "end" not in node:  # a server before the tree (whole moves listed): to compare with it
            return str(node["text"])
        done.append(node["text"])
        if node["end"] and (not node["next"] or rng.random() < 0.5):
            return ",".join(done)
        nodes = node["next"]
    return None


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
        text = pick_move(state["legal"], rng)
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
        socks += await asyncio.gather(
            *(websockets.connect(url, max_queue=None, open_timeout=300) for _ in range(50))
        )
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


async def _watch_lobby(url: str, count: int, pipe: Any) -> None:
    """``count`` lobby sockets in this process: once all have their first view, say ``ready``;
    then, for each challenge, send (id, the arrival times) once every socket has seen it."""
    socks: list[Any] = []
    for _ in range(0, count, 50):
        # no keepalive pings: a client stalled by a loaded machine must not be dropped for it
        socks += await asyncio.gather(
            *(
                websockets.connect(url, max_queue=None, open_timeout=300, ping_interval=None)
                for _ in range(min(50, count - len(socks)))
            )
        )
    for sock in socks:  # the view each gets on connecting
        assert json.loads(await sock.recv())["type"] == "lobby"
    seen: dict[str, list[float]] = {}

    async def watch(sock: Any) -> None:
        known: set[str] = set()
        async for frame in sock:
            msg = json.loads(frame)
            if msg["type"] != "lobby":
                continue
            now = time.monotonic()
            for c in msg["challenges"]:
                if c["id"] not in known:
                    known.add(c["id"])
                    seen.setdefault(c["id"], []).append(now)
                    if len(seen[c["id"]]) == count:
                        pipe.send((c["id"], seen.pop(c["id"])))

    readers = [asyncio.create_task(watch(s)) for s in socks]
    pipe.send("ready")
    await asyncio.to_thread(pipe.recv)  # the bench is over
    for task in readers:
        task.cancel()
    await asyncio.gather(*(s.close() for s in socks))


def watch_lobby(url: str, count: int, pipe: Any) -> None:
    """A process of lobby watchers (see :func:`_watch_lobby`)."""
    asyncio.run(_watch_lobby(url, count, pipe))


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time the process ``pid`` has used (all its threads), from /proc (Linux;
    None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def lobby_fanout(server: Server, watchers: int, posts: int, procs: int) -> tuple[list[float], float | None]:
    """Seconds from posting a challenge (the request sent) until each of ``watchers`` lobby
    sockets has the lobby view listing it; ``posts`` challenges, one after the other (each
    cancelled once everyone saw it), after one post that warms the server up and is not counted.

    The watchers are spread over ``procs`` processes: reading 500 sockets costs a client about
    as much CPU as writing them costs the server, so one client process would measure its own
    queue as much as the server.  Every process stamps arrivals with ``time.monotonic()``,
    one clock for the whole machine on Linux (CLOCK_MONOTONIC).

    Also returns the server's CPU time per lobby update (each post and each cancel is one):
    unlike the delays, it hardly moves with the machine's load."""
    import multiprocessing.connection as mpc

    url = server.url.replace("http", "ws") + "/ws/lobby"
    ctx = multiprocessing.get_context("spawn")
    pipes, children = [], []
    for i in range(procs):
        mine, theirs = ctx.Pipe()
        count = watchers // procs + (1 if i < watchers % procs else 0)
        child = ctx.Process(target=watch_lobby, args=(url, count, theirs), daemon=True)
        child.start()
        pipes.append(mine)
        children.append(child)

    def receive(pipe: Any) -> Any:
        try:
            return pipe.recv()
        except EOFError:
            raise SystemExit("a lobby watcher process failed: see its error above") from None

    for pipe in pipes:
        assert receive(pipe) == "ready"
    delays: list[float] = []
    player = "bench" + "x" * 20
    with httpx.Client(base_url=server.url, timeout=60) as client:
        for i in range(posts + 1):
            t0 = time.monotonic()
            body = {"variant": "fugue", "time_control": "1d", "color": "random", "name": f"Bench {i}"}
            res = client.post("/api/challenges", json={**body, "player": player})
            cid = res.json()["challenge"]["id"]
            arrivals: list[float] = []
            waiting = set(pipes)
            deadline = time.monotonic() + 30
            while waiting and time.monotonic() < deadline:
                for ready in mpc.wait(list(waiting), timeout=deadline - time.monotonic()):
                    assert isinstance(ready, mpc.Connection)
                    got, times = receive(ready)
                    assert got == cid
                    arrivals += times
                    waiting.discard(ready)
            if i > 0:
                delays += [t - t0 for t in arrivals] + [float("inf")] * (watchers - len(arrivals))
            client.post(f"/api/challenges/{cid}/cancel", json={"player": player})
            time.sleep(0.2)
            if i == 0:
                cpu_start = cpu_seconds(server.proc.pid) if server.proc is not None else None
    cpu_end = cpu_seconds(server.proc.pid) if server.proc is not None else None
    per_update = None if cpu_start is None or cpu_end is None else (cpu_end - cpu_start) / (2 * posts)
    for pipe in pipes:
        pipe.send("stop")
    for child in children:
        child.join(timeout=30)
    return delays, per_update


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

    args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
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
        d = c.post(
            "/api/games", json={"variant": "fugue", "opponent": "computer", "level": level, "color": "black"}
        ).json()
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
            d = c.post(
                "/api/games", json={"variant": "fugue", "opponent": "computer", "level": 8, "color": "black"}
            ).json()
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
        print(
            f"level-1 reply with 20 analyses of 10 s from 20 addresses {how}: {reply * 1000:.0f} ms "
            f"({', '.join(f'{k} {v}' for k, v in counts.items())})"
        )
    reply = reply_among_level8_games(server, 30)
    print(f"level-1 reply while 30 level-8 games wait for the computer: {reply * 1000:.0f} ms")


# --- attack mode (issue 17) -------------------------------------------------------------------

BIG = "4K2k/1p1r1r2/P1b5/2rrnp1r/1nn1rN2/r2brbB1/p3n1b1/kb6 w - 000000"
"""The Interweave position of issue 17: 45,136 legal chains."""
DEEP = "[" * 1000 + "]" * 1000
"""JSON nested 1,000 deep (2 KB: well under the 16 KiB body limit)."""


def human_address(i: int, color: str) -> str:
    return f"127.0.{1 if color == 'white' else 2}.{i % 250 + 1}"


class Seat:
    """One human's websocket: a reader keeps the latest state and answers pending moves."""

    def __init__(self, sock: Any) -> None:
        self.sock = sock
        self.latest: dict[str, Any] | None = None
        self.changed = asyncio.Event()
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.task = asyncio.create_task(self.read())

    async def read(self) -> None:
        try:
            async for raw in self.sock:
                msg = json.loads(raw)
                kind = msg.get("type")
                if kind == "state" and (self.latest is None or msg["ply"] >= self.latest["ply"]):
                    self.latest = msg
                    self.changed.set()
                elif kind in ("ack", "error"):
                    fut = self.pending.pop(msg.get("ref"), None)
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
        except websockets.ConnectionClosed:
            pass
        finally:
            for fut in self.pending.values():
                if not fut.done():
                    fut.set_result({"type": "error", "error": "connection closed", "status": None})


class Human:
    """A game between two humans, each seat from its own address, moving every 2-6 s."""

    def __init__(self, i: int, gid: str, secrets: dict[str, str]) -> None:
        self.i, self.gid, self.secrets = i, gid, secrets
        self.seats: dict[str, Seat] = {}
        self.acked: dict[int, str] = {}
        self.rng = random.Random(i)

    async def connect(self, ws_base: str, gate: asyncio.Semaphore) -> None:
        for color in ("white", "black"):
            async with gate:
                sock = await authed(
                    f"{ws_base}/ws/games/{self.gid}",
                    self.secrets[color],
                    local_addr=(human_address(self.i, color), 0),
                )
            self.seats[color] = Seat(sock)

    async def state(self, client: httpx.AsyncClient, ply: int) -> dict[str, Any]:
        """The state at ``ply`` or later: from the sockets, else asked for over HTTP."""
        for _ in range(50):
            best = max(
                (s.latest for s in self.seats.values() if s.latest), key=lambda m: m["ply"], default=None
            )
            if best is not None and best["ply"] >= ply:
                return best
            seat = self.seats["white"]
            seat.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(seat.changed.wait(), 0.2)
        res = await client.get(f"/api/games/{self.gid}")
        return res.json()  # type: ignore[no-any-return]

    async def play(
        self, client: httpx.AsyncClient, until: float, lat: list[float], errors: dict[str, int]
    ) -> None:
        ply = 0
        ref = 0
        while time.monotonic() < until:
            await asyncio.sleep(self.rng.uniform(2.0, 6.0))
            state = await self.state(client, ply)
            if state.get("status") != "active":
                return
            ply = state["ply"]
            text = pick_move(state.get("legal") or [], self.rng)
            if text is None:
                errors["no move in the state"] = errors.get("no move in the state", 0) + 1
                continue
            seat = self.seats[state["turn"]]
            ref += 1
            fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            seat.pending[ref] = fut
            t0 = time.perf_counter()
            await seat.sock.send(json.dumps({"type": "move", "move": text, "ply": ply, "ref": ref}))
            try:
                msg = await asyncio.wait_for(fut, 60)
            except TimeoutError:
                msg = {"type": "error", "error": "no answer in 60 s", "status": "timeout"}
            if msg["type"] == "ack":
                lat.append(time.perf_counter() - t0)
                self.acked[ply] = text
                ply += 1
            else:
                key = f"{msg.get('status')} {msg.get('error')}"[:80]
                errors[key] = errors.get(key, 0) + 1
                ply = (await client.get(f"/api/games/{self.gid}")).json().get("ply", ply)

    async def close(self) -> None:
        for seat in self.seats.values():
            await seat.sock.close()
            await seat.task


ID_LETTERS = string.ascii_letters + string.digits
"""The letters of the site's game ids."""
KINDS = ("huge", "hugegame", "deep", "analyses", "create", "joins", "unknown")
KIND_NAMES = (
    "huge position (45,136 moves)",
    "game from the huge position",
    "JSON nested 1,000 deep",
    "analyses (20 at once, abandoned)",
    "game creation",
    "websocket joins (50 at once)",
    "unknown game ids",
)


class Attacker:
    """Sends the worst request of each kind in a loop; counts the answers by kind and status."""

    def __init__(self, url: str, gids: list[str]) -> None:
        self.url = url
        self.gids = gids
        self.counts: dict[str, dict[str, int]] = {}

    def count(self, kind: str, status: str) -> None:
        by = self.counts.setdefault(kind, {})
        by[status] = by.get(status, 0) + 1

    async def loop(self, kind: str, until: float, fn: Any) -> None:
        async with httpx.AsyncClient(base_url=self.url, timeout=120) as ac:
            while time.monotonic() < until:
                try:
                    status = await fn(ac)
                except (httpx.HTTPError, OSError, websockets.WebSocketException) as exc:
                    status = type(exc).__name__
                self.count(kind, str(status))
                if status in (429, 503):
                    await asyncio.sleep(0.05)  # a refused attacker tries again at once, nearly

    async def huge_position(self, ac: httpx.AsyncClient) -> int:
        return (await ac.post("/api/position", json={"variant": "interweave", "fen": BIG})).status_code

    async def huge_game(self, ac: httpx.AsyncClient) -> int:
        body = {"variant": "interweave", "opponent": "friend", "fen": BIG}
        return (await ac.post("/api/games", json=body)).status_code

    async def deep_json(self, ac: httpx.AsyncClient) -> int:
        gid = random.choice(self.gids)
        paths = [
            "/api/games",
            "/api/position",
            "/api/analyse",
            f"/api/games/{gid}/moves",
            f"/api/games/{gid}/resign",
            f"/api/games/{gid}/takeback",
            f"/api/games/{gid}/rematch",
            f"/api/games/{gid}/evaluate",
        ]
        res = await ac.post(random.choice(paths), content=DEEP, headers={"Content-Type": "application/json"})
        return res.status_code

    async def abandoned_analyses(self, ac: httpx.AsyncClient) -> int | str:
        """20 analyses of 10 s sent at once, each abandoned after 0.2 s (fire and forget)."""
        body = {"variant": "fugue", "movetime_ms": 10_000}

        async def one() -> int | str:
            try:
                return (await ac.post("/api/analyse", json=body, timeout=0.2)).status_code
            except httpx.TimeoutException:
                return "abandoned"

        results = await asyncio.gather(*(one() for _ in range(20)))
        for r in results[1:]:
            self.count("analyses (20 at once, abandoned)", str(r))
        return results[0]

    async def create_games(self, ac: httpx.AsyncClient) -> int:
        body = random.choice(
            [
                {"variant": "rebelfury", "opponent": "computer", "level": 8, "color": "black"},
                {"variant": "interweave", "opponent": "friend"},
            ]
        )
        return (await ac.post("/api/games", json=body)).status_code

    async def join_leave(self, ac: httpx.AsyncClient) -> str:
        """50 websocket joins to one human game at once, then all leave."""
        url = self.url.replace("http", "ws") + f"/ws/games/{random.choice(self.gids)}"

        async def one() -> Any:
            return await websockets.connect(
                url, open_timeout=30, max_size=None, max_queue=None, close_timeout=1
            )

        socks = await asyncio.gather(*(one() for _ in range(50)), return_exceptions=True)
        opened = [s for s in socks if not isinstance(s, BaseException)]
        await asyncio.sleep(0.2)
        await asyncio.gather(*(sock.close() for sock in opened), return_exceptions=True)
        return f"{len(opened)}/50 opened"

    async def unknown_ids(self, ac: httpx.AsyncClient) -> int:
        """A made-up id of the site's shape (8 letters or digits): an id of another shape is
        refused without a database read, so this is the costlier miss."""
        made_up = "".join(random.choices(ID_LETTERS, k=8))
        return (await ac.get(f"/api/games/{made_up}")).status_code

    async def run(self, seconds: float, only: list[str]) -> None:
        """Every kind in ``only`` in a loop (some with two workers) for ``seconds``."""
        until = time.monotonic() + seconds
        kinds = [
            (self.huge_position, 2),
            (self.huge_game, 1),
            (self.deep_json, 2),
            (self.abandoned_analyses, 1),
            (self.create_games, 2),
            (self.join_leave, 1),
            (self.unknown_ids, 1),
        ]
        await asyncio.gather(
            *(
                self.loop(name, until, fn)
                for (fn, workers), short, name in zip(kinds, KINDS, KIND_NAMES, strict=True)
                if short in only
                for _ in range(workers)
            )
        )


async def refusal_cost(server: Server, handshakes: int) -> tuple[float, dict[str, int]]:
    """Server CPU seconds per websocket handshake refused by the rate limit: one address opens
    a socket (its whole allowance, ``sockets=1/minute``), then ``handshakes`` more in bursts
    of 50, as the attacker's join flood does; CPU from /proc, so hardly moved by the load."""
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as ac:
        gid = (await ac.post("/api/games", json={"variant": "fugue", "opponent": "friend"})).json()["id"]
    url = server.url.replace("http", "ws") + f"/ws/games/{gid}"
    answers: dict[str, int] = {}

    async def one() -> None:
        try:
            async with websockets.connect(url, open_timeout=60):
                key = "opened"
        except websockets.InvalidStatus as exc:
            key = str(exc.response.status_code)
        answers[key] = answers.get(key, 0) + 1

    await one()
    cpu0 = server_cpu_s(server)
    for start in range(0, handshakes, 50):
        await asyncio.gather(*(one() for _ in range(min(50, handshakes - start))))
    return (server_cpu_s(server) - cpu0) / handshakes, answers


def run_attacker(url: str, gids: list[str], seconds: float, only: list[str], out: Any) -> None:
    """The attacker, in its own process so that its client work does not slow the humans'."""
    attacker = Attacker(url, gids)
    cpu0 = time.process_time()
    asyncio.run(attacker.run(seconds, only))
    out.put((attacker.counts, time.process_time() - cpu0))


def server_cpu_s(server: Server) -> float:
    """CPU seconds the server's own process has used (its event loop and threads; the engine's
    and the position workers' processes are not counted): unlike a latency, this hardly
    depends on what else the machine runs."""
    assert server.proc is not None
    fields = Path(f"/proc/{server.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def loop_thread_schedstat(server: Server) -> tuple[float, float, int]:
    """The server's main thread (its event loop): seconds run on a CPU, seconds spent ready but
    waiting for a CPU (the machine's other processes), and the number of times it ran, from
    /proc's schedstat (Linux; zeros where it is missing).  The wait separates the machine's
    share of a latency from the server's own work."""
    assert server.proc is not None
    try:
        stat = Path(f"/proc/{server.proc.pid}/task/{server.proc.pid}/schedstat")
        ran, waited, slices = stat.read_text().split()
    except (OSError, ValueError):
        return 0.0, 0.0, 0
    return int(ran) / 1e9, int(waited) / 1e9, int(slices)


SERVER_TIMES = (
    ("exochess_move_seconds", "stage", "move"),
    ("exochess_work_wait_seconds", "pool", "queued"),
    ("exochess_work_run_seconds", "pool", "ran"),
    ("exochess_work_resume_seconds", "pool", "loop after"),
    ("exochess_event_loop_lag_seconds", "", "loop lag"),
    ("exochess_gc_pause_seconds", "generation", "gc pause, generation"),
    ("exochess_gc_cpu_seconds", "generation", "gc CPU, generation"),
)
"""The server's histograms of where a move's time goes (see ``exochess.web.metrics``)."""
GC_BY_THREAD = "exochess_gc_collections_total"
"""The server's count of collections by generation and by the thread that ran them."""


def server_histograms(server: Server) -> dict[tuple[str, str], dict[float, float]]:
    """Each histogram of :data:`SERVER_TIMES` by label: cumulative count by bucket bound."""
    text = httpx.get(server.url + "/metrics", timeout=30).text
    out: dict[tuple[str, str], dict[float, float]] = {}
    for line in text.splitlines():
        if line.startswith(GC_BY_THREAD + "{"):
            labels = dict(kv.split("=", 1) for kv in line[line.index("{") + 1 : line.index("}")].split(","))
            key = (GC_BY_THREAD, f"{labels['generation'].strip(chr(34))} {labels['thread'].strip(chr(34))}")
            out[key] = {float("inf"): float(line.rsplit(" ", 1)[1])}
        for name, label, _title in SERVER_TIMES:
            if not line.startswith(name + "_bucket{"):
                continue
            labels = dict(kv.split("=", 1) for kv in line[line.index("{") + 1 : line.index("}")].split(","))
            key = (name, labels.get(label, '""').strip('"'))
            bound = labels["le"].strip('"')
            le = float("inf") if bound == "+Inf" else float(bound)
            out.setdefault(key, {})[le] = float(line.rsplit(" ", 1)[1])
    return out


def histogram_report(
    before: dict[tuple[str, str], dict[float, float]], after: dict[tuple[str, str], dict[float, float]]
) -> list[str]:
    """Per histogram, the count in the phase and the bucket bounds holding its p50/p90/p99."""
    lines = []
    for name, _label, title in SERVER_TIMES:
        for key in sorted(k for k in after if k[0] == name):
            cum = {b: c - before.get(key, {}).get(b, 0.0) for b, c in after[key].items()}
            total = cum[float("inf")]
            if not total:
                continue

            def bound(q: float, cum: dict[float, float] = cum, total: float = total) -> str:
                b = min(b for b, c in cum.items() if c >= q * total)
                return "> 5 s" if b == float("inf") else f"<= {b * 1000:g} ms"

            lines.append(
                f"    {title} {key[1]}: {total:.0f}, p50 {bound(0.5)}, p90 {bound(0.9)}, p99 {bound(0.99)}"
            )
    by_thread = [
        f"{key[1]} {count[float('inf')] - before.get(key, {}).get(float('inf'), 0.0):.0f}"
        for key, count in sorted(after.items())
        if key[0] == GC_BY_THREAD
    ]
    if by_thread:
        lines.append("    gc passes by generation and thread: " + ", ".join(by_thread))
    return lines


async def client_lag(lags: list[float], until: float) -> None:
    """The bench's own event loop delay (its clients, not the server): how late a sleep ends."""
    loop = asyncio.get_running_loop()
    while loop.time() < until:
        start = loop.time()
        await asyncio.sleep(0.1)
        lags.append(loop.time() - start - 0.1)


async def attack(
    server: Server, games: int, seconds: float, only: list[str], phases: bool = False, procs: int = 4
) -> None:
    """The humans play for ``seconds`` while the attacker sends every kind in ``only`` at once;
    with ``phases``, one kind after the other (``seconds`` each, the humans playing throughout),
    each with the server process's CPU time: what one request of each kind costs, compared
    within one server run.  The humans' sockets are spread over ``procs`` client processes."""
    crowd = await start_humans(server, games, procs)
    if phases:
        print("kind: humans' round trip; server CPU in the phase; attacker's answers")
        for kind in only:
            await attack_phase(server, crowd, seconds, [kind], brief=True)
        await crowd.stop()
        return
    print(f"attacking for {seconds:g} s")
    await attack_phase(server, crowd, seconds, only, brief=False)
    acked = await crowd.stop()
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as hc:
        lost = checked = 0
        for gid, moves in acked.items():
            stored = (await hc.get(f"/api/games/{gid}")).json()["moves"]
            for ply, text in moves.items():
                checked += 1
                if ply >= len(stored) or stored[ply]["text"] != text:
                    lost += 1
    print(f"acknowledged moves missing from the stored games: {lost} of {checked}")


async def _human_process(url: str, games: list[tuple[int, str, dict[str, str]]], pipe: Any) -> None:
    """Some of the human games in this process: connect, then for each ``("play", until)``
    play until then and answer the round trips, refused moves, CPU time and loop lags; on
    ``"stop"`` close and answer each game's acknowledged moves."""
    humans = [Human(i, gid, secrets) for i, gid, secrets in games]
    gate = asyncio.Semaphore(8)
    await asyncio.gather(*(h.connect(url.replace("http", "ws"), gate) for h in humans))
    pipe.send("ready")
    async with httpx.AsyncClient(base_url=url, timeout=60) as hc:
        while True:
            order = await asyncio.to_thread(pipe.recv)
            if order == "stop":
                break
            until = order[1]  # time.monotonic() is one clock for the whole machine (Linux)
            lat: list[float] = []
            errors: dict[str, int] = {}
            lags: list[float] = []
            cpu0 = time.process_time()
            loop = asyncio.get_running_loop()
            await asyncio.gather(
                client_lag(lags, loop.time() + until - time.monotonic()),
                *(h.play(hc, until, lat, errors) for h in humans),
            )
            pipe.send((lat, errors, time.process_time() - cpu0, lags))
    for h in humans:
        await h.close()
    pipe.send({h.gid: h.acked for h in humans})


def human_process(url: str, games: list[tuple[int, str, dict[str, str]]], pipe: Any) -> None:
    """A process of human clients (see :func:`_human_process`)."""
    asyncio.run(_human_process(url, games, pipe))


class Crowd:
    """The human games, played by client processes: one client process reading 400 sockets
    lags behind its own backlog under load (then the round trips time the bench)."""

    def __init__(self, url: str, games: list[tuple[int, str, dict[str, str]]], procs: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.gids = [gid for _i, gid, _s in games]
        self.pipes: list[Any] = []
        self.children: list[Any] = []
        for k in range(procs):
            mine, theirs = ctx.Pipe()
            child = ctx.Process(target=human_process, args=(url, games[k::procs], theirs), daemon=True)
            child.start()
            self.pipes.append(mine)
            self.children.append(child)

    async def _gather(self) -> list[Any]:
        def receive(pipe: Any) -> Any:
            try:
                return pipe.recv()
            except EOFError:
                raise SystemExit("a human client process failed: see its error above") from None

        return list(await asyncio.gather(*(asyncio.to_thread(receive, p) for p in self.pipes)))

    async def ready(self) -> None:
        assert all(r == "ready" for r in await self._gather())

    async def play(self, until: float) -> tuple[list[float], dict[str, int], float, list[float]]:
        """Every process plays until ``until`` (monotonic); the round trips, refused moves,
        the client processes' CPU seconds and their loop lags, all processes together."""
        for pipe in self.pipes:
            pipe.send(("play", until))
        lat: list[float] = []
        errors: dict[str, int] = {}
        cpu = 0.0
        lags: list[float] = []
        for part_lat, part_errors, part_cpu, part_lags in await self._gather():
            lat += part_lat
            cpu += part_cpu
            lags += part_lags
            for key, count in part_errors.items():
                errors[key] = errors.get(key, 0) + count
        return lat, errors, cpu, lags

    async def stop(self) -> dict[str, dict[int, str]]:
        for pipe in self.pipes:
            pipe.send("stop")
        acked: dict[str, dict[int, str]] = {}
        for part in await self._gather():
            acked.update(part)
        for child in self.children:
            child.join(timeout=30)
        return acked


async def start_humans(server: Server, games: int, procs: int) -> Crowd:
    made = []
    print(f"creating {games} human games (each from its own address)...")
    for i in range(games):
        transport = httpx.AsyncHTTPTransport(local_address=human_address(i, "white"))
        async with httpx.AsyncClient(base_url=server.url, transport=transport, timeout=60) as ac:
            d = (await ac.post("/api/games", json={"variant": "fugue", "opponent": "friend"})).json()
        made.append((i, d["id"], {c: s["secret"] for c, s in d["seats"].items()}))
    crowd = Crowd(server.url, made, procs)
    await crowd.ready()
    print(f"{2 * games} websockets open, in {procs} client processes")
    return crowd


async def attack_phase(server: Server, crowd: Crowd, seconds: float, only: list[str], brief: bool) -> None:
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=run_attacker, args=(server.url, crowd.gids, seconds, only, out))
    proc.start()
    until = time.monotonic() + seconds
    cpu0 = server_cpu_s(server)
    sched0 = loop_thread_schedstat(server)
    hist0 = await asyncio.to_thread(server_histograms, server)
    t0 = time.perf_counter()
    lat, errors, client, lags = await crowd.play(until)
    wall = time.perf_counter() - t0
    cpu = server_cpu_s(server) - cpu0
    sched = [b - a for a, b in zip(sched0, loop_thread_schedstat(server), strict=True)]
    hist = histogram_report(hist0, await asyncio.to_thread(server_histograms, server))
    hist.insert(
        0,
        f"    server's event-loop thread: ran {sched[0]:.1f} s, waited {sched[1]:.1f} s for a CPU "
        f"({sched[1] / max(1, sched[2]) * 1000:.2f} ms a wait on average, {sched[2]:.0f} runs)",
    )
    lag_ms = [x * 1000 for x in lags] or [float("nan")]
    hist.insert(
        0,
        f"    humans' client processes: CPU {client:.1f} s in {wall:.0f} s; their loop lag p50 "
        f"{pct(lag_ms, 50):.1f} ms, p99 {pct(lag_ms, 99):.1f} ms, max {max(lag_ms):.1f} ms",
    )
    # the attacker's last requests may still be out
    counts, attacker_cpu = await asyncio.to_thread(out.get)
    hist.insert(1, f"    attacker's client process: CPU {attacker_cpu:.1f} s (it shares the machine's cores)")
    proc.join()
    if brief:
        ms = [x * 1000 for x in lat] or [float("nan")]
        answers = "; ".join(
            f"{k}: " + ", ".join(f"{s} x{v}" for s, v in sorted(by.items())) for k, by in counts.items()
        )
        print(
            f"  {only[0]}: {len(lat)} moves, p50 {pct(ms, 50):.1f} ms, p99 {pct(ms, 99):.1f} ms; "
            f"server CPU {cpu:.1f} s in {wall:.0f} s; {answers or 'no requests'}"
            + (f"; refused moves {errors}" if errors else "")
        )
        print("\n".join(hist))
        return
    ms = [x * 1000 for x in lat]
    print(
        f"human move round-trip under attack ({len(crowd.gids)} live games, paced 2-6 s, {len(ms)} "
        f"acknowledged moves in {wall:.0f} s):"
    )
    if ms:
        print(
            f"  p50 {pct(ms, 50):.1f} ms   p90 {pct(ms, 90):.1f} ms   p99 {pct(ms, 99):.1f} ms   "
            f"max {max(ms):.1f} ms"
        )
    print(f"  refused human moves: {sum(errors.values())} {errors if errors else ''}")
    print(f"server process CPU during the attack: {cpu:.1f} s in {wall:.0f} s")
    print("attacker's answers (kind: status -> count):")
    for kind, by in counts.items():
        print(f"  {kind}: " + ", ".join(f"{k} x{v}" for k, v in sorted(by.items())))
    print("where the server's time went (bucket bounds of its histograms, this phase):")
    print("\n".join(hist))


class ClockClient:
    """One seat's websocket, read by a task that keeps every state's arrival and the server's
    time estimated from pongs (as static/clock.js does)."""

    def __init__(self, sock: Any) -> None:
        self.sock = sock
        self.states: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.samples: list[tuple[float, float]] = []
        self.pings: dict[str, float] = {}
        self.offset = 0.0
        self.stale_ms: list[float] = []
        self.offset_ms: list[float] = []
        self.round_trip_ms: list[float] = []
        self.task = asyncio.create_task(self.read())

    async def read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in self.sock:
                now = time.time() * 1000
                msg = json.loads(raw)
                if msg["type"] == "pong" and msg.get("ref") in self.pings:
                    sent = self.pings.pop(msg["ref"])
                    self.samples = [*self.samples[-5:], (now - sent, msg["now"] - (sent + now) / 2)]
                    self.offset = min(self.samples)[1]
                elif msg["type"] == "state":
                    clock = msg.get("clock")
                    if clock and clock["running"] and msg["ply"] >= 3:
                        self.stale_ms.append(now - clock["since"])
                        self.offset_ms.append(abs(self.offset))
                    self.states.put_nowait(msg)

    async def pinger(self) -> None:
        n = 0
        with contextlib.suppress(websockets.ConnectionClosed):
            while True:
                n += 1
                self.pings[f"c{n}"] = time.time() * 1000
                await self.sock.send(json.dumps({"type": "ping", "ref": f"c{n}"}))
                await asyncio.sleep(2.0)

    async def state_at(self, ply: int) -> dict[str, Any]:
        while True:
            msg = await self.states.get()
            if msg["ply"] >= ply:
                return msg


async def clock_game(clients: dict[str, ClockClient], moves: int, seed: int) -> None:
    rng = random.Random(seed)
    pingers = [asyncio.create_task(c.pinger()) for c in clients.values()]
    state = await clients["white"].state_at(0)
    await clients["black"].state_at(0)
    for ply in range(moves):
        await asyncio.sleep(rng.uniform(2.0, 6.0))
        mover = clients[state["turn"]]
        move = pick_move(state["legal"], rng)
        t0 = time.perf_counter()
        await mover.sock.send(json.dumps({"type": "move", "move": move, "ply": ply}))
        state = await mover.state_at(ply + 1)
        mover.round_trip_ms.append((time.perf_counter() - t0) * 1000)
        await clients[state["turn"]].state_at(ply + 1)
    for task in pingers:
        task.cancel()


async def clock_agreement(server: Server, games: int, moves: int) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as ac:
        created = []
        for _ in range(games):
            body = {"variant": "fugue", "opponent": "friend", "time_control": "10+5"}
            d = (await ac.post("/api/games", json=body)).json()
            created.append((d["id"], {c: s["secret"] for c, s in d["seats"].items()}))
    ws_base = server.url.replace("http", "ws")
    gate = asyncio.Semaphore(16)
    games_socks = await asyncio.gather(*(open_game(ws_base, gid, sec, gate) for gid, sec in created))
    clients = [{c: ClockClient(sock) for c, sock in socks.items()} for socks in games_socks]
    t0 = time.perf_counter()
    await asyncio.gather(*(clock_game(pair, moves, i) for i, pair in enumerate(clients)))
    wall = time.perf_counter() - t0
    everyone = [c for pair in clients for c in pair.values()]
    stale = [x for c in everyone for x in c.stale_ms]
    offset = [x for c in everyone for x in c.offset_ms]
    both = [a + b for c in everyone for a, b in zip(c.stale_ms, c.offset_ms, strict=True)]
    trips = [x for c in everyone for x in c.round_trip_ms]
    for pair in clients:
        for c in pair.values():
            await c.sock.close()
            c.task.cancel()
    print(
        f"clock agreement, {games} live games on a 10+5 clock, paced moves every 2-6 s, "
        f"both clients of each game; {len(stale)} states in {wall:.1f}s:"
    )
    for label, values in (
        ("clocks out of date (move arrival -> state at client)", stale),
        ("server-time estimate error", offset),
        ("sum (bound on the disagreement)", both),
        ("for comparison: move sent -> new state at the mover", trips),
    ):
        print(
            f"  {label}: p50 {pct(values, 50):.1f} ms   p99 {pct(values, 99):.1f} ms"
            f"   max {max(values):.1f} ms"
        )


def lobby_report(server: Server, watchers: int, procs: int, posts: int = 20) -> None:
    delays, cpu = lobby_fanout(server, watchers, posts, procs)
    ms = [x * 1000 for x in delays]
    print(
        f"lobby update (a challenge posted) reaching {watchers} lobby sockets ({procs} client processes), "
        f"{posts} posts: p50 {pct(ms, 50):.1f} ms   p99 {pct(ms, 99):.1f} ms   max {max(ms):.1f} ms "
        f"(target p99 < 100 ms)"
    )
    if cpu is not None:
        print(
            f"  server CPU per lobby update (the post or cancel, the view built, {watchers} sends): "
            f"{cpu * 1000:.1f} ms"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--moves", type=int, default=10)
    ap.add_argument("--engine-only", action="store_true", help="only the engine-under-load figures")
    ap.add_argument("--watchers", type=int, default=500, help="spectators for the join-cost figure")
    ap.add_argument(
        "--lobby-only",
        action="store_true",
        help="only the lobby fan-out figure (a challenge reaching --watchers lobby sockets)",
    )
    ap.add_argument(
        "--human-procs",
        type=int,
        default=4,
        help="--attack: client processes the human games are spread over (default 4)",
    )
    ap.add_argument(
        "--lobby-procs",
        type=int,
        default=4,
        help="client processes the lobby watchers are spread over (default 4)",
    )
    ap.add_argument("--attack", action="store_true", help="the attack mode of issue 17 (see above)")
    ap.add_argument(
        "--clocks", action="store_true", help="the clock-agreement figure of issue 20 (see above)"
    )
    ap.add_argument("--seconds", type=float, default=60.0, help="length of the attack")
    ap.add_argument(
        "--phases",
        action="store_true",
        help="--attack: the kinds of --only one after the other in one server run "
        "(--seconds each), with the server's CPU time in each ('none' for a phase "
        "without attacker)",
    )
    ap.add_argument(
        "--limits",
        default=None,
        help="--attack: the server's $EXOCHESS_RATE_LIMITS (default: the site's own "
        "limits; 'off' to measure the attack without them)",
    )
    ap.add_argument(
        "--refusals",
        type=int,
        default=0,
        help="only the server CPU per websocket handshake refused by the rate limit, "
        "over this many handshakes in bursts of 50 (e.g. 4000)",
    )
    ap.add_argument(
        "--fair",
        action="store_true",
        help="issue 41: honest level-8 replies quiet and under a 30-address level-8 flood",
    )
    ap.add_argument(
        "--ws-flood",
        action="store_true",
        help="issue 41: another game's ping round trip while one socket floods pings",
    )
    ap.add_argument(
        "--only",
        default=",".join(KINDS),
        help=f"attack kinds, comma-separated (default all: {','.join(KINDS)})",
    )
    args = ap.parse_args()
    print(
        f"machine: {os.cpu_count()} cores, load average before the run "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    if args.refusals:
        with tempfile.TemporaryDirectory() as tmp:
            server = Server(
                Path(tmp) / "bench.sqlite", engine_workers=1, env={"EXOCHESS_RATE_LIMITS": "sockets=1/minute"}
            ).start()
            try:
                per, answers = asyncio.run(refusal_cost(server, args.refusals))
            finally:
                server.stop()
        print(
            f"server CPU per refused websocket handshake ({args.refusals} in bursts of 50 from one "
            f"address): {per * 1000:.3f} ms; answers {answers}"
        )
        return
    if args.fair or args.ws_flood:
        from fairshare import fair_report, ws_flood_report  # bench/ is the script's directory

        limits = ";".join(f"{kind}={rate}" for kind, rate in DEFAULT_LIMITS.items())
        print(f"per-address rate limits: {limits}")
        with tempfile.TemporaryDirectory() as tmp:
            server = Server(
                Path(tmp) / "bench.sqlite", engine_workers=2, env={"EXOCHESS_RATE_LIMITS": limits}
            ).start()
            try:
                if args.fair:
                    asyncio.run(fair_report(server.url, args.moves, args.seconds))
                else:
                    asyncio.run(ws_flood_report(server.url, args.seconds))
            finally:
                server.stop()
        return
    if args.attack:
        # the test servers turn the per-address limits off (tests/web/serverproc.py): here they
        # are the site's own, so that they apply to the attacker (127.0.0.1) as they would on
        # the Internet; the humans, one address per seat, stay far below them
        limits = (
            args.limits
            if args.limits is not None
            else ";".join(f"{kind}={rate}" for kind, rate in DEFAULT_LIMITS.items())
        )
        print(f"per-address rate limits: {limits}")
        with tempfile.TemporaryDirectory() as tmp:
            server = Server(
                Path(tmp) / "bench.sqlite", engine_workers=2, env={"EXOCHESS_RATE_LIMITS": limits}
            ).start()
            try:
                asyncio.run(
                    attack(
                        server, args.games, args.seconds, args.only.split(","), args.phases, args.human_procs
                    )
                )
            finally:
                server.stop()
        return
    with tempfile.TemporaryDirectory() as tmp:
        # every bench client comes from 127.0.0.1: lift the per-address websocket cap
        server = Server(
            Path(tmp) / "bench.sqlite",
            engine_workers=2,
            env={"EXOCHESS_WS_PER_ADDRESS": str(max(2 * args.games, args.watchers) + 10)},
        ).start()
        try:
            if args.lobby_only:
                lobby_report(server, args.watchers, args.lobby_procs)
                return
            if args.engine_only:
                engine_report(server)
                return
            if args.clocks:
                asyncio.run(clock_agreement(server, args.games, args.moves))
                return
            for label, think in (
                ("paced: each game moves every 2-6 s", (2.0, 6.0)),
                ("burst: all games send every move at the same time", (0.0, 0.0)),
            ):
                lat, wall = asyncio.run(round_trips(server, args.games, args.moves, think))
                ms = [x * 1000 for x in lat]
                print(
                    f"move round-trip over websocket (send -> stored -> ack), {args.games} concurrent "
                    f"live games on SQLite, {label}; {len(ms)} moves in {wall:.1f}s:"
                )
                print(
                    f"  p50 {pct(ms, 50):.1f} ms   p90 {pct(ms, 90):.1f} ms   p99 {pct(ms, 99):.1f} ms   "
                    f"max {max(ms):.1f} ms"
                )
            with httpx.Client(base_url=server.url) as c:
                gid = c.get("/api/games?limit=1").json()["games"][0]["id"]
            html_ms, browser_ms = page_load(server, gid)
            shown = "n/a" if browser_ms is None else f"{browser_ms:.0f} ms"
            print(
                f"game page load: HTML {html_ms:.1f} ms (median of 20, kept-alive connection); "
                f"in Chromium until the live board is drawn: {shown} (median of 5)"
            )
            frames, size = asyncio.run(join_cost(server, args.watchers))
            print(
                f"one player joining a game watched by {args.watchers}: {frames} messages, "
                f"{size / 1000:.1f} kB sent to the watchers in all"
            )
            lobby_report(server, args.watchers, args.lobby_procs)
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
