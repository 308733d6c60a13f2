"""Engine work on a Redis job queue (arq): the servers queue jobs, ``exochess worker`` runs them.

The choice of arq is explained in docs/decisions/0008-engine-jobs-on-arq.md.

A computer move is a job carrying the position (variant, starting FEN, move texts), the
level, the seed and the time budget.  The worker that runs it stores the move itself, with
the database's guarded update, then announces the change on the pub/sub channel with a move
note (:mod:`exochess.web.live.movenote`): every server plays the move on its cached game (or reads
the game again when its copy does not follow on) and sends the new state to its watchers.
So the answer is stored exactly once:

- a job's id is made of the game, the ply and the moves, so two servers asking for the same
  move queue one job (arq refuses a second job with the id of a queued or running one);
- a worker killed mid-job leaves the job in the queue, and another worker (or the same one
  restarted) takes it again once the dead one's lease has expired: a few seconds, since a live
  worker renews it every second (:mod:`exochess.web.game.worker`);
- a second run of the job (a retry, or two workers) finds the move stored, or loses the
  guarded update, and stores nothing.

Analyses are jobs too; the server that queued one waits for its result.

A server can die between storing a player's move and queueing the computer's reply (or Redis
can lose the queue when it restarts).  :class:`EngineSweep` mends that: every few seconds one
server (the holder of a short Redis lock) looks for computer games that have waited a while for
the computer's move and queues it again; the job id makes that a no-op when the job is there.

The queue has a bound, :attr:`JobQueue.limit` jobs: beyond it new computer games and analyses
are refused (:class:`~exochess.web.domain.EngineBusy`, 503 with Retry-After) while the games
already started keep their place.  Human games never wait for the engine: it runs in other
processes, usually on other machines.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import math
import secrets
import sys
import time
import zlib
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from arq import create_pool
from arq.connections import ArqRedis, RedisSettings
from arq.jobs import Job
from arq.worker import func
from redis.exceptions import RedisError

from exochess.board import Board
from exochess.engine.levels import DEFAULT_MOVETIME_MS
from exochess.engine.protocol import SWITCH_INTERVAL_S
from exochess.web import metrics
from exochess.web.compute.enginepool import (
    ANALYSIS_CAP_MS,
    PER_CLIENT_LIMIT,
    RANDOM_LEVEL,
    EngineClock,
    PoolStats,
    compute_analysis,
    compute_move,
    set_engine_hash_mb,
    think_budget_ms,
)
from exochess.web.domain import (
    Color,
    EngineBusy,
    EngineFailed,
    GameStatus,
    PlayerKind,
    Stamp,
    TooManyEngineJobs,
)
from exochess.web.game.clock import Clock, Timing
from exochess.web.game.positions import reason_text
from exochess.web.game.queuestats import QUEUE_NAME, QueueState, read_state, sync_client
from exochess.web.game.timecontrol import stored_time_control
from exochess.web.game.worker import (
    MOVE_TRIES,
    EngineWorker,
    Health,
    retry_on_database_outage,
    watch_database,
)
from exochess.web.live.movenote import MoveNote
from exochess.web.live.pubsub import RedisBus, connect
from exochess.web.storage.store import ConflictError, Finish, Storage
from exochess.web.storage.store import now as storage_now

log = logging.getLogger("exochess.web")

QUEUE_LIMIT = 200
"""Jobs that may wait in the queue; beyond it new computer games and analyses are refused
(the setting ``EXOCHESS_ENGINE_QUEUE_LIMIT`` sets another bound)."""
JOB_TIMEOUT_S = 60.0
"""Longest run of one job in a worker (a level-8 move thinks 3 s, an analysis at most 5 s)."""
RESULT_POLL_S = 0.05
ENQUEUE_ATTEMPTS = 60
"""Tries to queue a computer move while Redis is unreachable (about two minutes)."""
SWEEP_EVERY_S = 5.0
"""How often a server tries to take the sweep's lock (the setting ``EXOCHESS_ENGINE_SWEEP_S``)."""
SWEEP_AFTER_S = 5.0
"""A computer game is swept when unchanged for this long (the setting ``EXOCHESS_ENGINE_SWEEP_AFTER_S``):
longer than queueing takes, so the sweep does not race the server that is queueing."""
SWEEP_LOCK = "exochess:engine-sweep"


