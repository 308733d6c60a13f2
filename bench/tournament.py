"""Issue 46's two targets, measured on an arena run by 2 server processes in Redis mode
(PostgreSQL and Redis from Debian's packages, all on 127.0.0.1; tests/cluster/harness.py):

1. pairing latency: for each new pairing, the time from the later of its two players' previous
   game ends (the moment the loser's resignation was sent) to the moment both players' event
   sockets have shown them the new game.  Target p99 < 1 s with 200 players.
2. standings updates: ``--watchers`` sockets on the event (its page's ``/ws/tournaments/{id}``),
   spread over both servers, none of them a player's.  A socket shows one page of ten lines
   (``web/social/viewpages.py``), so the watchers are spread evenly over the pages (watcher i
   asks for page i mod pages + 1), a harder case for the servers than everyone on page 1 (one
   text a page to build, instead of one).  For each result and each watcher whose page showed
   the game, the time from the resignation's sending to the watcher's receiving the first view
   that shows one of the game's players and no longer lists the game among the games on (the
   view's standings and games on are counted from the same stored rows, and a page lists the
   games of its players: that view is the one with the result).  Target p99 < 200 ms with 500
   watchers.

The players are accounts made over the API, half on each server; each joins the arena and
keeps the event's socket open on its server with its session, as the event's page does (its
page then lists its own game), and learns its new game there.  A game is driven over the HTTP
API by its two players once both have seen it: after a random wait of up to ``--hold`` seconds
(so that games do not end in lockstep), White and Black each play a move (each through their
own server, Black again if their server has not yet seen White's move) and a random one of them
resigns.  ``--hold`` is waited before the first
move, so it must stay well under the first-move limit (30 s: a longer wait aborts the game);
``--length A-B`` makes games last as real ones do: after the two moves, a random wait of A to B
seconds before the resignation (``--length 60-90``: games of a minute or so, an arena of 200
players then ends 1 to 2 games a second; the default, 0, is the stress rate of the first
figures).  The run stops after ``--games`` results or ``--seconds``, whichever comes first.
The first wave (everyone paired at the start) is shown apart: it measures the start, not a game's end.

The watchers run in ``--watcher-procs`` processes of their own; each socket records when each
view arrives and which games it lists, reading each distinct view's text once per process.
Every clock is ``time.monotonic`` (the same clock in every process of the machine).  The
players' sockets and HTTP clients run in this process's event loop, so a figure includes its
delays too; the CPU each role used is printed beside the figures.

    nice -n 10 .venv/bin/python bench/tournament.py                      # 200 players, 500 watchers
    nice -n 10 .venv/bin/python bench/tournament.py --players 40 --watchers 100 --games 100
    nice -n 10 .venv/bin/python bench/tournament.py --profile /tmp/prof  # py-spy on both servers
    nice -n 10 .venv/bin/python bench/tournament.py --length 60-90 --games 300 --seconds 400
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import json
import multiprocessing
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvloop
from picows import WSFrame, WSListener, WSMsgType, WSTransport, ws_connect

from exochess.web.social.viewpages import PAGE_SIZE

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.cluster.harness import Cluster, Services
from tests.web.serverproc import TEST_LIMITS

ENV = {
    "EXOCHESS_TEST_TINY_CLOCKS": "1",
    "EXOCHESS_TOURNAMENT_SCHEDULE": "",
    # the players, the watchers and the bench all come from 127.0.0.1
    "EXOCHESS_RATE_LIMITS": TEST_LIMITS + ";tournament-messages=off",
    "EXOCHESS_WS_PER_ADDRESS": "100000",
}
OPENING = ("d2-d3", "e7-e6")
"""Two legal Fugue moves: once both sides have moved, a resignation is a result (not an abort)."""
PASSWORD = "a long password"
TICK = os.sysconf("SC_CLK_TCK")
WAIT_S = 120.0
"""Bound on any single wait (a connection, a request, a pairing)."""


def cpu_of(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its waited-for children (0 if gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / TICK


def percentiles(values: list[float]) -> str:
    """``n``, p50, p95, p99 and max of ``values`` (seconds), in milliseconds."""
    if not values:
        return "n=0"
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return (
        f"n={len(ordered)}  p50 {at(0.50):.0f} ms  p95 {at(0.95):.0f} ms  p99 {at(0.99):.0f} ms  "
        f"max {ordered[-1] * 1000:.0f} ms  mean {statistics.fmean(ordered) * 1000:.0f} ms"
    )


# --- event sockets ---------------------------------------------------------------------------


class Views:
    """The distinct view texts one process has received: each is read once (the same text
    reaches every socket of a server showing the same page), keyed by its hash, with the game
    ids on and the players' names of each game, and the names of the page's lines."""

    def __init__(self) -> None:
        self.games: dict[int, dict[str, tuple[str, str]]] = {}
        """Text's hash -> {game id: (white, black)} of the view's games on."""
        self.names: dict[int, set[str]] = {}
        """Text's hash -> the players whose lines the view shows."""
        self.finished: set[int] = set()
        """Hashes of the views of a finished event."""

    def read(self, raw: bytes) -> int:
        key = hash(raw)
        if key not in self.games:
            message = json.loads(raw)
            view = message.get("tournament") or {}
            self.games[key] = {g["id"]: (g["white"], g["black"]) for g in view.get("playing", [])}
            self.names[key] = {line["name"] for line in view.get("standings", [])}
            if view.get("status") == "finished":
                self.finished.add(key)
        return key


