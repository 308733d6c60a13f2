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
workers share the cores: ratios matter more than totals (the issue says so).  So the load
generator is kept cheap, and its share is measured rather than guessed:

- the players run in ``--player-procs`` processes, each game's moves prepared before the
  clock starts (random legal games from the library, ``--plies`` of them); a player's socket
  never decodes a state, it reads the ply from the state's bytes, so a move costs the
  generator a send and two short searches; the players' sockets are picows', whose frame
  reader is C (the ``websockets`` package's, used for ``--deflate``, cost three times the CPU
  a state);
- the watchers' sockets (most of the 2,000 of target 1) count what they receive without
  decoding it, in ``--watcher-procs`` processes of their own;
- each measurement prints the CPU time each role used per stored move (``cpu ms/move``: the
  server processes, PostgreSQL, Redis, the load generator, from /proc), which tells which one
  is the limit; on a loaded machine that figure moves far less than moves per second do.
  Target 2 also prints the rates that CPU allows on this machine's cores;
- each measurement also prints where a move's time went in the servers (``stages``: each
  ``/metrics`` histogram's mean and p99 over the window, all servers added up: the thread
  pools' wait/run/resume, the event loop's lag, a move's store and publish, the pub/sub lag
  from publish to the other process and its handling), each server process's CPU in cores,
  and the round trip to the mover's own socket beside the one across servers: a stage whose
  time grows while the CPU does not is what paces the site.

The clients offer no per-message compression (the same generator for 1 and 2 processes);
``--deflate`` makes them offer it, as browsers do, and the servers then compress each state
once per socket (what that costs them is the difference).

When the benchmark itself runs niced (``nice -n 19`` on a shared machine), the engine workers
of targets 1 and 3 are moved to the idle scheduling class: their own nice 10 cannot put them
below servers that are at 19 already (``--workers-as-servers`` leaves them there).

``--envelope``, ``--pre-ping`` and ``--statements`` time parts of a server's work per move on
their own (the pub/sub envelope's wire form; the database pool's ping before each transaction;
a stored move by the number of moves its statement stores).

Run:

    .venv/bin/python bench/cluster.py            # the issue's sizes
    .venv/bin/python bench/cluster.py --quick    # smaller, about a minute
    nice -n 19 .venv/bin/python bench/cluster.py --targets 2   # one target
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import math
import multiprocessing
import os
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Protocol

import httpx
import uvloop
import websockets
from picows import WSFrame, WSListener, WSMsgType, WSTransport, ws_connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.cluster.harness import Cluster, Services
from tests.web.legaltree import whole_moves

from exochess.board import Board

TICK = os.sysconf("SC_CLK_TCK")


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds of one process and of its children that ended and were
    waited for (0 if it is gone).  The latter matter: PostgreSQL's backends of connections a
    server's pool closed (its overflow beyond ``pool_size``) end within the window, and
    their CPU then shows only in the postmaster's count."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / TICK


def pg_sessions(url: str) -> int:
    """Sessions PostgreSQL has started so far (``pg_stat_database.sessions``): connections
    opened, which each cost a backend's start."""
    import psycopg
    from sqlalchemy.engine import make_url

    libpq = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(libpq, autocommit=True) as conn:
        row = conn.execute("SELECT sum(sessions) FROM pg_stat_database").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _children(pid: int) -> list[int]:
    """``pid`` and its descendants (PostgreSQL's backends, a server's process pools)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                todo.extend(int(c) for c in task.read_text().split())
    return found


def machine_cpu() -> tuple[float, float]:
    """The machine's busy and idle CPU seconds since boot, all cores (``/proc/stat``; idle
    counts waiting for I/O too, niced work counts as busy)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / TICK, idle / TICK


class CpuMeter:
    """CPU seconds used by each role of the site (servers, PostgreSQL, Redis, engine workers,
    load generator) between :meth:`start` and :meth:`stop`, read from /proc."""

    def __init__(self, services: Services, site: Cluster, helpers: list[int]) -> None:
        postmaster = int((services.postgres.data / "postmaster.pid").read_text().split()[0])
        redis = services.redis.proc.pid if services.redis.proc is not None else 0
        self.roots = {
            "servers": [s.proc.pid for s in site.servers if s.proc is not None],
            "postgres": [postmaster],
            "redis": [redis],
            "workers": [w.proc.pid for w in site.workers if w.proc is not None],
            "loadgen": helpers,
        }
        self.before: dict[str, float] = {}
        self.database_url = services.postgres.url
        self.sessions_before = 0
        self.sessions = 0
        """Connections PostgreSQL accepted in the window (after :meth:`stop`)."""
        self.machine_before = machine_cpu()
        self.machine = (0.0, 0.0)
        """The whole machine's busy and idle CPU seconds over the window (after :meth:`stop`)."""

    def _read(self) -> dict[str, float]:
        used = {
            role: sum(_cpu_of(p) for root in roots for p in _children(root))
            for role, roots in self.roots.items()
        }
        for i, root in enumerate(self.roots["servers"]):  # each server alone too (not a role)
            used[f"server{i}"] = sum(_cpu_of(p) for p in _children(root))
        # this process alone: the servers, workers and Redis are its children too (an earlier
        # version counted them twice, as load generator as well)
        used["loadgen"] += _cpu_of(os.getpid())
        return used

    def start(self) -> None:
        self.sessions_before = pg_sessions(self.database_url)
        self.before = self._read()
        self.machine_before = machine_cpu()

    def stop(self) -> tuple[dict[str, float], list[float]]:
        """CPU seconds by role, and each server process's (with its own pools) alone."""
        after = self._read()
        busy, idle = machine_cpu()
        self.machine = (busy - self.machine_before[0], idle - self.machine_before[1])
        self.sessions = pg_sessions(self.database_url) - self.sessions_before - 1  # not our own
        used = {role: after[role] - self.before[role] for role in after}
        servers = [used.pop(f"server{i}") for i in range(len(self.roots["servers"]))]
        return used, servers


def accounting_text(
    used: dict[str, float], per_server: list[float], machine: tuple[float, float], moves: int, seconds: float
) -> str:
    """Where the machine's cores went over a window: each server process, each other role
    (PostgreSQL's backends together, Redis, the load generator, engine workers), what the
    site does not account for (other processes on the machine) and the idle share; in cores
    and in ms of CPU per stored move."""

    def one(name: str, cpu: float) -> str:
        return f"{name} {cpu / seconds:.2f} ({cpu * 1000 / max(1, moves):.2f})"

    parts = [one(f"server{i}", cpu) for i, cpu in enumerate(per_server)]
    parts += [one(role, cpu) for role, cpu in used.items() if role != "servers" and cpu > 0.005]
    site = sum(used.values())
    busy, idle = machine
    cores = os.cpu_count() or 1
    return (
        f"   accounting, cores (ms a stored move): {', '.join(parts)}; site {site / seconds:.2f} "
        f"({site * 1000 / max(1, moves):.2f}); other processes {max(0.0, busy - site) / seconds:.2f}; "
        f"machine idle {idle / seconds:.2f} of {cores} cores "
        f"({100 * idle / max(1e-9, busy + idle):.0f}%)"
    )