def redis_settings(url: str) -> RedisSettings:
    """arq's connection settings for ``url``, failing fast while Redis is down."""
    settings = RedisSettings.from_dsn(url)
    settings.conn_timeout = 1
    settings.conn_retries = 0
    return settings


def move_job_id(game_id: str, ply: int, texts: list[str]) -> str:
    """The id of the job for the computer's move at ``ply``: the same for every server that asks
    (so it is queued once), different after a takeback changed the moves before it."""
    return f"move:{game_id}:{ply}:{zlib.crc32(chr(10).join(texts).encode()):08x}"


class JobQueue:
    """The engine backend of a server in Redis mode, beside
    :class:`~exochess.web.compute.enginepool.EnginePool`.

    :meth:`move` queues the job and returns None at once: the worker stores the answer.
    """

    def __init__(self, url: str, *, limit: int = QUEUE_LIMIT, per_client: int = PER_CLIENT_LIMIT,
                 analysis_cap_ms: int = ANALYSIS_CAP_MS) -> None:
        self.url = url
        self.limit = limit
        self.per_client = per_client
        self.analysis_cap_ms = analysis_cap_ms
        self._pool: ArqRedis | None = None
        self._by_client: Counter[str] = Counter()
        self._counts: Counter[str] = Counter()
        self._stats_client: Any = None

    async def _redis(self) -> ArqRedis:
        if self._pool is None:
            try:
                self._pool = await create_pool(redis_settings(self.url), default_queue_name=QUEUE_NAME)
            except (RedisError, OSError) as exc:
                raise EngineFailed("the engine queue is unreachable; try again") from exc
        return self._pool

    async def warm(self) -> None:
        """Connect to the queue (the workers warm themselves)."""
        with contextlib.suppress(EngineFailed):
            await self._redis()

    async def depth(self) -> int:
        """Jobs queued or running now."""
        try:
            depth = int(await (await self._redis()).zcard(QUEUE_NAME))
        except (RedisError, OSError) as exc:
            raise EngineFailed("the engine queue is unreachable; try again") from exc
        return depth

    async def admit(self) -> None:
        """Raise :class:`EngineBusy` if the queue is full (before starting a computer game)."""
        depth = await self.depth()
        if depth >= self.limit:
            self._counts["refused"] += 1
            retry = 30
            raise EngineBusy(
                f"the computer is busy: {depth} engine jobs are waiting (at most {self.limit});"
                f" try again in {retry} s, or play a friend", retry_after=retry,
            )

    async def move(self, variant: str, start_fen: str, texts: list[str], level: int, seed: int,
                   clock: EngineClock | None = None, *, game_id: str = "") -> str | None:
        """Queue the computer's move in game ``game_id`` (the worker stores it, on ``clock`` if
        the game has one); returns None."""
        budget = None if clock is None else [clock.wtime_ms, clock.btime_ms, clock.winc_ms, clock.binc_ms]
        ply = len(texts)
        budget_ms = 0 if level <= RANDOM_LEVEL else DEFAULT_MOVETIME_MS.get(level, 3000)
        delay = 0.1
        # the game waits for this move: while Redis is away (a restart), keep trying
        for _attempt in range(ENQUEUE_ATTEMPTS):
            try:
                job = await (await self._redis()).enqueue_job(
                    "engine_move", game_id, ply, variant, start_fen, list(texts), level, seed,
                    budget_ms, time.time(), budget, _job_id=move_job_id(game_id, ply, texts),
                )
            except (EngineFailed, RedisError, OSError) as exc:
                log.warning("cannot queue the engine move of game %s: %s", game_id, exc)
                await asyncio.sleep(delay)
                delay = min(2 * delay, 2.0)
                continue
            if job is not None:
                self._counts["queued"] += 1
            return None
        metrics.ERRORS.labels("engine").inc()
        raise EngineFailed("the engine queue is unreachable")

    async def analyse(self, variant: str, start_fen: str, texts: list[str], movetime_ms: int,
                      client: str | None = None) -> dict[str, Any]:
        """An analysis run by a worker; this server waits for its result."""
        if client is not None and self._by_client[client] >= self.per_client:
            self._counts["refused"] += 1
            raise TooManyEngineJobs(
                f"too many engine analyses from your address at once (at most {self.per_client});"
                " wait for one to finish", retry_after=max(1, math.ceil(self.analysis_cap_ms / 1000)),
            )
        await self.admit()
        movetime_ms = max(1, min(movetime_ms, self.analysis_cap_ms))
        if client is not None:
            self._by_client[client] += 1
        try:
            redis = await self._redis()
            job: Job | None = await redis.enqueue_job(
                "engine_analysis", variant, start_fen, list(texts), movetime_ms, time.time()
            )
            assert job is not None  # a fresh random id is never taken
            result: dict[str, Any] = await job.result(
                timeout=movetime_ms / 1000 + JOB_TIMEOUT_S, poll_delay=RESULT_POLL_S
            )
            self._counts["completed"] += 1
            return result
        except (RedisError, OSError, TimeoutError) as exc:
            metrics.ERRORS.labels("engine").inc()
            raise EngineFailed("the engine did not answer; try again") from exc
        finally:
            if client is not None:
                self._by_client[client] -= 1
                if self._by_client[client] <= 0:
                    del self._by_client[client]

    def stats(self) -> PoolStats:
        """This server's own counters only (:meth:`live_stats` reads the queue)."""
        return PoolStats(workers=0, ready=0, running=0, queued_moves=self._counts["queued"],
                         queued_analyses=0, completed=self._counts["completed"], cancelled=0,
                         refused=self._counts["refused"], killed=0)

    async def state(self) -> QueueState:
        """The queue as Redis holds it now (:mod:`exochess.web.game.queuestats`); raises
        :class:`EngineFailed` while Redis is away."""
        if self._stats_client is None:
            self._stats_client = sync_client(self.url)
        try:
            return await asyncio.to_thread(read_state, self._stats_client)
        except (RedisError, OSError) as exc:
            raise EngineFailed("the engine queue is unreachable; try again") from exc

    async def live_stats(self) -> PoolStats:
        """:meth:`stats` with the site's figures read from the queue: workers alive (all
        ready: a worker heartbeats once it polls), jobs running and waiting, jobs done."""
        state = await self.state()
        return PoolStats(workers=state.workers, ready=state.workers, running=state.running,
                         queued_moves=state.waiting, queued_analyses=0,
                         completed=sum(n for n, _s in state.done.values()), cancelled=0,
                         refused=self._counts["refused"], killed=0)

    async def ping(self) -> bool:
        try:
            return bool(await (await self._redis()).ping())
        except (EngineFailed, RedisError, OSError):
            return False

    def shutdown(self) -> None:
        """Nothing to stop here: queued jobs stay for the workers."""

    async def aclose(self) -> None:
        if self._stats_client is not None:
            self._stats_client.close()
        if self._pool is not None:
            with contextlib.suppress(Exception):
                await self._pool.aclose()