class Feed(WSListener):
    """One socket on the event: hands each whole message's arrival time and view key to
    ``on_view`` (picows parses frames in C; a message is read only if its text is new)."""

    def __init__(self, views: Views, on_view: Any) -> None:
        super().__init__()
        self.views = views
        self.on_view = on_view
        self.transport: WSTransport | None = None
        self.parts: list[bytes] = []
        self.closed = False

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.transport = transport

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        at = time.monotonic()
        if frame.msg_type == WSMsgType.CLOSE:
            self.closed = True
            transport.disconnect()
            return
        if frame.msg_type not in (WSMsgType.TEXT, WSMsgType.CONTINUATION):
            return
        if not frame.fin:
            self.parts.append(frame.get_payload_as_bytes())
            return
        raw = b"".join([*self.parts, frame.get_payload_as_bytes()])
        self.parts.clear()
        self.on_view(at, self.views.read(raw))

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        self.closed = True

    def close(self) -> None:
        if self.transport is not None:
            self.transport.disconnect()


async def open_feed(
    url: str, views: Views, on_view: Any, *, cookie: str | None = None, page: int = 1
) -> Feed:
    """A socket on the event, of the player whose session is ``cookie`` (None: a visitor),
    asking for ``page`` (1: the page it opens on, for a visitor)."""
    feed = Feed(views, on_view)
    await ws_connect(
        lambda: feed,
        url,
        websocket_handshake_timeout=WAIT_S,
        max_frame_size=1 << 30,
        extra_headers={"Cookie": cookie} if cookie else None,
    )
    if page != 1:
        assert feed.transport is not None
        feed.transport.send(WSMsgType.TEXT, json.dumps({"type": "page", "page": page}).encode())
    return feed


# --- watchers, in processes of their own ------------------------------------------------------


async def _watch(urls: list[tuple[str, int]], stop: Any, opened: Any, out: Any) -> None:
    views = Views()
    arrivals: list[list[tuple[float, int]]] = [[] for _ in urls]
    sem = asyncio.Semaphore(32)

    async def one(i: int, url: str, page: int) -> Feed:
        async with sem:
            return await open_feed(url, views, lambda at, key: arrivals[i].append((at, key)), page=page)

    feeds = await asyncio.gather(*(one(i, u, page) for i, (u, page) in enumerate(urls)))
    with opened.get_lock():
        opened.value += len(feeds)
    while not stop.is_set():
        await asyncio.sleep(0.2)
    closed = sum(f.closed for f in feeds)  # by the server (refused, too slow...)
    for feed in feeds:
        feed.close()
    games = {key: (list(on), sorted(views.names[key])) for key, on in views.games.items()}
    out.put((games, arrivals, closed))


