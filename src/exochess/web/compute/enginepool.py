"""Engine moves and analyses in worker processes: a bounded, prioritised, cancellable resource.

Workers receive plain data (variant name, starting FEN, move texts) and return plain data,
so nothing but strings crosses the process boundary.

Why not a ``ProcessPoolExecutor``: it runs jobs first come first served, cannot bound its
queue, and cannot stop a job once a worker has taken it.  Here each job slot is one spawned
process fed through a pipe by an asyncio task of the server, which lets the pool:

- charge every job to its owner (account, else address) and serve the owners fairly
  (:mod:`~exochess.web.compute.fairshare`): the computer's moves of live games before
  analyses (a move never waits for an analysis queued before it), each kind in start-time fair
  order across owners (one owner's ten queued moves get one turn a round, a short move goes
  before a long one asked at the same time); keep one worker for moves when there are two or
  more; and run one more, *express*, worker that only takes quick moves (levels 0-3), so a
  beginner's reply never waits for level-8 searches or analyses;
- bound the work waiting: each owner may have :data:`MOVES_PER_OWNER` moves and
  ``per_client`` analyses queued or running; the long moves (levels 4-8) share a budget of
  places (:class:`~exochess.web.compute.fairshare.MoveBudget`), so a game that holds one
  waits behind a bounded amount of work however many others ask; analyses beyond a bounded
  queue are refused (:class:`EngineBusy`, 503), an owner's jobs beyond their bound too
  (:class:`TooManyEngineJobs`, 429), all with the seconds to wait before trying again;
- cap an analysis's thinking time, and stop any job that runs past its time by far;
- stop a job whose caller stopped waiting (the HTTP client went away, the game ended): the
  awaiting task is cancelled, a queued job is dropped, a running one is asked to stop.  The
  stop is cooperative (a thread of the worker calls :meth:`Searcher.stop`, which the search
  reads at its budget checks), and a worker that does not answer within
  :data:`STOP_GRACE_S` of the request (the stop cannot reach a job that is not searching yet,
  for instance one generating a huge move list) is killed and replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import logging
import math
import multiprocessing
import pickle
import random
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Protocol

from exochess.board import Board
from exochess.engine import MAX_MULTIPV, Analysis, Limits, Searcher, analyse, best_move
from exochess.engine.levels import DEFAULT_MOVETIME_MS
from exochess.engine.levels import level as engine_level
from exochess.engine.protocol import SWITCH_INTERVAL_S
from exochess.engine.tt import DEFAULT_HASH_MB, MAX_HASH_MB, MIN_HASH_MB
from exochess.variants import all_variants
from exochess.web.compute.cpuwork import lower_priority
from exochess.web.compute.fairshare import ANALYSIS as ANALYSIS
from exochess.web.compute.fairshare import (
    GAMES_PER_OWNER,
    HOLD_S,
    MOVES_PER_OWNER,
    PLACES_PER_SLOT,
    FairQueue,
    MoveBudget,
    Ticket,
    owner_of,
)
from exochess.web.compute.fairshare import MOVE as MOVE
from exochess.web.compute.fairshare import REPORT as REPORT
from exochess.web.domain import N_, Color, EngineBusy, EngineFailed, TooManyEngineJobs

log = logging.getLogger("exochess.web")

RANDOM_LEVEL = 0
"""Level 0 plays a uniformly random legal move (works without the engine)."""
ANALYSIS_CAP_MS = 5000
"""Longest thinking time of one analysis (longer requests are searched this long)."""
LIVE_ANALYSIS_CAP_MS = 30_000
"""Longest thinking time of a live analysis (it is stopped sooner when its viewer stops it,
leaves, or asks for another position); the viewer may start it again."""
QUEUE_LIMIT = 8
"""Analyses that may wait for a worker; more are refused with :class:`EngineBusy`."""
PER_CLIENT_LIMIT = 2
"""Analyses one client address may have queued or running at once."""
STOP_GRACE_S = 2.0
"""A worker asked to stop that has not answered after this long is killed and replaced."""
OVERTIME_S = 5.0
"""An analysis still running this long after its thinking time is stopped (board replays and
move generation come before the search's own clock starts)."""
MOVE_OVERTIME_S = 30.0
"""The same for a computer move, more lenient: a game waits for that move, and a stopped
search still answers with its best move so far."""
READY_TIMEOUT_S = 120.0
"""A new worker that has not imported the engine after this long is replaced."""
GAME_OWNERS_KEPT = 100_000
"""Games whose owner the pool remembers (the oldest are forgotten: charged to the game then)."""
QUICK_MOVE_S = 0.5
"""Moves that think at most this long (levels 0-3) may also use the express worker; longer ones
need a place in the long moves' budget."""
_POLL_S = 0.2


_hash_mb = DEFAULT_HASH_MB


def set_engine_hash_mb(mb: int) -> None:
    """Size the tables of this process's searches (UCI's ``Hash``, in MiB; the setting
    ``EXOCHESS_ENGINE_HASH_MB``), clamped to what the engine accepts.  A worker process gets it
    from its pool, a Redis-mode worker from its settings."""
    global _hash_mb
    _hash_mb = min(MAX_HASH_MB, max(MIN_HASH_MB, mb))


def engine_hash_mb() -> int:
    """MiB of tables a search may hold (UCI's ``Hash``), default 64.

    Each job of a worker searches with a fresh :class:`Searcher` of this size, so a worker's
    memory stays within about this plus the interpreter's (``docs/engine.md``, "Memory").
    """
    return _hash_mb


def move_cost(level: int) -> float:
    """Seconds a computer move at ``level`` thinks for (what it is charged in the fair share)."""
    return 0.0 if level <= RANDOM_LEVEL else DEFAULT_MOVETIME_MS.get(level, 3000) / 1000


def _board(variant: str, start_fen: str, texts: list[str]) -> Board:
    board = Board(variant, fen=start_fen)
    for text in texts:
        board.push_text(text)
    return board


@dataclass(frozen=True)
class EngineClock:
    """The clocks a computer move is searched on (milliseconds), as in UCI's ``go wtime``."""

    wtime_ms: int
    btime_ms: int
    winc_ms: int
    binc_ms: int


def compute_move(
    variant: str,
    start_fen: str,
    texts: list[str],
    level: int,
    seed: int,
    clock: EngineClock | None = None,
    searcher: Searcher | None = None,
) -> str:
    """The computer's move (canonical text) in the position after ``texts``.

    With a ``clock`` the search spends what :meth:`Limits.time_budget` allocates from it, and
    never more than the level's own move time.  Without a ``searcher`` one of
    :func:`engine_hash_mb` is made, and its tables are freed in the background afterwards.
    """
    board = _board(variant, start_fen, texts)
    if level <= RANDOM_LEVEL:
        choices = sorted(str(m) for m in board.legal_moves)
        return random.Random(seed).choice(choices)
    with _searcher(searcher) as s:
        if clock is None:
            return str(best_move(board, level, seed=seed, searcher=s))
        lv = engine_level(level, board.variant.name)
        limits = Limits(
            movetime_ms=lv.movetime_ms(None),
            wtime_ms=clock.wtime_ms,
            btime_ms=clock.btime_ms,
            winc_ms=clock.winc_ms,
            binc_ms=clock.binc_ms,
        )
        return str(s.search(board, limits, options=lv.options(), seed=seed).best)


@contextlib.contextmanager
def _searcher(given: Searcher | None) -> Iterator[Searcher]:
    """``given``, or a new searcher of :func:`engine_hash_mb` whose tables are handed to the
    background reclaimer when done (freed inline, a big table holds the GIL for 100 ms or more,
    which in Redis mode stalls the worker's event loop)."""
    if given is not None:
        yield given
        return
    s = Searcher(hash_mb=engine_hash_mb())
    try:
        yield s
    finally:
        s.new_game()


def think_budget_ms(variant: str, level: int, clock: EngineClock, white_to_move: bool) -> int:
    """The longest :func:`compute_move` lets the computer search a move on ``clock``: its level's
    move time, within the hard bound the engine's time management allots from the clock (0 for
    the random level, which does not search).  A computer move is charged at most this."""
    if level <= RANDOM_LEVEL:
        return 0
    lv = engine_level(level, variant)
    limits = Limits(
        movetime_ms=lv.movetime_ms(None),
        wtime_ms=clock.wtime_ms,
        btime_ms=clock.btime_ms,
        winc_ms=clock.winc_ms,
        binc_ms=clock.binc_ms,
    )
    _soft, hard = limits.time_budget(white_to_move)
    return lv.movetime_ms(None) if hard is None else math.ceil(hard * 1000)


def compute_analysis(
    variant: str, start_fen: str, texts: list[str], movetime_ms: int, searcher: Searcher | None = None
) -> dict[str, Any]:
    """Engine evaluation of a position: score, mate, depth and principal variation (texts)."""
    board = _board(variant, start_fen, texts)
    with _searcher(searcher) as s:
        analysis = analyse(board, movetime_ms=movetime_ms, searcher=s)
    return _analysis_json(analysis, board) | {"movetime_ms": movetime_ms}


def _analysis_json(analysis: Analysis, board: Board) -> dict[str, Any]:
    """A finished search as the site sends it (the score from the side to move's view)."""
    return {
        "depth": analysis.depth,
        "score_cp": analysis.score_cp,
        "mate": analysis.mate,
        "nodes": analysis.nodes,
        "pv": [str(m) for m in analysis.pv],
        "best": str(analysis.best) if analysis.best is not None else None,
        "side_to_move": Color.of(board.turn).value,
    }


REPORT_NODES_PER_S = 1000
"""Nodes a second a report's position is assumed to search at the least (the interpreted
engine on a busy core): its overtime and its cost in the fair share are counted from it."""


def compute_report_position(
    variant: str, start_fen: str, texts: list[str], nodes: int, searcher: Searcher | None = None
) -> dict[str, Any]:
    """One position of a game report: the engine's full-strength search to ``nodes`` nodes
    (score from the side to move's view, as :func:`compute_analysis`)."""
    board = _board(variant, start_fen, texts)
    with _searcher(searcher) as s:
        analysis = analyse(board, nodes=max(1, nodes), searcher=s)
    return _analysis_json(analysis, board)


LIVE_LINES = 3
"""Lines a live analysis shows (the protocol's ``MultiPV``)."""


def _line_json(line: Analysis) -> dict[str, Any]:
    return {
        "multipv": line.multipv,
        "depth": line.depth,
        "score_cp": line.score_cp,
        "mate": line.mate,
        "pv": [str(m) for m in line.pv],
    }


def _live_json(analysis: Analysis, side: str) -> dict[str, Any]:
    """One update of a live analysis: the iteration's figures and its lines, best first."""
    return {
        "depth": analysis.depth,
        "seldepth": analysis.seldepth,
        "score_cp": analysis.score_cp,
        "mate": analysis.mate,
        "nodes": analysis.nodes,
        "nps": analysis.nps,
        "time_ms": analysis.time_ms,
        "side_to_move": side,
        "lines": [_line_json(line) for line in analysis.all_lines()],
    }


def compute_live_analysis(
    variant: str,
    start_fen: str,
    texts: list[str],
    movetime_ms: int,
    multipv: int,
    searcher: Searcher | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """A multi-line analysis that reports every completed iteration to ``progress`` (depth,
    score, nodes per second and the ``multipv`` best lines, see :func:`_live_json`); returns the
    last one.  A stopped search returns what it had, as a finished one does."""
    board = _board(variant, start_fen, texts)
    side = Color.of(board.turn).value

    def report(analysis: Analysis) -> None:
        if progress is not None:
            progress(_live_json(analysis, side))

    with _searcher(searcher) as s:
        analysis = analyse(board, movetime_ms=movetime_ms, searcher=s, multipv=multipv, on_iteration=report)
    return _live_json(analysis, side)


# --- the worker process ------------------------------------------------------------------------

_READY = "ready"


class _Current:
    """The job a worker is running, shared between its main thread and its stop thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seq: int | None = None
        self.searcher: Searcher | None = None
        self.stops: set[int] = set()
        """Jobs asked to stop before they began (the two pipes are read independently)."""


def _stop_watch(current: _Current, stops: Connection) -> None:
    """Stop thread of a worker: stop the job named by each request read from ``stops``.

    A request names its job, so a late one for a finished job cannot stop the next.
    ``Searcher.search`` clears the stop flag when it starts, so the request is repeated until
    the job is over (it may still be replaying its moves).  A pipe, not a shared lock or event:
    the server kills workers, and a lock held by a killed process is never released.
    """
    while True:
        try:
            seq = stops.recv()
        except (EOFError, OSError):
            return
        with current.lock:
            current.stops.add(seq)
        while True:
            with current.lock:
                if current.seq != seq:
                    break
                if current.searcher is not None:
                    current.searcher.stop()
            time.sleep(0.01)


def _prepare() -> None:
    """Load every game's rules and evaluation with a tiny search, before the worker says it is
    ready: the first real job of a fresh worker then costs what later ones do (about 1 s less)."""
    for variant in all_variants():
        try:
            Searcher().search(Board(variant), Limits(depth=1))
        except Exception:  # a game the engine cannot search from its start: nothing to warm
            log.debug("cannot warm the engine for %s", variant.name, exc_info=True)


def _worker_main(conn: Connection, stops: Connection, hash_mb: int = DEFAULT_HASH_MB) -> None:
    """A worker process: run the jobs received on ``conn`` one at a time until told to quit,
    each search with tables of ``hash_mb`` MiB."""
    # Ctrl-C in a terminal reaches the whole process group: the server stops its workers itself
    # (and a worker whose server is gone reads EOF and ends), so a search is not cut by a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # a search takes a whole core for seconds: below the server's priority, so that on a busy
    # machine the live games' moves (the event loop) are served first (issue 17's attack)
    lower_priority()
    # the stop thread gets the GIL within about this long of a stop request (the search pauses
    # for other threads every few dozen nodes: exochess.engine.search.CHECK_EVERY)
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    set_engine_hash_mb(hash_mb)
    hash_mb = engine_hash_mb()
    current = _Current()
    threading.Thread(target=_stop_watch, args=(current, stops), daemon=True).start()
    _prepare()
    conn.send((_READY, None, None))
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        try:
            message = pickle.loads(data)
        except Exception as exc:  # a job this worker cannot even read: say so, and go on
            conn.send((None, "error", f"unreadable job: {type(exc).__name__}: {exc}"))
            continue
        if message is None:
            return
        seq, fn, args, streams = message
        searcher = Searcher(hash_mb=hash_mb)
        # a streaming job reports its progress on the same pipe, before its reply (this thread
        # is the only one that writes to it)
        extra: dict[str, Any] = {"progress": _progress(conn, seq)} if streams else {}
        # The cyclic collector stays off until the reply is out, as in the engine protocol:
        # its first pass after a search walks everything the search allocated (30-100 ms),
        # which delayed the answer of a stopped job.
        gc.disable()
        with current.lock:
            stopped = seq in current.stops
            current.stops.clear()  # the others name jobs already over
            current.seq, current.searcher = seq, searcher
        try:
            if stopped:
                reply: tuple[int, str, Any] = (seq, "stopped", None)
            else:
                reply = (seq, "ok", fn(*args, searcher=searcher, **extra))
        except Exception as exc:  # sent back and logged by the server
            reply = (seq, "error", f"{type(exc).__name__}: {exc}")
        with current.lock:
            current.seq, current.searcher = None, None
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return
        # the job's tables are freed in the background, a slice at a time: dropped at once
        # (up to a million entries) they held the next job back by a few hundred ms; what is
        # left is moved out of the collector's sight before it runs again
        searcher.new_game()
        del searcher
        gc.freeze()
        gc.enable()


def _progress(conn: Connection, seq: int) -> Callable[[Any], None]:
    """What a streaming job of the worker calls with each update: sent as an ``info`` message."""

    def send(data: Any) -> None:
        conn.send((seq, _INFO, data))

    return send


_INFO = "info"
"""Status of a worker's message that is an update of a streaming job, not its reply."""


# --- the server side ---------------------------------------------------------------------------


@dataclass
class _Job:
    kind: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    budget_s: float
    owner: str
    future: asyncio.Future[Any]
    seq: int
    game: str | None = None
    """The game of a long computer move (it holds a place in the :class:`MoveBudget`)."""
    attempts: int = 0
    stop_asked: float | None = None
    preempted: bool = False
    """A report's position stopped to make room for a move or an analysis: queued again."""
    worker: _Worker | None = None
    on_info: Callable[[Any], None] | None = None
    """A streaming job's updates go here (in the event loop), until its future is settled."""
    over: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the job has left the pool (done, dropped from the queue, or its worker stopped)."""
    ticket: Ticket = field(init=False)

    @property
    def state(self) -> str:
        """queued -> running -> done (the ticket's state in the fair queue)."""
        return self.ticket.state


class _Worker:
    """One worker process, its pipe and its stop channel."""

    def __init__(self, hash_mb: int = DEFAULT_HASH_MB) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe(duplex=True)
        child_stops, self.stops = ctx.Pipe(duplex=False)
        self.process: BaseProcess = ctx.Process(
            target=_worker_main, args=(child, child_stops, hash_mb), daemon=True, name="exochess-engine"
        )
        self.process.start()
        self.job: int | None = None
        """The job it is running (its ``seq``), if any."""
        # the parent keeps its own ends only, so a dead worker reads as EOF
        child.close()
        child_stops.close()

    def ask_stop(self, seq: int) -> None:
        with contextlib.suppress(OSError, ValueError):  # a dead worker has nothing to stop
            self.stops.send(seq)

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()
        self.stops.close()


@dataclass(frozen=True)
class PoolStats:
    """What the pool is doing, and what it has done since it started."""

    workers: int
    ready: int
    """Workers started and able to take a job now (a new or replaced one first loads the engine)."""
    running: int
    queued_moves: int
    queued_analyses: int
    completed: int
    cancelled: int
    refused: int
    killed: int
    long_games: int = 0
    """Games holding a place in the budget of long computer moves."""
    queued_reports: int = 0
    """Positions of game reports waiting (they run after every move and analysis)."""


class EngineBackend(Protocol):
    """What the game service asks of the engine: this module's :class:`EnginePool` (one
    process, the default) or :class:`exochess.web.game.jobs.JobQueue` (Redis mode)."""

    async def warm(self) -> None: ...

    async def admit(self, owner: str | None = None, level: int | None = None) -> None:
        """Raise :class:`EngineBusy` if no new computer game (at ``level``, for ``owner``)
        should start now."""

    async def move(
        self,
        variant: str,
        start_fen: str,
        texts: list[str],
        level: int,
        seed: int,
        clock: EngineClock | None = None,
        *,
        game_id: str = "",
        owner: str | None = None,
    ) -> str | None:
        """The computer's move (searched on ``clock`` in a game with one) for the caller to
        store, or None when the backend stores it; charged to ``owner`` (see
        :func:`~exochess.web.compute.fairshare.owner_of`)."""

    async def check_move(self, level: int, *, game_id: str, owner: str | None = None) -> None:
        """Raise the refusal (:class:`TooManyEngineJobs`, :class:`EngineBusy`, with the seconds
        to wait) that the computer's next move in ``game_id`` would meet now, queueing nothing:
        a player's move is refused before it is stored rather than left without a reply."""

    async def analyse(
        self,
        variant: str,
        start_fen: str,
        texts: list[str],
        movetime_ms: int,
        client: str | None = None,
        *,
        owner: str | None = None,
    ) -> dict[str, Any]: ...

    async def report_position(
        self, variant: str, start_fen: str, texts: list[str], nodes: int, *, owner: str
    ) -> dict[str, Any]:
        """One position of a game report searched to ``nodes`` nodes (see
        :func:`compute_report_position`), at the lowest priority: after every move and analysis."""

    async def idle(self) -> bool:
        """Whether no computer move and no analysis waits or runs now (automatic reports run then)."""

    async def analyse_live(
        self,
        variant: str,
        start_fen: str,
        texts: list[str],
        on_info: Callable[[dict[str, Any]], None],
        *,
        owner: str,
        multipv: int = LIVE_LINES,
        movetime_ms: int | None = None,
    ) -> Any:
        """A live analysis of ``multipv`` lines: each completed iteration sent to ``on_info``
        (:func:`_live_json`'s figures) as it comes, for at most the backend's live cap; charged
        to ``owner``.  Cancelling the awaiting task stops the search and frees its worker."""

    async def check_analysis(self, owner: str) -> None:
        """Raise the refusal (:class:`TooManyEngineJobs`, :class:`EngineBusy`) that an analysis
        for ``owner`` would meet now, queueing nothing."""

    async def reserve(self, owner: str, level: int) -> str | None:
        """Before a computer game at ``level`` is created for ``owner``: a place among the long
        moves held for it (its key, None for a quick level), or :class:`EngineBusy` with the
        seconds to wait."""

    async def claim(self, key: str | None, game_id: str, owner: str) -> None:
        """The game ``game_id`` was created for ``owner``: its moves are charged to the owner,
        and the reservation ``key`` (if any) is its place (or, None after a failed creation
        ``game_id`` empty, the reservation is freed)."""

    async def drop_game(self, game_id: str) -> None:
        """``game_id`` is over or abandoned: its place among the long moves is free."""

    def stats(self) -> PoolStats: ...

    def shutdown(self) -> None: ...


class EnginePool:
    """Worker processes for the computer's moves and for analyses (see the module docstring).

    Build it inside the running event loop; :meth:`shutdown` stops the workers.
    """

    def __init__(
        self,
        workers: int = 2,
        *,
        queue_limit: int = QUEUE_LIMIT,
        per_client: int = PER_CLIENT_LIMIT,
        analysis_cap_ms: int = ANALYSIS_CAP_MS,
        live_cap_ms: int = LIVE_ANALYSIS_CAP_MS,
        express: bool = True,
        hash_mb: int = DEFAULT_HASH_MB,
        moves_per_owner: int = MOVES_PER_OWNER,
        long_budget_s: float | None = None,
        long_games_per_owner: int = GAMES_PER_OWNER,
        hold_s: float = HOLD_S,
    ) -> None:
        general = max(1, workers)
        self._general = general
        self.hash_mb = hash_mb
        """MiB of tables each worker's search may hold (the setting ``EXOCHESS_ENGINE_HASH_MB``)."""
        self._workers = general + (1 if express else 0)
        # with two workers or more, one is kept for the computer's moves
        self._analysis_slots = max(1, general - 1)
        self.queue_limit = queue_limit
        self.per_client = per_client
        self.moves_per_owner = moves_per_owner
        self.analysis_cap_ms = analysis_cap_ms
        self.live_cap_ms = live_cap_ms
        """Longest thinking time of a live analysis (:meth:`analyse_live`)."""
        self._queue = FairQueue()
        self._queued = self._queue.queued
        self._running = self._queue.running
        level8_s = DEFAULT_MOVETIME_MS[max(DEFAULT_MOVETIME_MS)] / 1000
        self._budget = MoveBudget(
            long_budget_s if long_budget_s is not None else PLACES_PER_SLOT * general * level8_s,
            per_owner=long_games_per_owner,
            hold_s=hold_s,
        )
        self._seq = itertools.count(1)
        self._game_owners: dict[str, str] = {}
        """The owner of each game created here (:meth:`claim`), which its moves are charged to."""
        self._cond = asyncio.Condition()
        self._closed = False
        self._ready = 0
        self._ready_now = 0
        self._ready_event = asyncio.Event()
        self._counts = Counter[str]()
        # blocking pipe reads, one per worker, plus room for those of killed workers
        self._readers = ThreadPoolExecutor(2 * self._workers + 2, thread_name_prefix="engine-pipe")
        self._live: set[_Worker] = set()
        self._running_reports: dict[int, _Job] = {}
        """Reports' positions running now, by job number (preempted for moves and analyses)."""
        self._tasks = [asyncio.create_task(self._slot(express=False)) for _ in range(general)]
        if express:
            self._tasks.append(asyncio.create_task(self._slot(express=True)))

    # --- public ------------------------------------------------------------------------

    async def warm(self) -> None:
        """Wait until every worker has started and imported the engine."""
        await self._ready_event.wait()

    async def admit(self, owner: str | None = None, level: int | None = None) -> None:
        """Raise :class:`EngineBusy` (with the seconds to wait) when a computer game at
        ``level`` for ``owner`` would find no place among the long moves; quick levels always
        start (their moves are short, the express worker serves them)."""
        cost = move_cost(level or 0)
        if owner is None or cost <= QUICK_MOVE_S:
            return
        retry = self._budget.refusal(None, owner, cost, time.monotonic())
        if retry is not None:
            self._counts["refused"] += 1
            raise EngineBusy(
                N_(
                    "the computer is busy with long searches: try again in {seconds} s, "
                    "choose a lower level, or play a friend"
                ),
                retry_after=retry,
                seconds=retry,
            )

    async def reserve(self, owner: str, level: int) -> str | None:
        """See :meth:`EngineBackend.reserve`."""
        cost = move_cost(level)
        if cost <= QUICK_MOVE_S:
            return None
        await self.admit(owner, level)
        key = f"reserved:{next(self._seq)}"
        self._budget.reserve(key, owner, cost, time.monotonic())
        return key

    async def claim(self, key: str | None, game_id: str, owner: str) -> None:
        """See :meth:`EngineBackend.claim`."""
        if not game_id:
            if key is not None:
                self._budget.release(key)
            return
        if key is not None:
            self._budget.rename(key, game_id)
        self._game_owners[game_id] = owner
        while len(self._game_owners) > GAME_OWNERS_KEPT:
            del self._game_owners[next(iter(self._game_owners))]  # the oldest games

    async def move(
        self,
        variant: str,
        start_fen: str,
        texts: list[str],
        level: int,
        seed: int,
        clock: EngineClock | None = None,
        *,
        game_id: str = "",
        owner: str | None = None,
    ) -> str:
        """The computer's move at ``level`` (on ``clock``, if the game has one), charged to
        ``owner`` (else to the game); cancelling the awaiting task stops the search.

        Raises :class:`TooManyEngineJobs` when the owner already waits for
        :attr:`moves_per_owner` moves, :class:`EngineBusy` when a long move's game finds no
        place in the budget (see :mod:`~exochess.web.compute.fairshare`)."""
        budget = move_cost(level)
        result: str = await self._submit(
            MOVE,
            compute_move,
            (variant, start_fen, list(texts), level, seed, clock),
            budget,
            owner,
            game_id or None,
        )
        return result

    async def check_move(self, level: int, *, game_id: str, owner: str | None = None) -> None:
        """See :meth:`EngineBackend.check_move` (the refusals of :meth:`move`, nothing queued)."""
        owner = owner or self._game_owners.get(game_id) or owner_of(None, None, game_id)
        self._refuse(MOVE, move_cost(level), owner, game_id or None)

    async def analyse(
        self,
        variant: str,
        start_fen: str,
        texts: list[str],
        movetime_ms: int,
        client: str | None = None,
        *,
        owner: str | None = None,
    ) -> dict[str, Any]:
        """An analysis of at most :attr:`analysis_cap_ms`, charged to ``owner`` (else to the
        client address ``client``), who may have :attr:`per_client` at once.

        Raises :class:`TooManyEngineJobs` or :class:`EngineBusy` instead of queueing too much.
        """
        movetime_ms = max(1, min(movetime_ms, self.analysis_cap_ms))
        args = (variant, start_fen, list(texts), movetime_ms)
        budget = movetime_ms / 1000
        result: dict[str, Any] = await self._submit(
            ANALYSIS,
            compute_analysis,
            args,
            budget,
            owner or owner_of(None, client or "?"),
        )
        return result

    async def report_position(
        self, variant: str, start_fen: str, texts: list[str], nodes: int, *, owner: str
    ) -> dict[str, Any]:
        """See :meth:`EngineBackend.report_position`: queued behind every move and analysis, and
        stopped (then queued again) when one of them would otherwise wait for its worker."""
        result: dict[str, Any] = await self._submit(
            REPORT,
            compute_report_position,
            (variant, start_fen, list(texts), nodes),
            max(1, nodes) / REPORT_NODES_PER_S,
            owner,
        )
        return result

    async def idle(self) -> bool:
        """See :meth:`EngineBackend.idle`."""
        return not any(self._queued[k] or self._running[k] for k in (MOVE, ANALYSIS))

    async def analyse_live(
        self,
        variant: str,
        start_fen: str,
        texts: list[str],
        on_info: Callable[[dict[str, Any]], None],
        *,
        owner: str,
        multipv: int = LIVE_LINES,
        movetime_ms: int | None = None,
    ) -> dict[str, Any]:
        """A live analysis: ``multipv`` lines, each completed iteration sent to ``on_info`` as
        it comes (see :func:`compute_live_analysis`), for at most :attr:`live_cap_ms`; the
        last update is returned.  Charged to ``owner`` and refused like :meth:`analyse` (it
        counts among the owner's :attr:`per_client` analyses); cancelling the awaiting task
        stops the search, which frees its worker at once."""
        movetime_ms = max(1, min(movetime_ms or self.live_cap_ms, self.live_cap_ms))
        args = (variant, start_fen, list(texts), movetime_ms, max(1, min(multipv, MAX_MULTIPV)))
        result: dict[str, Any] = await self._submit(
            ANALYSIS, compute_live_analysis, args, movetime_ms / 1000, owner, on_info=on_info
        )
        return result

    async def check_analysis(self, owner: str) -> None:
        """Raise the refusal (:class:`TooManyEngineJobs`, :class:`EngineBusy`) that an analysis
        for ``owner`` would meet now, queueing nothing."""
        self._refuse(ANALYSIS, self.live_cap_ms / 1000, owner, None)

    async def drop_game(self, game_id: str) -> None:
        """``game_id`` is over or abandoned: its place among the long moves is free (its queued
        move, if any, is dropped by the caller cancelling the wait)."""
        self._budget.release(game_id)

    def stats(self) -> PoolStats:
        return PoolStats(
            workers=self._workers,
            ready=self._ready_now,
            running=self._running[MOVE] + self._running[ANALYSIS] + self._running[REPORT],
            queued_moves=self._queued[MOVE],
            queued_analyses=self._queued[ANALYSIS],
            queued_reports=self._queued[REPORT],
            completed=self._counts["completed"],
            cancelled=self._counts["cancelled"],
            refused=self._counts["refused"],
            killed=self._counts["killed"],
            long_games=len(self._budget.holders()),
        )

    def shutdown(self) -> None:
        """Stop the workers (each is told to quit, then killed if still alive) and the slots."""
        self._closed = True
        for task in self._tasks:
            task.cancel()
        for worker in list(self._live):
            if worker.job is not None:
                worker.ask_stop(worker.job)  # a stopped search answers at once, then reads the None
            with contextlib.suppress(OSError, ValueError):
                worker.conn.send(None)
        deadline = time.monotonic() + STOP_GRACE_S
        for worker in list(self._live):
            worker.process.join(max(0.0, deadline - time.monotonic()))
            worker.kill()
        self._live.clear()
        for ticket in self._queue.waiting(MOVE) + self._queue.waiting(ANALYSIS):
            job: _Job = ticket.item
            if not job.future.done():
                job.future.cancel()
        self._readers.shutdown(wait=False, cancel_futures=True)

    # --- queueing ------------------------------------------------------------------------

    def _retry_after(self) -> int:
        """Seconds until the analyses queued now have probably been served."""
        waiting = sum(t.cost for t in self._queue.waiting(ANALYSIS))
        return max(1, math.ceil((waiting + self.analysis_cap_ms / 1000) / self._analysis_slots))

    def _refuse(self, kind: str, budget_s: float, owner: str, game: str | None) -> None:
        """Raise the refusal of a job ``owner`` asks for, if it must be refused (see the module)."""
        if kind == MOVE:
            if self._queue.held(owner, MOVE) >= self.moves_per_owner:
                self._counts["refused"] += 1
                retry = max(1, math.ceil(budget_s * self.moves_per_owner))
                raise TooManyEngineJobs(
                    N_(
                        "too many computer moves of yours are waiting (at most {count}); "
                        "try again in {seconds} s"
                    ),
                    retry_after=retry,
                    count=self.moves_per_owner,
                    seconds=retry,
                )
            if game is not None and budget_s > QUICK_MOVE_S:
                retry_ = self._budget.refusal(game, owner, budget_s, time.monotonic())
                if retry_ is not None:
                    self._counts["refused"] += 1
                    raise EngineBusy(
                        N_("the computer is busy with long searches: try again in {seconds} s"),
                        retry_after=retry_,
                        seconds=retry_,
                    )
            return
        if kind == REPORT:
            return  # bounded by its caller (web/game/reports.py: one position at a time)
        if self._queue.held(owner, ANALYSIS) >= self.per_client:
            self._counts["refused"] += 1
            raise TooManyEngineJobs(
                N_(
                    "too many engine analyses from your address at once (at most {count}); "
                    "wait for one to finish"
                ),
                retry_after=max(1, math.ceil(self.analysis_cap_ms / 1000)),
                count=self.per_client,
            )
        free = self._running[ANALYSIS] < self._analysis_slots and self._queued[ANALYSIS] == 0
        if not free and self._queued[ANALYSIS] >= self.queue_limit:
            self._counts["refused"] += 1
            retry = self._retry_after()
            raise EngineBusy(
                N_("the engine is busy: try again in {seconds} s"), retry_after=retry, seconds=retry
            )

    async def _submit(
        self,
        kind: str,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        budget_s: float,
        owner: str | None,
        game: str | None = None,
        on_info: Callable[[Any], None] | None = None,
    ) -> Any:
        if self._closed:
            raise EngineFailed("the engine is shutting down")
        owner = owner or self._game_owners.get(game or "") or owner_of(None, None, game)
        self._refuse(kind, budget_s, owner, game)
        loop = asyncio.get_running_loop()
        long_game = game if kind == MOVE and budget_s > QUICK_MOVE_S else None
        job = _Job(kind, fn, args, budget_s, owner, loop.create_future(), next(self._seq), long_game)
        job.on_info = on_info
        job.ticket = Ticket(kind, owner, budget_s, kind == MOVE and budget_s <= QUICK_MOVE_S, job)
        if long_game is not None:
            self._budget.take(long_game, owner, budget_s)
        job.future.add_done_callback(lambda _f: self._on_done(job))
        self._queue.push(job.ticket)
        if kind != REPORT:
            self._preempt_reports(kind)
        async with self._cond:
            self._cond.notify_all()
        if on_info is None:
            return await job.future
        try:
            return await job.future
        except asyncio.CancelledError:
            # a streaming job's viewer goes on to the next position at once: returning only once
            # the worker has stopped means the stopped job no longer counts against the owner
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(job.over.wait(), STOP_GRACE_S + 1)
            raise

    def _preempt_reports(self, kind: str) -> None:
        """A move or an analysis was queued: stop the reports' positions that hold the workers it
        could use, so that it never waits for one (each is queued again when it has stopped)."""
        if not self._running_reports:
            return
        running = sum(self._running.values())
        if kind == MOVE and running < self._general:
            return  # a general worker is free for it
        if kind == ANALYSIS and self._running[ANALYSIS] + self._running[REPORT] < self._analysis_slots:
            return
        for job in list(self._running_reports.values()):
            if not job.preempted:
                job.preempted = True
                self._ask_stop(job)

    def _requeue_preempted(self, job: _Job) -> bool:
        """Queue a preempted report's position again (it keeps its turn); True if it was one."""
        self._running_reports.pop(job.seq, None)
        if not job.preempted or job.future.done():
            return False
        job.preempted = False
        job.stop_asked = None
        job.worker = None
        job.attempts = max(0, job.attempts - 1)
        self._enqueue(job)
        return True

    def _enqueue(self, job: _Job) -> None:
        """Queue a job again (its worker died before or while running it)."""
        self._queue.requeue(job.ticket)

    def _on_done(self, job: _Job) -> None:
        """The job's future is settled: by its result, its error, or the caller's cancellation."""
        if not job.future.cancelled():
            return
        self._counts["cancelled"] += 1
        if job.state == "queued":
            self._finish(job)  # left in its heap, skipped when it comes up
        elif job.state == "running":
            self._ask_stop(job)

    def _pick(self, express: bool) -> _Job | None:
        """The next job for a slot: moves before analyses, fairly across owners; the express
        slot takes quick moves only."""
        busy = self._running[ANALYSIS] + self._running[REPORT]
        ticket = self._queue.pop(quick_only=express, analyses=busy < self._analysis_slots)
        if ticket is None:
            return None
        job: _Job = ticket.item
        return job

    async def _next_job(self, express: bool) -> _Job:
        async with self._cond:
            while True:
                job = self._pick(express)
                if job is not None:
                    return job
                await self._cond.wait()

    # --- running ---------------------------------------------------------------------------

    def _ask_stop(self, job: _Job) -> None:
        if job.stop_asked is None:
            job.stop_asked = time.monotonic()
            if job.worker is not None:
                job.worker.ask_stop(job.seq)

    def _recv(self, worker: _Worker) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self._readers, worker.conn.recv)

    async def _start_worker(self) -> _Worker | None:
        worker = _Worker(self.hash_mb)
        self._live.add(worker)
        reply = self._recv(worker)
        try:
            message = await asyncio.wait_for(reply, READY_TIMEOUT_S)
        except (TimeoutError, EOFError, OSError):
            message = None
        if message is None or message[0] != _READY:
            log.error("an engine worker did not start; retrying")
            self._discard(worker)
            return None
        return worker

    def _discard(self, worker: _Worker) -> None:
        self._live.discard(worker)
        worker.kill()

    async def _slot(self, express: bool) -> None:
        """One job slot: keep a worker alive and feed it jobs, best first (``express``: quick
        moves only)."""
        first = True
        while not self._closed:
            worker = await self._start_worker()
            if worker is None:
                await asyncio.sleep(1)
                continue
            self._ready_now += 1
            if first:
                first = False
                self._ready += 1
                if self._ready == self._workers:
                    self._ready_event.set()
            while not self._closed:
                job = await self._next_job(express)
                try:
                    alive = await self._run(worker, job)
                except Exception as exc:  # a bug here must not take the slot down with it
                    log.exception("engine job %d failed in the pool", job.seq)
                    self._running_reports.pop(job.seq, None)
                    self._finish(job)
                    if not job.future.done():
                        job.future.set_exception(EngineFailed(f"the engine failed: {exc}"))
                    alive = False
                worker.job = None
                if job.kind in (ANALYSIS, REPORT):
                    async with self._cond:
                        self._cond.notify_all()  # an analysis slot is free again
                if not alive:
                    self._ready_now -= 1
                    self._discard(worker)
                    break

    async def _run(self, worker: _Worker, job: _Job) -> bool:
        """Run ``job`` on ``worker`` and settle its future; False if the worker had to go."""
        if not worker.process.is_alive():
            # It died while idle (killed, out of memory): the job never reached it, so this is
            # no attempt. Counting it made a job fail outright when every worker had been
            # killed at once (its retry met the other dead worker).
            log.warning("an idle engine worker died; job %d waits for its replacement", job.seq)
            self._enqueue(job)
            return False
        job.worker = worker
        worker.job = job.seq
        job.attempts += 1
        try:
            worker.conn.send((job.seq, job.fn, job.args, job.on_info is not None))
        except (OSError, ValueError):
            return self._lost(job, "could not reach the engine worker")
        if job.kind == REPORT:
            self._running_reports[job.seq] = job
        reply = self._recv(worker)
        overtime_at = time.monotonic() + job.budget_s + (MOVE_OVERTIME_S if job.kind == MOVE else OVERTIME_S)
        if job.stop_asked is not None:  # cancelled after being picked, before being sent
            job.stop_asked = time.monotonic()
            worker.ask_stop(job.seq)
        while True:
            done, _ = await asyncio.wait({reply}, timeout=_POLL_S)
            if done:
                message = None if reply.cancelled() or reply.exception() is not None else reply.result()
                if message is None or message[1] != _INFO:
                    break
                if job.on_info is not None and not job.future.done():
                    try:
                        job.on_info(message[2])
                    except Exception:  # the listener's failure is not the job's
                        log.exception("engine job %d: its update could not be delivered", job.seq)
                reply = self._recv(worker)
                continue
            now = time.monotonic()
            if job.stop_asked is None and now >= overtime_at:
                log.warning("engine job %d ran past its time: stopping it", job.seq)
                self._ask_stop(job)
            elif job.stop_asked is not None and now - job.stop_asked >= STOP_GRACE_S:
                # the stop did not reach the job (not searching yet, or stuck): kill the worker
                self._counts["killed"] += 1
                log.warning("engine job %d did not stop: its worker is replaced", job.seq)
                worker.kill()
                await asyncio.wait({reply})
                if not reply.cancelled():
                    reply.exception()  # read (EOF, the worker is gone), so asyncio does not warn
                if self._requeue_preempted(job):
                    return False
                self._finish(job)
                if not job.future.done():
                    job.future.set_exception(EngineFailed("the engine took too long on this position"))
                return False
        try:
            _seq, status, value = reply.result()
        except (EOFError, OSError):
            self._running_reports.pop(job.seq, None)
            return self._lost(job, "the engine worker died")
        if self._requeue_preempted(job):
            return True  # its search was cut short: it runs again, whole, after the others
        self._finish(job)
        if job.future.done():
            return True
        if status == "ok":
            self._counts["completed"] += 1
            job.future.set_result(value)
        elif status == "error":
            job.future.set_exception(EngineFailed(f"the engine failed: {value}"))
        else:
            job.future.set_exception(EngineFailed("the engine job was stopped"))
        return True

    def _finish(self, job: _Job) -> None:
        job.over.set()
        self._queue.finish(job.ticket)
        if job.game is not None:
            self._budget.done(job.game, time.monotonic())

    def _lost(self, job: _Job, why: str) -> bool:
        """The worker died under ``job``: try it once more on a new worker, unless abandoned."""
        log.warning("%s (job %d)", why, job.seq)
        if not job.future.done() and job.attempts < 2:
            self._enqueue(job)
        else:
            self._finish(job)
            if not job.future.done():
                job.future.set_exception(EngineFailed(why))
        return False