def engine_to_move(start_fen: str, ply: int, white: PlayerKind, black: PlayerKind) -> bool:
    """Whether the side to move after ``ply`` plies from ``start_fen`` is the computer."""
    mover = white if Color.to_move(start_fen, ply) == Color.WHITE else black
    return mover == PlayerKind.ENGINE


class EngineSweep:
    """Queues again the computer moves nobody queued (their server died first, or Redis lost
    the queue).

    Every server runs one; each round, the server that takes the Redis lock (held for one
    round, so one server sweeps at a time, and another takes over when it dies) reads the
    computer games unchanged for :attr:`after_s` whose side to move is the computer, and hands
    each id to ``resume`` (the game service: it reads the game again and queues the move under
    the job's id, which arq refuses a second time while the job waits or runs).  Storing stays
    exactly once whatever the sweep does: the worker's update is guarded.
    """

    def __init__(self, url: str, storage: Storage, resume: Callable[[str], Awaitable[None]], *,
                 every_s: float = SWEEP_EVERY_S, after_s: float = SWEEP_AFTER_S) -> None:
        self.storage = storage
        self.resume = resume
        self.every_s = every_s
        self.after_s = after_s
        self.origin = secrets.token_hex(6)
        self._redis = connect(url)
        self._task: asyncio.Task[None] | None = None
        self.swept = 0
        """Games handed to ``resume`` by this server (for the tests and the logs)."""

    def start(self) -> None:
        """Sweep in the background (in the running event loop)."""
        self._task = asyncio.create_task(self._run(), name="engine-sweep")

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every_s)
            try:
                await self.sweep_once()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database or Redis is away: try again next round
                log.warning("engine sweep failed", exc_info=True)

    async def _take_lock(self) -> bool:
        # held a little less than a round: the next round anyone (this server too) may take it
        hold_ms = max(1, int(self.every_s * 900))
        try:
            return bool(await self._redis.set(SWEEP_LOCK, self.origin, nx=True, px=hold_ms))
        except (RedisError, OSError):
            return False

    async def sweep_once(self) -> int:
        """One round: the number of games handed to ``resume`` (0 if another server sweeps)."""
        if not await self._take_lock():
            return 0
        loop = asyncio.get_running_loop()
        before = storage_now() - dt.timedelta(seconds=self.after_s)
        rows = await loop.run_in_executor(None, self.storage.idle_engine_games, before)
        # jobs stay in the queue's sorted set until finished, and the queue is bounded: one read
        queued = {member.decode().rsplit(":", 1)[0]
                  for member in await self._redis.zrange(QUEUE_NAME, 0, -1)}
        waiting = [gid for gid, variant, fen, ply, white, black in rows
                   if f"move:{gid}:{ply}" not in queued and engine_to_move(fen, ply, white, black)]
        for game_id in waiting:
            try:
                await self.resume(game_id)
            except Exception:
                log.warning("engine sweep could not resume game %s", game_id, exc_info=True)
        if waiting:
            log.info("engine sweep queued the computer's move again in %d game(s)", len(waiting))
        self.swept += len(waiting)
        return len(waiting)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        with contextlib.suppress(Exception):
            await self._redis.aclose()