def watcher_process(urls: list[tuple[str, int]], stop: Any, opened: Any, out: Any) -> None:
    uvloop.run(_watch(urls, stop, opened, out))


Watched = tuple[dict[int, tuple[list[str], list[str]]], list[list[tuple[float, int]]], int]
"""One watchers' process's record: views (key -> game ids on, names shown), each socket's
arrivals (time, key), and how many sockets the server closed."""


class Watchers:
    """``len(urls)`` watchers of the event over ``procs`` processes, each (its server's socket
    URL, the page it asks for)."""

    def __init__(self, urls: list[tuple[str, int]], procs: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.stop_event = ctx.Event()
        self.opened = ctx.Value("i", 0)
        self.out = ctx.Queue()
        self.wanted = len(urls)
        chunks = [urls[i::procs] for i in range(procs)]
        self.procs = [
            ctx.Process(target=watcher_process, daemon=True, args=(c, self.stop_event, self.opened, self.out))
            for c in chunks
            if c
        ]

    async def start(self) -> None:
        for proc in self.procs:
            proc.start()
        deadline = time.monotonic() + 300
        while self.opened.value < self.wanted:
            if time.monotonic() > deadline or not all(p.is_alive() for p in self.procs):
                raise RuntimeError(f"only {self.opened.value} of {self.wanted} watchers connected")
            await asyncio.sleep(0.1)

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs if p.pid is not None]

    async def stop(self) -> list[Watched]:
        """Close them; each process's views (key -> game ids on, names shown), arrivals and
        closed sockets."""
        self.stop_event.set()
        got = [await asyncio.to_thread(self.out.get, True, 120) for _ in self.procs]
        for proc in self.procs:
            await asyncio.to_thread(proc.join, 60)
        return got


# --- players ---------------------------------------------------------------------------------


@dataclass
class Player:
    name: str
    url: str
    client: httpx.AsyncClient
    seen: dict[str, float] = field(default_factory=dict)
    """Game id -> when this player's socket first showed it."""
    free_at: float | None = None
    """When this player's last game ended (None before their first)."""
    feed: Feed | None = None


@dataclass
class Game:
    id: str
    white: Player
    black: Player
    free_at: float | None
    """The later of the two players' previous game ends (None: a first game)."""
    both_seen: float = 0.0
    ended_at: float = 0.0
    resign_s: float = 0.0
    """How long the resignation's request took."""
    seen_by: set[str] = field(default_factory=set)
    ready: asyncio.Event = field(default_factory=asyncio.Event)