def cpu_text(used: dict[str, float], moves: int) -> str:
    """``cpu ms/move: servers 3.1, postgres 0.9, ...`` (roles that used nothing left out)."""
    parts = [f"{role} {used[role] * 1000 / max(1, moves):.1f}" for role in used if used[role] > 0.005]
    return "cpu ms/move: " + ", ".join(parts)


STAGE_FAMILIES = {
    "exochess_move_seconds": "move",
    "exochess_work_wait_seconds": "wait",
    "exochess_work_run_seconds": "run",
    "exochess_work_resume_seconds": "resume",
    "exochess_event_loop_lag_seconds": "loop lag",
    "exochess_bus_lag_seconds": "bus lag",
    "exochess_bus_handle_seconds": "bus handle",
    "exochess_bus_send_seconds": "bus send",
    "exochess_gc_pause_seconds": "gc",
    "exochess_moves_per_statement": "moves a statement",
}
"""The servers' histograms (``/metrics``) that say where a move's time goes, and their short
names in the bench's ``stages`` line."""
COUNTS = {"moves a statement"}
"""Those of :data:`STAGE_FAMILIES` that count things instead of timing them (no ms)."""

Histos = dict[tuple[str, str], dict[str, float]]
"""(short name, label) -> {"sum": s, "count": n, "<le>": cumulative count, ...}."""


async def scrape(urls: list[str]) -> Histos:
    """The stage histograms of all ``urls`` (servers) added up."""
    from prometheus_client.parser import text_string_to_metric_families

    out: Histos = {}
    async with httpx.AsyncClient(timeout=30) as client:
        for url in urls:
            res = await client.get(url + "/metrics")
            res.raise_for_status()
            for family in text_string_to_metric_families(res.text):
                short = STAGE_FAMILIES.get(family.name)
                if short is None:
                    continue
                for sample in family.samples:
                    labels = {k: v for k, v in sample.labels.items() if k != "le"}
                    label = ",".join(labels.values())
                    slot = out.setdefault((short, label), {})
                    bucket = sample.name.endswith("_bucket")
                    field = sample.labels["le"] if bucket else sample.name.rsplit("_", 1)[1]
                    if field == "created":
                        continue
                    slot[field] = slot.get(field, 0.0) + sample.value
    return out


def stages_text(before: Histos, after: Histos) -> str:
    """Each stage's mean and p99 (the upper bound of the bucket it falls in) over the window, in
    ms (in moves for the moves a statement)."""
    parts = []
    for key, now in after.items():
        was = before.get(key, {})
        delta = {field: now[field] - was.get(field, 0.0) for field in now}
        count = delta.get("count", 0.0)
        if count < 1:
            continue
        bounds = sorted((float(le), delta[le]) for le in delta if le not in ("sum", "count"))
        p99 = next((le for le, cum in bounds if cum >= 0.99 * count), math.inf)
        name = f"{key[0]} {key[1]}".strip()
        scale = 1 if key[0] in COUNTS else 1000
        finite = [le for le, _cum in bounds if le != math.inf]
        top = f">{finite[-1] * scale:g}" if p99 == math.inf and finite else f"{p99 * scale:g}"
        parts.append(f"{name} {delta['sum'] / count * scale:.1f}/{top} ({count:.0f})")
    return "stages, ms mean/p99 (count), all servers: " + "; ".join(sorted(parts))


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else float("nan")


HEAD = re.compile(r'"ply": ?(\d+), ?"turn": ?"(\w+)", ?"status": ?"(\w+)"')
"""A state's ply, side to move and status (in this order in every state, and nowhere else:
moves have no ``turn``), read without parsing the state."""
LEGAL = '"legal": '
JSON_VALUE = json.JSONDecoder()
"""Reads the one JSON value after ``"legal": `` (whatever key follows it in the state)."""