# --- the worker side -------------------------------------------------------------------------


def _after(variant: str, start_fen: str, texts: list[str], move: str) -> tuple[str, Finish | None]:
    """The FEN after ``move`` (for the move note) and the result columns if it ends the game,
    else None (CPU work)."""
    board = Board(variant, fen=start_fen)
    for text in texts:
        board.push_text(text)
    board.push_text(move)
    outcome = board.outcome()
    if outcome is None:
        return board.fen(), None
    return board.fen(), {"result": outcome.result(), "termination": outcome.termination.value,
                         "reason": reason_text(board.variant, outcome)}


async def engine_move(ctx: dict[str, Any], game_id: str, ply: int, variant: str, start_fen: str,
                      texts: list[str], level: int, seed: int, budget_ms: int,
                      queued_at: float, clock: list[int] | None = None) -> str | None:
    """arq job: the computer's move at ``ply``, stored and announced; None if not needed (any more).

    In a game with a time control the move is searched on ``clock`` (both sides' times and
    increments when it was queued) and stored with its clock stamp, worked out here from the
    stored rows as the servers do (:mod:`exochess.web.game.clock`).
    """
    storage: Storage = ctx["storage"]
    loop = asyncio.get_running_loop()
    cpu: ThreadPoolExecutor = ctx["cpu"]
    row = await loop.run_in_executor(cpu, storage.load_game, game_id)
    if row is None or row.status != GameStatus.ACTIVE or row.moves != texts:
        return None  # answered already (a retry), or the game moved on (takeback, resignation)
    mover = Color.to_move(start_fen, len(texts))
    if row.kind_of(mover) != PlayerKind.ENGINE:
        return None
    timed = Clock.of(
        stored_time_control(row.time_control), row.created, len(row.moves),
        row.stamps[-1] if row.stamps else None, mover, ctx.get("timing", Timing()), computer=mover,
    )
    budget = EngineClock(*clock) if clock is not None and len(clock) == 4 else None
    asked = time.monotonic()
    text = await loop.run_in_executor(cpu, compute_move, variant, start_fen, texts, level, seed, budget)
    # the computer is charged its think time, within what its search may take; its deadline is
    # never judged (the queue's wait and a busy machine are not its slowness)
    think_ms = math.ceil((time.monotonic() - asked) * 1000)
    if budget is not None:
        think_ms = min(think_ms, think_budget_ms(variant, level, budget, mover == Color.WHITE))
    fen, finish = await loop.run_in_executor(cpu, _after, variant, start_fen, texts, text)
    arrived = storage_now()
    stamp = timed.after_move(arrived, 0, think_ms) if timed is not None else Stamp(None, None, arrived)
    try:
        await loop.run_in_executor(cpu, storage.add_move, game_id, ply, text, finish, stamp)
    except ConflictError:
        return None  # another run of this job stored it first
    metrics.MOVES.labels("engine").inc()
    metrics.ENGINE_SECONDS.labels("move").observe(max(0.0, time.time() - queued_at))
    bus: RedisBus = ctx["bus"]
    envelope: dict[str, Any] = {"k": game_id, "m": None, "ch": True}
    if finish is None:
        # the servers play the move on their cached game instead of each reading the game
        # again; a move that ends the game has none (they read the result and the ratings)
        envelope["a"] = MoveNote(ply, text, fen, stamp).to_json()
    await bus.publish(envelope)
    log.info("engine move stored", extra={"game": game_id, "ply": ply, "move": text, "engine_level": level})
    return text