class Bench:
    def __init__(self, args: argparse.Namespace, cluster: Cluster) -> None:
        self.args = args
        self.cluster = cluster
        self.urls = [s.url for s in cluster.servers]
        self.players: dict[str, Player] = {}
        self.games: dict[str, Game] = {}
        self.views = Views()
        self.results: list[Game] = []
        self.done = asyncio.Event()
        self.rng = random.Random(args.seed)
        self.errors: list[str] = []
        self.tasks: set[asyncio.Task[None]] = set()

    async def sign_up(self, i: int) -> Player:
        url = self.urls[i % len(self.urls)]
        name = f"ar{i}x{self.rng.randrange(10**6)}"
        client = httpx.AsyncClient(base_url=url, timeout=WAIT_S, headers={"Origin": url})
        res = await client.post("/api/account/signup", json={"name": name, "password": PASSWORD})
        if res.status_code != 201:
            raise RuntimeError(f"signup {name}: {res.status_code} {res.text}")
        return Player(name, url, client)

    async def gather_limited(self, coros: list[Any], limit: int = 8) -> list[Any]:
        sem = asyncio.Semaphore(limit)

        async def one(c: Any) -> Any:
            async with sem:
                return await c

        return list(await asyncio.gather(*(one(c) for c in coros)))

    def on_player_view(self, player: Player, at: float, key: int) -> None:
        for game_id, (white, black) in self.views.games[key].items():
            if player.name not in (white, black) or game_id in player.seen:
                continue
            player.seen[game_id] = at
            game = self.games.get(game_id)
            if game is None:
                w, b = self.players.get(white), self.players.get(black)
                if w is None or b is None:
                    continue
                frees = [p.free_at for p in (w, b)]
                free_at = None if None in frees else max(f for f in frees if f is not None)
                game = self.games[game_id] = Game(game_id, w, b, free_at)
                if not self.done.is_set():
                    task = asyncio.get_running_loop().create_task(self.play(game))
                    self.tasks.add(task)
                    task.add_done_callback(self.tasks.discard)
            game.seen_by.add(player.name)
            if len(game.seen_by) == 2:
                game.both_seen = at
                game.ready.set()

    async def post(self, player: Player, path: str, body: dict[str, Any], tries_s: float = 10.0) -> float:
        """POST until 200 (a move the player's server has not yet seen the previous move for is
        refused: try again); the time of the successful send."""
        deadline = time.monotonic() + tries_s
        while True:
            sent = time.monotonic()
            try:
                res = await player.client.post(path, json=body)
            except httpx.TransportError as exc:  # a kept-alive connection the server closed
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{player.name} {path}: {exc!r}") from exc
                continue
            if res.status_code == 200:
                return sent
            if time.monotonic() > deadline:
                raise RuntimeError(f"{player.name} {path}: {res.status_code} {res.text[:200]}")
            await asyncio.sleep(0.02)

    async def play(self, game: Game) -> None:
        try:
            async with asyncio.timeout(WAIT_S):
                await game.ready.wait()
            await asyncio.sleep(self.rng.uniform(0, self.args.hold))
            if self.done.is_set():
                return
            for player, move in zip((game.white, game.black), OPENING, strict=True):
                await self.post(player, f"/api/games/{game.id}/moves", {"move": move})
            low, high = self.args.length
            if high:
                await asyncio.sleep(self.rng.uniform(low, high))
            loser = self.rng.choice((game.white, game.black))
            if self.done.is_set():
                return
            sent = time.monotonic()
            await self.post(loser, f"/api/games/{game.id}/resign", {})
            game.resign_s = time.monotonic() - sent
            game.ended_at = sent
            for p in (game.white, game.black):
                p.free_at = sent
            self.results.append(game)
            if len(self.results) >= self.args.games:
                self.done.set()
        except Exception as exc:  # reported, not hidden: the run goes on with the other games
            self.errors.append(f"game {game.id}: {exc!r}")

    async def run(self) -> None:
        args = self.args
        t0 = time.monotonic()
        made = await self.gather_limited([self.sign_up(i) for i in range(args.players)], 4)
        self.players = {p.name: p for p in made}
        print(f"  {len(made)} accounts made in {time.monotonic() - t0:.1f} s", flush=True)
        host = made[0]
        res = await host.client.post(
            "/api/tournaments",
            json={
                "kind": "arena",
                "variant": "fugue",
                "time_control": "3+0",
                "minutes": args.arena_minutes,
                "starts_in": 60,
                "name": "Bench arena",
            },
        )
        res.raise_for_status()
        event = res.json()["id"]
        joins = await self.gather_limited(
            [p.client.post(f"/api/tournaments/{event}/join", json={}) for p in made]
        )
        assert all(r.status_code == 204 for r in joins), [r.text for r in joins if r.status_code != 204][:3]

        async def connect(p: Player) -> None:
            ws = p.url.replace("http", "ws") + f"/ws/tournaments/{event}"
            cookie = f"exochess_session={p.client.cookies['exochess_session']}"
            p.feed = await open_feed(
                ws, self.views, lambda at, key: self.on_player_view(p, at, key), cookie=cookie
            )

        await self.gather_limited([connect(p) for p in made], 32)
        ws_urls = [u.replace("http", "ws") + f"/ws/tournaments/{event}" for u in self.urls]
        pages = -(-args.players // PAGE_SIZE)
        watchers = Watchers(
            [(ws_urls[i % len(ws_urls)], i % pages + 1) for i in range(args.watchers)], args.watcher_procs
        )
        await watchers.start()
        await asyncio.sleep(1.0)
        refused = [p.name for p in made if p.feed is not None and p.feed.closed]
        if refused:
            raise RuntimeError(f"{len(refused)} players' sockets were closed by the server")
        print(f"  {args.players} players and {args.watchers} watchers connected", flush=True)
        roles = self.roles(watchers)
        cpu0 = {role: sum(cpu_of(pid) for pid in pids) for role, pids in roles.items()}
        load0 = os.getloadavg()
        profilers = self.start_profilers()
        started = time.monotonic()
        res = await host.client.post(f"/api/tournaments/{event}/start", json={})
        assert res.status_code == 204, res.text
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.done.wait(), args.seconds)
        self.done.set()
        took = time.monotonic() - started
        cpu = {role: sum(cpu_of(pid) for pid in pids) - cpu0[role] for role, pids in roles.items()}
        load1 = os.getloadavg()
        for proc in profilers:
            proc.send_signal(2)  # SIGINT: py-spy writes its file
        await asyncio.sleep(1.0)  # views of the last results on their way
        watched = await watchers.stop()
        for proc in profilers:
            await asyncio.to_thread(proc.wait, 60)
        for task in list(self.tasks):
            task.cancel()
        self.report(watched, took, cpu, load0, load1, started)
        for p in made:
            if p.feed is not None:
                p.feed.close()
            await p.client.aclose()

    def roles(self, watchers: Watchers) -> dict[str, list[int]]:
        def tree(pid: int) -> list[int]:
            found, todo = [], [pid]
            while todo:
                current = todo.pop()
                found.append(current)
                for task in Path(f"/proc/{current}/task").glob("*/children"):
                    with contextlib.suppress(OSError):
                        todo.extend(int(c) for c in task.read_text().split())
            return found

        services = self.cluster.services
        roles = {f"server {i + 1}": tree(s.proc.pid) for i, s in enumerate(self.cluster.servers) if s.proc}
        # the postmaster and its backends (those that ended count in the postmaster's children)
        roles["postgres"] = tree(int((services.postgres.data / "postmaster.pid").read_text().split()[0]))
        if services.redis.proc is not None:
            roles["redis"] = [services.redis.proc.pid]
        roles["players (this process)"] = [os.getpid()]
        roles["watchers"] = watchers.pids
        return roles

    def start_profilers(self) -> list[subprocess.Popen[bytes]]:
        if not self.args.profile:
            return []
        py_spy = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
        if py_spy is None:
            print("  py-spy is not installed: no profile", flush=True)
            return []
        folder = Path(self.args.profile)
        folder.mkdir(parents=True, exist_ok=True)
        procs = []
        for i, server in enumerate(self.cluster.servers):
            assert server.proc is not None
            out = folder / f"server{i + 1}.txt"
            procs.append(
                subprocess.Popen(
                    [
                        py_spy,
                        "record",
                        "--gil",  # only the thread holding the GIL: CPU, not waits
                        "--pid",
                        str(server.proc.pid),
                        "--format",
                        "raw",
                        "--output",
                        str(out),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        return procs

    def report(
        self,
        watched: list[Watched],
        took: float,
        cpu: dict[str, float],
        load0: tuple[float, float, float],
        load1: tuple[float, float, float],
        started: float,
    ) -> None:
        first, later = [], []
        for game in self.games.values():
            if not game.ready.is_set():
                continue
            if game.free_at is None:
                first.append(game.both_seen - started)
            elif game.both_seen >= game.free_at:
                later.append(game.both_seen - game.free_at)
        updates: list[float] = []
        # each time the game left a watcher's page after the result: ``updates``, and those
        # where neither player is on the page any more (the result moved them, or others' did)
        leaving: list[float] = []
        missed = unseen = left = 0
        for views, arrivals, _closed in watched:
            on = {key: set(ids) for key, (ids, _names) in views.items()}
            shown = {key: set(names) for key, (_ids, names) in views.items()}
            for socket in arrivals:
                times = [at for at, _key in socket]
                for game in self.results:
                    # the page as the watcher had it when the resignation was sent: did it list
                    # the game?  (one sent before may still be on its way: counted below)
                    at_end = bisect.bisect_left(times, game.ended_at)
                    if at_end == 0 or game.id not in on[socket[at_end - 1][1]]:
                        unseen += 1
                        continue
                    # the first view after it that no longer lists the game: the result, if it
                    # shows one of the game's players (a page lists its players' games); if it
                    # shows neither, the players left the page and it says nothing of the game
                    found = next(((at, key) for at, key in socket[at_end:] if game.id not in on[key]), None)
                    if found is None:
                        missed += 1
                        continue
                    leaving.append(found[0] - game.ended_at)
                    if {game.white.name, game.black.name} & shown[found[1]]:
                        updates.append(found[0] - game.ended_at)
                    else:
                        left += 1
        n = len(self.results)
        print(
            f"\n{self.args.players} players, {self.args.watchers} watchers on 2 servers: {n} results in "
            f"{took:.1f} s ({n / took:.1f} a second), {len(self.games)} games paired"
        )
        print(f"pairing latency after a game's end:   {percentiles(later)}   (target p99 < 1000 ms)")
        print(f"first wave, from the start:           {percentiles(first)}")
        print(f"standings update to each watcher:     {percentiles(updates)}   (target p99 < 200 ms)")
        print(f"  the game off the page, any way:     {percentiles(leaving)}")
        print(
            f"  ({len(updates)} watcher x result pairs measured; without the update before the end: "
            f"{missed}; the game's players left the page: {left}; the game not on the watcher's page "
            f"when it ended: {unseen}; closed sockets: "
            f"{sum(c for _v, _a, c in watched)} watchers', "
            f"{sum(p.feed is not None and p.feed.closed for p in self.players.values())} players')"
        )
        print(f"resignation request:                  {percentiles([g.resign_s for g in self.results])}")
        print(
            "CPU over the run (cores): "
            + ", ".join(f"{role} {seconds / took:.2f}" for role, seconds in cpu.items())
        )
        servers = sum(seconds for role, seconds in cpu.items() if role.startswith("server"))
        if n:
            print(
                f"CPU per result: servers {servers / n * 1000:.0f} ms, postgres "
                f"{cpu.get('postgres', 0.0) / n * 1000:.0f} ms (a result, its pairing, the views)"
            )
        print(f"load average at the start {load0[0]:.2f}, at the end {load1[0]:.2f} (1 min)")
        if self.errors:
            print(f"{len(self.errors)} errors, first ones: {self.errors[:3]}")


async def amain(args: argparse.Namespace) -> int:
    services = Services().start()
    cluster = Cluster(services, servers=2, workers=0, env=ENV, start_timeout=180.0)
    try:
        cluster.start()
        await Bench(args, cluster).run()
    finally:
        cluster.stop()
        services.stop()
    return 0


def seconds_range(text: str) -> tuple[float, float]:
    """``A-B`` (or ``A``) seconds, 0 <= A <= B."""
    low, _, high = text.partition("-")
    try:
        a, b = float(low), float(high or low)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not seconds A-B: {text!r}") from exc
    if not 0 <= a <= b:
        raise argparse.ArgumentTypeError(f"not 0 <= A <= B: {text!r}")
    return a, b


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=200, help="players in the arena (default 200)")
    parser.add_argument("--watchers", type=int, default=500, help="watching sockets (default 500)")
    parser.add_argument("--games", type=int, default=400, help="results to measure (default 400)")
    parser.add_argument(
        "--seconds", type=float, default=300.0, help="bound on the measured run (default 300)"
    )
    parser.add_argument(
        "--hold", type=float, default=3.0, help="longest random wait before a game is played (default 3 s)"
    )
    parser.add_argument(
        "--length",
        type=seconds_range,
        default=(0.0, 0.0),
        metavar="A-B",
        help="a random wait of A to B seconds between the opening moves and the resignation (default 0)",
    )
    parser.add_argument("--watcher-procs", type=int, default=2, help="processes of the watchers (default 2)")
    parser.add_argument("--arena-minutes", type=float, default=60.0, help="the arena's length (default 60)")
    parser.add_argument("--profile", default="", metavar="DIR", help="py-spy both servers into DIR")
    parser.add_argument("--seed", type=int, default=46)
    args = parser.parse_args(argv)
    if args.players < 2 or args.games < 1:
        parser.error("an arena needs at least 2 players and 1 game")
    return uvloop.run(amain(args))


if __name__ == "__main__":
    raise SystemExit(main())