class Sock:
    """A websocket whose reader keeps the latest state (and drains everything else).

    A state is never parsed whole: its ply, turn and status are read from the text, and only
    its list of legal moves is parsed, when the player is to move (:meth:`wait_ply` with
    ``parse``); the history (all FENs and moves) grows with the game and is never read."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.raw: str | None = None
        self.ply = -1
        self.errors: list[str] = []
        self.changed = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, secret: str | None = None, deflate: bool = False) -> Sock:
        ws = await connect(url, deflate)
        if secret is not None:
            await ws.send(json.dumps({"type": "auth", "secret": secret}))
        return cls(ws)

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                if raw.startswith('{"type": "state"') or raw.startswith('{"type":"state"'):
                    found = HEAD.search(raw)
                    self.raw, self.ply = raw, int(found.group(1)) if found else -1
                    self.changed.set()
                elif raw.startswith('{"type": "error"'):
                    self.errors.append(json.loads(raw)["error"])
                    self.changed.set()
        except websockets.ConnectionClosed as exc:
            self.errors.append(f"closed: {exc}")
        self.changed.set()

    async def wait_ply(
        self, ply: int, timeout: float = 60, mover: Sock | None = None, parse: bool = True
    ) -> dict[str, Any]:
        """The state at ``ply`` or later as its ``ply``, ``turn``, ``status`` and ``legal``
        (an empty dict without ``parse``); an error on this socket or on ``mover``'s is raised."""
        deadline = time.monotonic() + timeout
        while self.ply < ply:
            if self.errors or (mover is not None and mover.errors):
                raise RuntimeError(f"websocket: {self.errors or mover.errors if mover else ''}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"no state at ply {ply} after {timeout} s")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):  # a second's wait, then look at the mover again
                async with asyncio.timeout(1.0):  # not wait_for: on 3.11 that makes a task a wait
                    await self.changed.wait()
        if not parse or self.raw is None:
            return {}
        raw = self.raw
        head = HEAD.search(raw)
        assert head is not None, raw[:200]
        start = raw.index(LEGAL) + len(LEGAL)
        return {
            "ply": int(head.group(1)),
            "turn": head.group(2),
            "status": head.group(3),
            "legal": JSON_VALUE.raw_decode(raw, start)[0],
        }

    async def close(self) -> None:
        await self.ws.close()
        self.task.cancel()


def ws_base(url: str) -> str:
    return url.replace("http://", "ws://")


async def create_games(urls: list[str], n: int, **body: Any) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(timeout=120) as client:
        out = []
        for i in range(n):
            res = await client.post(
                urls[i % len(urls)] + "/api/games", json={"variant": "fugue", "opponent": "friend", **body}
            )
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


async def connect(url: str, deflate: bool) -> Any:
    """A websocket to ``url``; ``deflate``: offer per-message compression, as browsers do (the
    server then compresses every message once per socket)."""
    return await websockets.connect(
        url, open_timeout=120, max_queue=None, max_size=None, compression="deflate" if deflate else None
    )


async def _drain(urls: list[str], stop: Any, opened: Any, received: Any, deflate: bool) -> None:
    """Open the watchers' websockets and read them until ``stop`` is set, without parsing."""
    sem = asyncio.Semaphore(32)

    async def one(url: str) -> Any:
        async with sem:
            return await connect(url, deflate)

    sockets = await asyncio.gather(*(one(u) for u in urls))
    with opened.get_lock():
        opened.value += len(sockets)
    count = 0

    async def read(ws: Any) -> None:
        nonlocal count
        with contextlib.suppress(websockets.ConnectionClosed):
            while True:
                await ws.recv(decode=False)  # counted, never decoded
                count += 1

    readers = [asyncio.create_task(read(ws)) for ws in sockets]
    while not stop.is_set():
        await asyncio.sleep(0.2)
    for task in readers:
        task.cancel()
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    with received.get_lock():
        received.value += count


def watcher_process(urls: list[str], stop: Any, opened: Any, received: Any, deflate: bool, nice: int) -> None:
    """A process of watchers (see the module's text: the load generator's cheap part)."""
    os.nice(nice)
    uvloop.run(_drain(urls, stop, opened, received, deflate))


class Watchers:
    """``len(urls)`` watching websockets spread over ``procs`` processes of their own."""

    def __init__(self, urls: list[str], procs: int, deflate: bool, nice: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.stop_event = ctx.Event()
        self.opened = ctx.Value("i", 0)
        self.received = ctx.Value("i", 0)
        self.wanted = len(urls)
        chunks = [urls[i::procs] for i in range(procs)] if urls else []
        self.procs = [
            ctx.Process(
                target=watcher_process,
                daemon=True,
                args=(chunk, self.stop_event, self.opened, self.received, deflate, nice),
            )
            for chunk in chunks
            if chunk
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

    async def stop(self) -> int:
        """Close them all; the messages they received."""
        self.stop_event.set()
        for proc in self.procs:
            await asyncio.to_thread(proc.join, 60)
        return int(self.received.value)


class Site:
    """What a measurement gets: the servers' addresses, and a CPU meter for the site."""

    def __init__(self, services: Services, cluster: Cluster, args: argparse.Namespace) -> None:
        self.services = services
        self.cluster = cluster
        self.urls = [s.url for s in cluster.servers]
        self.watcher_procs: int = args.watcher_procs
        self.player_procs: int = args.player_procs
        self.plies: int = args.plies
        self.loadgen_nice: int = args.loadgen_nice
        self.deflate: bool = args.deflate

    def meter(self, helpers: list[int]) -> CpuMeter:
        return CpuMeter(self.services, self.cluster, helpers)


class Backlog:
    """Samples, every :data:`BACKLOG_EVERY_S` while a window runs, the bytes of pub/sub
    envelopes on their way to the servers but not yet read by them: at Redis (the output
    buffers of the subscribed clients, ``CLIENT LIST TYPE pubsub`` ``omem``) and in this
    machine's sockets (the receive queues of the clients' sockets to Redis's port, ``ss``).
    Every server reads every envelope (its own too: one channel), so this is the queue in front
    of the servers' subscriptions, the part of ``bus lag`` spent before a server reads it."""

    def __init__(self, redis_url: str, redis_port: int) -> None:
        self.redis_url = redis_url
        self.redis_port = redis_port
        self.at_redis: list[int] = []
        self.in_sockets: list[int] = []
        self.stop = asyncio.Event()

    async def _sockets(self) -> int:
        proc = await asyncio.create_subprocess_exec(
            "ss",
            "-tnH",
            "state",
            "established",
            "dst",
            f"127.0.0.1:{self.redis_port}",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        out, _ = await proc.communicate()
        return sum(int(line.split()[0]) for line in out.decode().splitlines() if line.split())

    async def run(self) -> None:
        import redis.asyncio as aioredis

        client = aioredis.Redis.from_url(self.redis_url)
        try:
            while not self.stop.is_set():
                clients = await client.client_list(_type="pubsub")
                self.at_redis.append(sum(int(c.get("omem", 0)) for c in clients))
                with contextlib.suppress(OSError):
                    self.in_sockets.append(await self._sockets())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stop.wait(), BACKLOG_EVERY_S)
        finally:
            await client.aclose()

    def text(self) -> str:
        def kb(values: list[int]) -> str:
            return f"{sum(values) / max(1, len(values)) / 1024:.0f}/{max(values, default=0) / 1024:.0f}"

        return (
            f"subscriptions' backlog, KB mean/max ({len(self.at_redis)} samples): at Redis "
            f"{kb(self.at_redis)}, in the sockets {kb(self.in_sockets)}"
        )


BACKLOG_EVERY_S = 0.25


class Load:
    """The outcome of :func:`human_load`."""

    def __init__(
        self,
        lat: list[float],
        moves: int,
        sockets: int,
        cpu: dict[str, float],
        watched: int,
        short: int,
        own: list[float],
        per_server: list[float],
        stages: str,
        refused: int = 0,
        backlog: str = "",
        machine: tuple[float, float] = (0.0, 0.0),
        sessions: int = 0,
    ) -> None:
        self.lat, self.moves, self.sockets, self.cpu, self.watched = lat, moves, sockets, cpu, watched
        self.machine = machine
        self.sessions = sessions
        """Connections PostgreSQL accepted in the window (the servers' pools opening them)."""
        """The machine's busy and idle CPU seconds in the window (all processes, all cores)."""
        self.short = short
        """Games whose prepared moves ran out before the end of the window (a warning)."""
        self.own = own
        """Round trips to the mover's own socket (its server sends the state directly; with 2
        servers :attr:`lat` also crosses Redis to the other one)."""
        self.per_server = per_server
        """CPU seconds of each server process (with its pools) in the window."""
        self.stages = stages
        """The servers' stage histograms over the window (:func:`stages_text`)."""
        self.refused = refused
        """Moves the servers refused as busy (sent again, not counted as moves)."""
        self.backlog = backlog
        """The envelopes waiting for the servers' subscriptions (:class:`Backlog`)."""

    def detail(self, seconds: float) -> str:
        """Per-server CPU (share of a core), the mover's own round trip, the stages."""
        cores = ", ".join(f"{cpu / seconds:.2f}" for cpu in self.per_server)
        return (
            f"   server processes' CPU (cores): {cores}; round trip to the mover's own socket p50 "
            f"{pct(self.own, 50) * 1000:.0f} ms, p99 {pct(self.own, 99) * 1000:.0f} ms\n"
            f"{accounting_text(self.cpu, self.per_server, self.machine, self.moves, seconds)}; "
            f"PostgreSQL connections opened {self.sessions}\n"
            f"   {self.stages}" + (f"\n   {self.backlog}" if self.backlog else "")
        )


def random_game(seed: int, plies: int) -> list[str]:
    """The texts of ``plies`` random legal Fugue moves from the start, never one that ends the
    game (so the game stays active however fast it is played)."""
    rng = random.Random(seed)
    board = Board("fugue")
    texts: list[str] = []
    while len(texts) < plies:
        moves = list(board.legal_moves)
        rng.shuffle(moves)
        for move in moves:
            board.push(move)
            if board.outcome() is None:
                texts.append(str(move))
                break
            board.pop()
        else:
            break  # every move ends the game: the game is as long as it gets
    return texts


STATE = b'{"type": "state"'
COMPACT_STATE = b'{"type":"state"'
"""How a state begins: the site's encoder writes it compact (orjson), former ones spaced."""
PLY = re.compile(rb'"ply": ?(\d+), ?"turn"')
"""A state's ply (``"ply": N, "turn"`` is in every state once, and nowhere else), read from its
bytes: the player's sockets never decode or parse a state."""


class Refused(Exception):
    """The mover's server answered its move with "busy" (its queue of moves was full): the
    move was not stored, and the player sends it again after :data:`RETRY_S`."""


RETRY_S = 0.1
"""How long a player whose move was refused as busy waits before sending it again (the site's
message says "try again in a moment")."""
BUSY = b'"status": 503'


ERROR = b'{"type": "error"'


class SeatLink(Protocol):
    """A player's socket as :class:`Player` uses it."""

    async def send(self, text: str) -> None: ...

    async def close(self) -> None: ...


class Player:
    """One seat: keeps only the ply of the latest state, from the messages its socket hands it
    (:class:`PicowsSeat`, or :class:`WebsocketsSeat` when the players offer compression)."""

    def __init__(self) -> None:
        self.ply = -1
        self.error: str | None = None
        self.refused = 0
        """Moves of this seat the server refused as busy (503), each sent again."""
        self.partner: Player | None = None
        """The other seat of the game: it waits for the state while this seat's move may be
        refused, so a refusal wakes it too."""
        self.at = 0.0
        """When the latest state arrived (``time.perf_counter``)."""
        self.changed = asyncio.Event()
        self.link: SeatLink | None = None
        """The seat's socket, once connected."""

    def received(self, raw: bytes | memoryview) -> None:
        """A whole message arrived (only valid during the call: picows reuses the buffer)."""
        if raw[: len(COMPACT_STATE)] == COMPACT_STATE or raw[: len(STATE)] == STATE:
            found = PLY.search(raw)
            self.ply = int(found.group(1)) if found else self.ply
            self.at = time.perf_counter()
            self.changed.set()
        elif raw[: len(ERROR)] == ERROR:
            text = bytes(raw)
            if BUSY in text:
                self.refused += 1
                if self.partner is not None:
                    self.partner.changed.set()
            else:
                self.error = text.decode()
            self.changed.set()

    def closed(self, why: str) -> None:
        """The socket closed (``why``): every wait on this seat ends with an error."""
        if self.error is None:
            self.error = f"closed: {why}"
        self.changed.set()

    async def wait_ply(
        self, ply: int, until: float, mover: Player | None = None, refused: int | None = None
    ) -> bool:
        """Wait until this socket saw the state at ``ply`` (True) or ``until`` (monotonic) passed
        (False); an error on this socket or on ``mover``'s is raised, and :class:`Refused` when
        ``mover`` has more refusals than ``refused``."""
        while self.ply < ply:
            for sock in (self, mover):
                if sock is not None and sock.error is not None:
                    raise RuntimeError(f"websocket: {sock.error}")
            if mover is not None and refused is not None and mover.refused > refused:
                raise Refused
            left = until - time.monotonic()
            if left <= 0:
                return False
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(left, 1.0)):  # no task a wait, unlike wait_for on 3.11
                    await self.changed.wait()
        return True


class PicowsSeat(WSListener):
    """A player's socket on picows, whose frames are parsed in C and handed over as a view of
    its buffer: the load generator shares the cores with the servers it measures, and a state
    of 26 KB costs it about a third of what the ``websockets`` package's reader does (5,000
    states read in a row: 16 against 49 us of CPU each)."""

    def __init__(self, player: Player) -> None:
        super().__init__()
        self.player = player
        self.transport: WSTransport | None = None
        self.parts: list[bytes] = []
        """The frames so far of a fragmented message."""

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.transport = transport

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        if frame.msg_type == WSMsgType.CLOSE:
            self.player.closed(f"code {frame.get_close_code()}")
            transport.disconnect()
        elif frame.msg_type in (WSMsgType.TEXT, WSMsgType.BINARY, WSMsgType.CONTINUATION):
            if frame.fin and not self.parts:
                self.player.received(frame.get_payload_as_memoryview())
            elif frame.fin:
                self.player.received(b"".join([*self.parts, frame.get_payload_as_bytes()]))
                self.parts.clear()
            else:
                self.parts.append(frame.get_payload_as_bytes())

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        self.player.closed("disconnected")

    async def send(self, text: str) -> None:
        assert self.transport is not None
        self.transport.send(WSMsgType.TEXT, text.encode())

    async def close(self) -> None:
        if self.transport is not None:
            self.transport.disconnect()


class WebsocketsSeat:
    """A player's socket on the ``websockets`` package, for ``--deflate`` (picows offers no
    per-message compression)."""

    def __init__(self, ws: Any, player: Player) -> None:
        self.ws = ws
        self.player = player
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                self.player.received(await self.ws.recv(decode=False))
        except websockets.ConnectionClosed as exc:
            self.player.closed(str(exc))

    async def send(self, text: str) -> None:
        await self.ws.send(text)

    async def close(self) -> None:
        await self.ws.close()


async def open_seat(url: str, secret: str, deflate: bool) -> Player:
    """A player's seat, authenticated with ``secret``."""
    player = Player()
    link: SeatLink
    if deflate:
        link = WebsocketsSeat(await connect(url, deflate), player)
    else:
        seat = PicowsSeat(player)
        await ws_connect(lambda: seat, url, websocket_handshake_timeout=120, max_frame_size=1 << 30)
        link = seat
    player.link = link
    await link.send(json.dumps({"type": "auth", "secret": secret}))
    return player


class Plan:
    """One game as a players' process gets it: its id, the seats' secrets and servers."""

    def __init__(self, index: int, gid: str, secrets: dict[str, str], urls: dict[str, str]) -> None:
        self.index, self.gid, self.secrets, self.urls = index, gid, secrets, urls


async def _players(
    plans: list[Plan],
    plies: int,
    seconds: float,
    think: tuple[float, float],
    deflate: bool,
    pipe: Any,
    go: Any,
) -> None:
    """A players' process: prepare the games' moves, open both seats' sockets, say ready, play
    from ``go`` for ``seconds``, send back (round trips, moves, games short of moves)."""
    games = [(plan, random_game(plan.index, plies)) for plan in plans]
    sem = asyncio.Semaphore(16)

    async def seat(url: str, secret: str) -> Player:
        async with sem:
            return await open_seat(url, secret, deflate)

    seats = await asyncio.gather(
        *(
            asyncio.gather(*(seat(plan.urls[c], plan.secrets[c]) for c in ("white", "black")))
            for plan, _texts in games
        )
    )
    for white, black in seats:
        white.partner, black.partner = black, white
    far = time.monotonic() + 120
    for white, _black in seats:
        if not await white.wait_ply(0, far):
            raise TimeoutError("no first state")
    pipe.send("ready")
    await asyncio.to_thread(go.wait)
    until = time.monotonic() + seconds
    lat: list[float] = []
    own: list[float] = []
    moves = 0
    short = 0

    async def play(texts: list[str], white: Player, black: Player, rng: random.Random) -> None:
        nonlocal moves, short
        for ply, text in enumerate(texts):
            if think[1] > 0:
                await asyncio.sleep(rng.uniform(*think))
            if time.monotonic() >= until:
                return
            mover, other = (white, black) if ply % 2 == 0 else (black, white)
            sent = time.perf_counter()  # the round trip counts the refusals' delays too
            while True:
                refused = mover.refused
                assert mover.link is not None
                await mover.link.send(f'{{"type": "move", "move": "{text}", "ply": {ply}}}')
                try:
                    if not await other.wait_ply(ply + 1, until + 30, mover, refused):
                        raise TimeoutError(f"no state at ply {ply + 1} 30 s after the end")
                    break
                except Refused:
                    await asyncio.sleep(RETRY_S)
            lat.append(time.perf_counter() - sent)
            moves += 1
            # the mover's own copy of the state, before its next move
            await mover.wait_ply(ply + 1, until + 30, other)
            own.append(mover.at - sent)
        short += 1

    await asyncio.gather(
        *(
            play(texts, w, b, random.Random(plan.index))
            for (plan, texts), (w, b) in zip(games, seats, strict=True)
        )
    )
    refused = sum(p.refused for pair in seats for p in pair)
    pipe.send((lat, moves, short, own, refused))  # before closing: the CPU meter stops when all have answered
    await asyncio.gather(
        *(p.link.close() for pair in seats for p in pair if p.link is not None), return_exceptions=True
    )


def players_process(
    plans: list[Plan],
    plies: int,
    seconds: float,
    think: tuple[float, float],
    deflate: bool,
    pipe: Any,
    go: Any,
    nice: int,
) -> None:
    """A process of the load generator's players (see :func:`human_load`)."""
    os.nice(nice)
    try:
        uvloop.run(_players(plans, plies, seconds, think, deflate, pipe, go))
    except Exception as exc:
        pipe.send(f"error: {exc!r}")
        raise


async def human_load(
    site: Site, games: int, watchers: int, seconds: float, think: tuple[float, float]
) -> Load:
    """Friend games whose two players sit on different servers, plus watchers; the round trips,
    moves stored, sockets and CPU used per role.

    The players run in ``site.player_procs`` processes (a game's two seats in the same one),
    each with its games' moves prepared before the clock starts (random legal games from the
    library), so that a move costs the generator a send and, on each seat, finding the ply in
    the state's bytes: no JSON parsing, no move choice.  The round trip of a move is from its
    send on the mover's socket until the opponent's socket (on the other server) sees the
    state at the next ply."""
    urls = site.urls
    created = await create_games(urls, games)
    plans = [
        Plan(
            i,
            g["id"],
            {c: g["seats"][c]["secret"] for c in ("white", "black")},
            {
                c: f"{ws_base(urls[(i + k) % len(urls)])}/ws/games/{g['id']}"
                for k, c in enumerate(("white", "black"))
            },
        )
        for i, g in enumerate(created)
    ]
    watching = Watchers(
        [f"{ws_base(urls[j % len(urls)])}/ws/games/{created[j % games]['id']}" for j in range(watchers)],
        max(1, site.watcher_procs),
        site.deflate,
        site.loadgen_nice,
    )
    await watching.start()
    ctx = multiprocessing.get_context("spawn")
    go = ctx.Event()
    procs, pipes = [], []
    for k in range(max(1, min(site.player_procs, games))):
        mine, theirs = ctx.Pipe(duplex=False)
        proc = ctx.Process(
            target=players_process,
            daemon=True,
            args=(
                plans[k :: site.player_procs],
                site.plies,
                seconds,
                think,
                site.deflate,
                theirs,
                go,
                site.loadgen_nice,
            ),
        )
        proc.start()
        procs.append(proc)
        pipes.append(mine)

    def answer(pipe: Any) -> Any:
        if not pipe.poll(600):
            raise TimeoutError("a players' process did not answer")
        got = pipe.recv()
        if isinstance(got, str) and got.startswith("error"):
            raise RuntimeError(got)
        return got

    for pipe in pipes:
        await asyncio.to_thread(answer, pipe)
    meter = site.meter([*watching.pids, *(p.pid for p in procs if p.pid is not None)])
    histos = await scrape(urls)
    backlog = Backlog(site.services.redis.url, site.services.redis.port)
    sampling = asyncio.create_task(backlog.run())
    meter.start()
    go.set()
    results = [await asyncio.to_thread(answer, pipe) for pipe in pipes]
    cpu, per_server = meter.stop()
    backlog.stop.set()
    await sampling
    stages = stages_text(histos, await scrape(urls))
    watched = await watching.stop()
    for proc in procs:
        await asyncio.to_thread(proc.join, 60)
    lat = [x for r in results for x in r[0]]
    return Load(
        lat,
        sum(r[1] for r in results),
        2 * games + watchers,
        cpu,
        watched,
        sum(r[2] for r in results),
        [x for r in results for x in r[3]],
        per_server,
        stages,
        sum(r[4] for r in results),
        backlog.text(),
        meter.machine,
        meter.sessions,
    )


async def computer_load(urls: list[str], games: int, level: int, stop: asyncio.Event) -> int:
    """Computer games at ``level``, the human side answering at once; returns engine moves seen."""
    created = await create_games(urls, games, opponent="computer", level=level, color="black")
    socks = await open_all(
        [
            (
                lambda g=g, i=i: Sock.open(
                    f"{ws_base(urls[i % len(urls)])}/ws/games/{g['id']}", g["seats"]["black"]["secret"]
                )
            )
            for i, g in enumerate(created)
        ]
    )
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
            await sock.ws.send(
                json.dumps({"type": "move", "move": text, "ply": state["ply"], "secret": secret})
            )
            ply = state["ply"] + 2

    await asyncio.gather(
        *(
            play(s, g["seats"]["black"]["secret"], random.Random(i))
            for i, (s, g) in enumerate(zip(socks, created, strict=True))
        )
    )
    await asyncio.gather(*(s.close() for s in socks))
    return seen


def idle_workers(cluster: Cluster) -> None:
    """Put the engine workers in the idle scheduling class.

    ``exochess cluster`` nices the workers by 10 so that on a shared machine the players' moves
    go first.  Under ``nice -n 19`` (a benchmark on a machine others use) the servers are at 19
    already and the workers cannot go lower by niceness: without this, they would compete with
    the servers as equals, which is not the arrangement being measured."""
    for worker in cluster.workers:
        if worker.proc is None:
            continue
        for pid in _children(worker.proc.pid):
            for task in Path(f"/proc/{pid}/task").glob("*"):
                with contextlib.suppress(OSError):  # threads started later inherit it
                    os.sched_setscheduler(int(task.name), os.SCHED_IDLE, os.sched_param(0))
    print("   (engine workers in the idle scheduling class: this benchmark runs niced)", flush=True)


def run_site(services: Services, args: argparse.Namespace, servers: int, workers: int, fn: Any) -> Any:
    # workers niced as `exochess cluster` starts them: on one machine the players come first;
    # every client comes from 127.0.0.1, so the per-address cap on websockets is lifted
    cluster = Cluster(
        services,
        servers=servers,
        workers=workers,
        worker_nice=10,
        env={"EXOCHESS_WS_PER_ADDRESS": "100000"},
        start_timeout=300,
    ).start()
    if workers and os.nice(0) >= 10 and not args.workers_as_servers:
        idle_workers(cluster)
    try:
        return asyncio.run(fn(Site(services, cluster, args)))
    except Exception:
        for i, server in enumerate(cluster.servers):  # what the servers said, before it is deleted
            lines = [line for line in server.log_text().splitlines() if "WARNING" in line or "ERROR" in line]
            print(f"server {i}: {len(lines)} warnings and errors; the last ones:", *lines[-10:], sep="\n  ")
        raise
    finally:
        cluster.stop()


def short_text(load: Load) -> str:
    """A warning when games ran out of prepared moves (``--plies``) before the window's end,
    and the moves refused as busy (each sent again)."""
    text = f" ({load.short} games ran out of prepared moves: raise --plies)" if load.short else ""
    return text + (f"; {load.refused} moves refused as busy and sent again" if load.refused else "")


THINK = (1.0, 3.0)
"""Seconds a player of targets 1 and 3 thinks before each move."""


def target_1(services: Services, args: argparse.Namespace) -> None:
    watchers = max(0, args.clients - 2 * args.games)
    load: Load = run_site(
        services, args, 2, 1, lambda site: human_load(site, args.games, watchers, args.seconds, THINK)
    )
    print(
        f"1. {load.sockets} websockets on 2 servers, {args.games} games: {load.moves} moves, round trip "
        f"p50 {pct(load.lat, 50) * 1000:.0f} ms, p99 {pct(load.lat, 99) * 1000:.0f} ms "
        f"(target p99 < 100 ms); watchers received {load.watched} states; "
        f"{cpu_text(load.cpu, load.moves)}{short_text(load)}",
        flush=True,
    )
    print(load.detail(args.seconds), flush=True)


def target_2_once(services: Services, args: argparse.Namespace, games: int) -> tuple[float, float, str]:
    """Target 2 at one size: 1 server process then 2, the same generator of ``games`` games
    moving at once; (1 process's moves/s, 2 processes', a one-line summary with each server
    process's CPU)."""
    rates = {}
    cores_used: dict[int, str] = {}
    used: dict[int, dict[str, float]] = {}  # CPU ms per move by role
    others: dict[int, float] = {}  # cores other processes on the machine used
    for servers in (1, 2):
        load: Load = run_site(
            services, args, servers, 0, lambda site: human_load(site, games, 0, args.seconds, (0.0, 0.0))
        )
        rates[servers] = load.moves / args.seconds
        used[servers] = {role: cpu * 1000 / max(1, load.moves) for role, cpu in load.cpu.items()}
        others[servers] = max(0.0, load.machine[0] - sum(load.cpu.values())) / args.seconds
        cores_used[servers] = " + ".join(f"{cpu / args.seconds:.2f}" for cpu in load.per_server)
        print(
            f"   {games} games, {servers} process(es): {rates[servers]:.0f} moves/s, round trip p50 "
            f"{pct(load.lat, 50) * 1000:.0f} ms; {cpu_text(load.cpu, load.moves)}{short_text(load)}",
            flush=True,
        )
        print(load.detail(args.seconds), flush=True)
    ratio = rates[2] / rates[1]
    print(
        f"2. moves stored per second, {games} games moving at once: 1 process "
        f"{rates[1]:.0f}/s, 2 processes {rates[2]:.0f}/s, ratio {ratio:.2f} "
        "(target >= 1.6)",
        flush=True,
    )
    cores = os.cpu_count() or 1
    one = min(1000 / max(used[1]["servers"], 1e-6), cores * 1000 / max(sum(used[1].values()), 1e-6))
    two = min(2000 / max(used[2]["servers"], 1e-6), cores * 1000 / max(sum(used[2].values()), 1e-6))
    print(
        f"   CPU bound on {cores} cores from the CPU per move above (1 process: one core for the "
        f"server at most; every process shares the cores): 1 process {one:.0f}/s, 2 processes "
        f"{two:.0f}/s, ratio {two / one:.2f}",
        flush=True,
    )
    site = sum(used[2].values())
    ceiling = cores * 1000 / max(site, 1e-6)
    print(
        f"   room for the target on {cores} cores: with 2 processes the site used {site:.2f} ms of "
        f"CPU a move (servers {used[2]['servers']:.2f}, the rest {site - used[2]['servers']:.2f}), "
        f"so every core busy would be {ceiling:.0f}/s (with the {cores - others[2]:.2f} cores other "
        f"processes left: {ceiling * (cores - others[2]) / cores:.0f}/s); 1.6 x 1 process is "
        f"{1.6 * rates[1]:.0f}/s: " + ("room" if ceiling >= 1.6 * rates[1] else "no room, whatever the code"),
        flush=True,
    )
    summary = (
        f"{games:>5} games: 1 process {rates[1]:4.0f}/s ({cores_used[1]} cores), 2 processes "
        f"{rates[2]:4.0f}/s ({cores_used[2]} cores), ratio {ratio:.2f}; CPU bound ratio "
        f"{two / one:.2f}"
    )
    return rates[1], rates[2], summary


def target_2(services: Services, args: argparse.Namespace) -> None:
    """Target 2 at each size of ``--t2-games`` (a closed loop: each game waits for its
    opponent's answer, so with too few games the figure is the round trip's, not the
    servers' capacity; the sweep shows where the servers saturate)."""
    sizes: list[int] = args.t2_games or (
        [args.games] if args.quick else [args.games, 2 * args.games, 3 * args.games]
    )
    runs = {games: target_2_once(services, args, games) for games in sizes}
    if len(runs) > 1:
        print(f"2. sweep ({args.seconds:g} s each; server processes' CPU in cores):", flush=True)
        for _one, _two, line in runs.values():
            print(f"   {line}", flush=True)
        # capacity: each configuration's best rate over the same sizes of the same generator
        best_one = max(runs, key=lambda games: runs[games][0])
        best_two = max(runs, key=lambda games: runs[games][1])
        first = sizes[0]
        print(
            f"2. capacity (each configuration's best moves/s over the sweep): 1 process "
            f"{runs[best_one][0]:.0f}/s ({best_one} games), 2 processes {runs[best_two][1]:.0f}/s "
            f"({best_two} games), ratio {runs[best_two][1] / runs[best_one][0]:.2f}; at {first} games "
            f"ratio {runs[first][1] / runs[first][0]:.2f} (target >= 1.6)",
            flush=True,
        )


def scaling(services: Services, args: argparse.Namespace) -> None:
    """Issue 42's scaling figure: the servers' CPU per stored move with 2 processes against 1,
    the same generator of games moving as fast as they can, ``--scaling`` rounds, the order of
    1 and 2 alternated each round (so a drift of the machine's speed weighs on both).

    CPU per move is what other load on a shared machine distorts least: moves per second
    depend on the cores left, the CPU a move costs hardly does.  Target: ratio <= 1.25."""
    games = args.t2_games[0] if args.t2_games else args.games
    per: dict[int, list[float]] = {1: [], 2: []}
    for round_ in range(args.scaling):
        for servers in (1, 2) if round_ % 2 == 0 else (2, 1):
            load: Load = run_site(
                services, args, servers, 0, lambda site: human_load(site, games, 0, args.seconds, (0.0, 0.0))
            )
            ms = load.cpu["servers"] * 1000 / max(1, load.moves)
            per[servers].append(ms)
            print(
                f"   round {round_ + 1}, {servers} process(es): {load.moves / args.seconds:.0f} moves/s, "
                f"servers {ms:.3f} ms of CPU a stored move{short_text(load)}",
                flush=True,
            )
    one, two = sum(per[1]) / len(per[1]), sum(per[2]) / len(per[2])
    paired = [b / a for a, b in zip(per[1], per[2], strict=True)]
    print(
        f"2c. servers' CPU per stored move, {games} games, mean of {args.scaling} alternated runs "
        f"each: 1 process {one:.3f} ms, 2 processes {two:.3f} ms, ratio {two / one:.2f} "
        f"(target <= 1.25); ratio in each round {min(paired):.2f} .. {max(paired):.2f}",
        flush=True,
    )


def target_3(services: Services, args: argparse.Namespace) -> None:
    games = max(10, args.games // 4)

    async def with_engine(site: Site, computer: int) -> tuple[list[float], int]:
        stop = asyncio.Event()
        engine = asyncio.create_task(computer_load(site.urls, computer, 8, stop)) if computer else None
        if engine is not None:
            await asyncio.sleep(2.0)  # the workers are busy before the humans start
        load = await human_load(site, games, 0, args.seconds, THINK)
        stop.set()
        seen = await engine if engine is not None else 0
        return load.lat, seen

    base, _ = run_site(services, args, 2, 2, lambda site: with_engine(site, 0))
    loaded, engine_moves = run_site(services, args, 2, 2, lambda site: with_engine(site, 20))
    print(
        f"3. human round trip p99 ({games} games): {pct(base, 99) * 1000:.0f} ms alone, "
        f"{pct(loaded, 99) * 1000:.0f} ms beside 20 level-8 computer games ({engine_moves} engine "
        f"moves), +{(pct(loaded, 99) - pct(base, 99)) * 1000:.0f} ms (target <= +20 ms)",
        flush=True,
    )


def envelope_bench() -> None:
    """The wire form of :mod:`exochess.web.live.pubsub` against the earlier one (the state escaped
    inside a JSON envelope): CPU per envelope, encoded by the server that stored the move and
    decoded by another, for real states after 40 and 120 plies (no cluster needed)."""
    from exochess.web.game.service import GameService
    from exochess.web.live.hub import Hub
    from exochess.web.live.pubsub import decode, encode
    from exochess.web.storage.store import Storage

    async def states() -> dict[int, str]:
        service = GameService(Storage(f"sqlite:///{tempfile.mkdtemp()}/site.sqlite"), None, Hub())
        live, seats, _ = await service.create("fugue", "friend", None, "white", None)
        out = {}
        for ply, text in enumerate(random_game(1, 120)):
            game = await service.play(live.row.id, seats[live.to_move()], text, ply)
            if ply + 1 in (40, 120):
                out[ply + 1] = service.reader.state_text(game)
        service.close()
        return out

    for plies, state in asyncio.run(states()).items():
        envelope = {
            "k": "g" * 12,
            "m": state,
            "c": True,
            "ch": True,
            "o": "abcdef",
            "a": {"p": plies, "mv": "e2-e4", "f": "x" * 60, "t": [1, 2, "2026-11-26T01:00:00"]},
        }

        def whole(envelope: dict[str, Any] = envelope) -> None:
            json.loads(json.dumps(envelope, separators=(",", ":")))

        def framed(envelope: dict[str, Any] = envelope) -> None:
            decode(encode(envelope))

        best: dict[str, float] = {}
        for name, fn in (("whole", whole), ("framed", framed)) * 3:  # interleaved, best of 3
            started = time.process_time()
            for _ in range(2000):
                fn()
            best[name] = min(best.get(name, math.inf), (time.process_time() - started) / 2000 * 1e6)
        print(
            f"envelope with a state of {len(state)} bytes ({plies} plies), encode + decode: "
            f"state escaped inside the JSON {best['whole']:.0f} us, state after a header line "
            f"{best['framed']:.0f} us",
            flush=True,
        )


def subscription_bench(redis_url: str, size: int = 35_000, busy_ms: float = 20.0) -> None:
    """How many envelopes of ``size`` bytes (a whole state in mid-game) a server's subscription
    takes per pass of a busy event loop (each pass also runs ``busy_ms`` of other work, as a
    server's loop with its players' moves does), with the site's subscription buffer and with
    asyncio's default, on uvloop (as ``exochess serve`` runs) and on asyncio's own loop.  Every
    server reads every envelope, so two servers storing N moves a second each need 2N a
    second from it."""

    from exochess.web.live import pubsub

    async def once(buffer: int) -> tuple[float, float]:
        saved = pubsub.SUBSCRIPTION_BUFFER
        pubsub.SUBSCRIPTION_BUFFER = buffer
        receiver, sender = pubsub.RedisBus(redis_url), pubsub.RedisBus(redis_url)
        got = 0
        done = asyncio.Event()

        async def keep(_envelope: dict[str, Any]) -> None:
            nonlocal got
            got += 1
            if got == 1000:
                done.set()

        receiver.on_message = keep
        receiver.start()
        await receiver.subscribed.wait()
        loop = asyncio.get_running_loop()
        passes = 0

        def busy() -> None:
            nonlocal passes
            passes += 1
            time.sleep(busy_ms / 1000)  # the loop's other work in this pass
            if not done.is_set():
                loop.call_soon(busy)

        started = time.perf_counter()
        loop.call_soon(busy)
        body = "x" * size
        for _ in range(1000):
            sender.post({"k": "g", "m": body})
        await asyncio.wait_for(done.wait(), 120)
        took = time.perf_counter() - started
        await sender.close()
        await receiver.close()
        pubsub.SUBSCRIPTION_BUFFER = saved
        return got / max(1, passes), got / took

    for name, runner in (("uvloop", uvloop.run), ("asyncio", asyncio.run)):
        for label, buffer in (("site's", pubsub.SUBSCRIPTION_BUFFER), ("asyncio's default", 1 << 16)):
            per_pass, rate = runner(once(buffer))
            print(
                f"subscription, {name} loop, {label} buffer ({buffer // 1024} KiB), {size} B envelopes, "
                f"{busy_ms:g} ms of other work per pass: {per_pass:.1f} envelopes per pass, {rate:.0f}/s",
                flush=True,
            )


def pre_ping_bench(services: Services) -> None:
    """What the storage's ``pool_pre_ping`` (a ``SELECT 1`` on each checkout, so that a
    connection PostgreSQL dropped is replaced before use) costs the server per transaction:
    client CPU of a one-row insert transaction with and without it, interleaved."""
    from sqlalchemy import create_engine, text

    engines = {ping: create_engine(services.postgres.url, pool_pre_ping=ping) for ping in (True, False)}
    with engines[True].begin() as conn:
        conn.execute(text("CREATE TABLE IF NOT EXISTS bench_ping (a integer)"))
    runs: dict[bool, list[float]] = {True: [], False: []}
    for _round in range(5):
        for ping, engine in engines.items():
            started = time.process_time()
            for _ in range(2000):
                with engine.begin() as conn:
                    conn.execute(text("INSERT INTO bench_ping VALUES (1)"))
            runs[ping].append((time.process_time() - started) / 2000 * 1e6)
    for engine in engines.values():
        engine.dispose()
    print(
        "server CPU per transaction (median of 5 x 2,000): with pool_pre_ping "
        f"{sorted(runs[True])[2]:.0f} us, without {sorted(runs[False])[2]:.0f} us",
        flush=True,
    )


def statements_bench(services: Services, moves: int = 4000) -> None:
    """What a stored move costs PostgreSQL and the server by the size of the statement that
    stores it (web/storage/groupcommit.py): one move a statement (the storage's single-move statement),
    and 2, 8 and 32 moves of different games a statement, interleaved over three rounds; CPU
    of PostgreSQL's processes and of this process a move."""
    from exochess.web.domain import PlayerKind
    from exochess.web.storage.store import MoveRow, Storage

    storage = Storage(services.postgres.url)
    postmaster = int((services.postgres.data / "postmaster.pid").read_text().split()[0])
    games = [f"statements{i:04d}" for i in range(64)]
    for gid in games:
        storage.create_game(
            id=gid,
            variant="fugue",
            start_fen="start",
            white=PlayerKind.HUMAN,
            black=PlayerKind.HUMAN,
            level=None,
            white_secret="w" * 20,
            black_secret="b" * 20,
        )
    ply = dict.fromkeys(games, 0)
    stamp = dt.datetime(2026, 11, 27, 12, 0, 0)

    def row(gid: str) -> MoveRow:
        return {
            "game_id": gid,
            "ply": ply[gid],
            "text": "d2-d3",
            "created": stamp,
            "white_ms": 60_000,
            "black_ms": 60_000,
            "at": stamp,
        }

    def store(size: int) -> None:
        for start in range(0, moves, size):
            rows = [row(games[(start + k) % len(games)]) for k in range(size)]
            stored = [storage._store_move(rows[0])] if size == 1 else storage._store_moves(rows)
            assert all(stored), "a move of the benchmark was refused"
            for r in rows:
                ply[r["game_id"]] += 1

    def pg_cpu() -> float:
        return sum(_cpu_of(pid) for pid in _children(postmaster))

    runs: dict[int, list[tuple[float, float]]] = {size: [] for size in (1, 2, 8, 32)}
    try:
        for _round in range(3):
            for size, got in runs.items():
                pg, own = pg_cpu(), time.process_time()
                store(size)
                got.append(((pg_cpu() - pg) / moves * 1e6, (time.process_time() - own) / moves * 1e6))
    finally:
        storage.close()
    for size, got in runs.items():
        print(
            f"{size:>2} moves a statement: PostgreSQL "
            + ", ".join(f"{pg:.0f}" for pg, _ in got)
            + " µs a move; server "
            + ", ".join(f"{own:.0f}" for _, own in got)
            + f" µs a move ({moves:,} moves a round, 3 rounds)",
            flush=True,
        )


def game_counts(text: str) -> list[int]:
    """``--t2-games``: one count of games or a comma-separated list, each at least 1."""
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of whole numbers: {text!r}") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("each count of games must be at least 1")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="smaller loads (about a minute)")
    parser.add_argument("--clients", type=int, default=2000, help="websocket clients of target 1")
    parser.add_argument("--games", type=int, default=200, help="live games of target 1")
    parser.add_argument(
        "--t2-games",
        type=game_counts,
        default=None,
        metavar="N[,N...]",
        help="games moving at once in target 2, or a comma-separated list to "
        "sweep (default: --games, twice and three times as many; with "
        "--quick, --games only)",
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each measurement")
    parser.add_argument("--targets", default="123", help="which targets to measure (default 123)")
    parser.add_argument(
        "--scaling",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="only measure the servers' CPU per stored move with 2 processes "
        "against 1, ROUNDS alternated runs of each (issue 42: at least 5; "
        "--t2-games sets the games, --seconds each run)",
    )
    parser.add_argument(
        "--watcher-procs",
        type=int,
        default=2,
        help="processes the watching websockets of target 1 are spread over",
    )
    parser.add_argument(
        "--player-procs", type=int, default=2, help="processes the players' websockets are spread over"
    )
    parser.add_argument(
        "--plies",
        type=int,
        default=200,
        help="moves prepared for each game (a game short of them stops early)",
    )
    parser.add_argument(
        "--loadgen-nice", type=int, default=0, help="niceness of the load generator's processes (default 0)"
    )
    (
        parser.add_argument(
            "--deflate",
            action="store_true",
            help="clients offer per-message compression, as browsers do (default: "
            "they do not, so that the servers' sends are measured without it)",
        ),
    )
    parser.add_argument(
        "--envelope", action="store_true", help="only time the pub/sub envelope's wire form (no cluster)"
    )
    parser.add_argument(
        "--workers-as-servers",
        action="store_true",
        help="under nice, leave the engine workers at the servers' priority (by "
        "default they go to the idle class, below everything else)",
    )
    parser.add_argument(
        "--subscription",
        action="store_true",
        help="only measure how many envelopes a subscription takes per pass of a "
        "busy event loop (Redis only)",
    )
    parser.add_argument(
        "--pre-ping", action="store_true", help="only time the database pool's ping before each transaction"
    )
    parser.add_argument(
        "--statements",
        action="store_true",
        help="only time a stored move by the size of the statement storing it",
    )
    args = parser.parse_args(argv)
    if args.envelope:
        envelope_bench()
        return 0
    if args.quick:
        args.clients, args.games, args.seconds = 400, 40, 10.0
    if args.subscription:
        services = Services()
        services.redis.start()
        try:
            subscription_bench(services.redis.url)
        finally:
            services.redis.stop()
            shutil.rmtree(services.root, ignore_errors=True)
        return 0
    services = Services().start()
    try:
        if args.pre_ping:
            pre_ping_bench(services)
            return 0
        if args.statements:
            statements_bench(services)
            return 0
        if args.scaling:
            scaling(services, args)
            return 0
        for name, fn in (("1", target_1), ("2", target_2), ("3", target_3)):
            if name in args.targets:
                fn(services, args)
    finally:
        services.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