async def engine_analysis(ctx: dict[str, Any], variant: str, start_fen: str, texts: list[str],
                          movetime_ms: int, queued_at: float) -> dict[str, Any]:
    """arq job: an analysis (its result goes back to the server that waits for it)."""
    loop = asyncio.get_running_loop()
    result: dict[str, Any] = await loop.run_in_executor(
        ctx["cpu"], compute_analysis, variant, start_fen, texts, movetime_ms
    )
    metrics.ENGINE_SECONDS.labels("analysis").observe(max(0.0, time.time() - queued_at))
    return result


def make_worker(redis_url: str, database_url: str, *, jobs: int = 1,
                job_timeout_s: float = JOB_TIMEOUT_S, health: Health | None = None,
                timing: Timing | None = None, hash_mb: int | None = None) -> EngineWorker:
    """A worker running the engine's jobs, ``jobs`` at a time (one per core is right); it
    waits out Redis and database outages and holds its jobs by a renewed lease
    (:mod:`exochess.web.game.worker`), telling ``health`` what it waits for.  ``timing``: the
    rules' durations (the servers' own: a test setting shortens them)."""
    health = health if health is not None else Health()

    async def startup(ctx: dict[str, Any]) -> None:
        # the searches run in threads beside the event loop: let the loop have the GIL within
        # a millisecond or so (the search pauses for other threads every few dozen nodes)
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        if hash_mb is not None:
            set_engine_hash_mb(hash_mb)
        if "storage" in ctx:  # entered again after Redis came back: everything is there
            return
        ctx["storage"] = Storage(database_url)
        ctx["timing"] = timing or Timing()
        ctx["cpu"] = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="engine")
        ctx["bus"] = RedisBus(redis_url, origin="worker")
        ctx["probe"] = watch_database(ctx["storage"], health)

    async def shutdown(ctx: dict[str, Any]) -> None:
        ctx["probe"].cancel()
        ctx["cpu"].shutdown(wait=True)
        await ctx["bus"].close()
        ctx["storage"].close()

    settings = RedisSettings.from_dsn(redis_url)
    return EngineWorker(
        functions=[
            # results of moves are not kept: the answer is the stored move; the id is then free
            # again for a retry after a takeback
            func(retry_on_database_outage(engine_move), name="engine_move", keep_result=0,
                 max_tries=MOVE_TRIES),
            func(engine_analysis, name="engine_analysis", keep_result=60, max_tries=2),
        ],
        redis_settings=settings,
        queue_name=QUEUE_NAME,
        max_jobs=jobs,
        job_timeout=job_timeout_s,
        poll_delay=0.05,
        on_startup=startup,
        on_shutdown=shutdown,
        handle_signals=True,
        health=health,
    )
