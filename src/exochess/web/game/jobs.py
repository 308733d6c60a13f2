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

Every job is charged to its owner and ordered fairly, and the long moves have a budget of
places, as on one process; the bookkeeping lives in Redis (:mod:`exochess.web.game.jobshare`),
and the worker frees a job's claims when it ends.

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
from exochess.engine.protocol import SWITCH_INTERVAL_S
from exochess.web import metrics
from exochess.web.compute.enginepool import (
    ANALYSIS,
    ANALYSIS_CAP_MS,
    MOVE,
    PER_CLIENT_LIMIT,
    QUICK_MOVE_S,
    EngineClock,
    PoolStats,
    compute_analysis,
    compute_move,
    move_cost,
    set_engine_hash_mb,
    think_budget_ms,
)
from exochess.web.compute.fairshare import MOVES_PER_OWNER, owner_of
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
from exochess.web.game.jobshare import RedisShare, move_start
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
JOB_EXPIRES_S = 7200.0
"""A job not started this long after it was queued is dropped (its start is put up to an hour
in the past: see :mod:`exochess.web.game.jobshare`)."""
LONG_BUDGET_S = 24.0
"""Thinking time the long moves' places add up to in Redis mode (eight level-8 moves: the
workers are other machines; ``$EXOCHESS_ENGINE_LONG_BUDGET_S`` sets another)."""
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


def _at(epoch_s: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(epoch_s, dt.UTC)


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
                 analysis_cap_ms: int = ANALYSIS_CAP_MS, moves_per_owner: int = MOVES_PER_OWNER,
                 long_budget_s: float = LONG_BUDGET_S) -> None:
        self.url = url
        self.limit = limit
        self.per_client = per_client
        self.moves_per_owner = moves_per_owner
        self.long_budget_s = long_budget_s
        self.analysis_cap_ms = analysis_cap_ms
        self._pool: ArqRedis | None = None
        self._share: RedisShare | None = None
        self._counts: Counter[str] = Counter()
        self._stats_client: Any = None

    async def share(self) -> RedisShare:
        """The owners' bounds and the long moves' places, in Redis."""
        if self._share is None:
            self._share = RedisShare(await self._redis(), moves_per_owner=self.moves_per_owner,
                                     analyses_per_owner=self.per_client, budget_s=self.long_budget_s)
        return self._share

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

    async def admit(self, owner: str | None = None, level: int | None = None) -> None:
        """Raise :class:`EngineBusy` if the queue is full, or a long game for ``owner`` would
        find no place (before starting a computer game)."""
        cost = move_cost(level or 0)
        if owner is not None and cost > QUICK_MOVE_S:
            try:
                await (await self.share()).place(None, owner, cost, take=False)
            except EngineBusy:
                self._counts["refused"] += 1
                raise
            except (RedisError, OSError) as exc:
                raise EngineFailed("the engine queue is unreachable; try again") from exc
        depth = await self.depth()
        if depth >= self.limit:
            self._counts["refused"] += 1
            retry = 30
            raise EngineBusy(
                f"the computer is busy: {depth} engine jobs are waiting (at most {self.limit});"
                f" try again in {retry} s, or play a friend", retry_after=retry,
            )

    async def reserve(self, owner: str, level: int) -> str | None:
        """Before a computer game at ``level`` is created for ``owner``: its place among the
        long moves (the key), None for a quick level; :class:`EngineBusy` when there is none."""
        cost = move_cost(level)
        if cost <= QUICK_MOVE_S:
            return None
        key = f"reserved:{secrets.token_hex(8)}"
        try:
            await (await self.share()).place(key, owner, cost)
        except EngineBusy:
            self._counts["refused"] += 1
            raise
        except (RedisError, OSError) as exc:
            raise EngineFailed("the engine queue is unreachable; try again") from exc
        return key

    async def claim(self, key: str | None, game_id: str, owner: str) -> None:
        """The game ``game_id`` was created for ``owner`` (empty: its creation failed)."""
        with contextlib.suppress(RedisError, OSError, EngineFailed):
            share = await self.share()
            if not game_id:
                if key is not None:
                    await share.release(key)
                return
            if key is not None:
                await share.rename(key, game_id)
            await share.set_owner(game_id, owner)

    async def _claim(self, owner: str, game_id: str, job_id: str, cost: float) -> int:
        """Count a computer move against its owner and, if long, take its game's place: the
        move's position among the owner's waiting jobs (refusals raise, with Retry-After)."""
        share = await self.share()
        position = await share.enter(owner, MOVE, job_id, cost)
        if cost > QUICK_MOVE_S:
            try:
                await share.place(game_id, owner, cost)
            except EngineBusy:
                await share.leave(owner, MOVE, job_id)
                raise
        return position

    async def check_move(self, level: int, *, game_id: str, owner: str | None = None) -> None:
        """The refusals :meth:`move` would meet now, nothing queued (see
        :meth:`~exochess.web.compute.enginepool.EngineBackend.check_move`); Redis away refuses
        nothing here (the move's own queueing keeps trying)."""
        cost = move_cost(level)
        try:
            share = await self.share()
            owner = owner or await share.owner_of_game(game_id) or owner_of(None, None, game_id)
            await share.check(owner, MOVE, cost)
            if cost > QUICK_MOVE_S:
                await share.place(game_id, owner, cost, take=False)
        except EngineBusy:
            self._counts["refused"] += 1
            raise
        except (EngineFailed, RedisError, OSError):
            return

    async def move(self, variant: str, start_fen: str, texts: list[str], level: int, seed: int,
                   clock: EngineClock | None = None, *, game_id: str = "",
                   owner: str | None = None) -> str | None:
        """Queue the computer's move in game ``game_id`` (the worker stores it, on ``clock`` if
        the game has one), charged to ``owner``; returns None.  Raises
        :class:`TooManyEngineJobs` or :class:`EngineBusy` as the pool does."""
        budget = None if clock is None else [clock.wtime_ms, clock.btime_ms, clock.winc_ms, clock.binc_ms]
        ply = len(texts)
        cost = move_cost(level)
        budget_ms = int(cost * 1000)
        if owner is None:
            with contextlib.suppress(RedisError, OSError, EngineFailed):
                owner = await (await self.share()).owner_of_game(game_id)
        owner = owner or owner_of(None, None, game_id)
        job_id = move_job_id(game_id, ply, texts)
        delay = 0.1
        # the game waits for this move: while Redis is away (a restart), keep trying
        for _attempt in range(ENQUEUE_ATTEMPTS):
            try:
                position = await self._claim(owner, game_id, job_id, cost)
            except (TooManyEngineJobs, EngineBusy):
                self._counts["refused"] += 1
                raise
            except (EngineFailed, RedisError, OSError) as exc:
                log.warning("cannot queue the engine move of game %s: %s", game_id, exc)
                await asyncio.sleep(delay)
                delay = min(2 * delay, 2.0)
                continue
            try:
                job = await (await self._redis()).enqueue_job(
                    "engine_move", game_id, ply, variant, start_fen, list(texts), level, seed,
                    budget_ms, time.time(), budget, owner, _job_id=job_id,
                    _defer_until=_at(move_start(position, cost, MOVE)),
                    _expires=JOB_EXPIRES_S,
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
                      client: str | None = None, *, owner: str | None = None) -> dict[str, Any]:
        """An analysis run by a worker, charged to ``owner`` (else the address ``client``); this
        server waits for its result."""
        await self.admit()
        movetime_ms = max(1, min(movetime_ms, self.analysis_cap_ms))
        owner = owner or owner_of(None, client or "?")
        job_id = f"analysis:{secrets.token_hex(8)}"
        try:
            position = await (await self.share()).enter(owner, ANALYSIS, job_id, movetime_ms / 1000)
        except TooManyEngineJobs:
            self._counts["refused"] += 1
            raise
        except (RedisError, OSError) as exc:
            raise EngineFailed("the engine queue is unreachable; try again") from exc
        try:
            redis = await self._redis()
            job: Job | None = await redis.enqueue_job(
                "engine_analysis", variant, start_fen, list(texts), movetime_ms, time.time(), owner,
                _job_id=job_id, _expires=JOB_EXPIRES_S,
                _defer_until=_at(move_start(position, movetime_ms / 1000, ANALYSIS)),
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
            with contextlib.suppress(RedisError, OSError, EngineFailed):
                await (await self.share()).leave(owner, ANALYSIS, job_id)

    async def drop_game(self, game_id: str) -> None:
        """``game_id`` is over: its place among the long moves is free."""
        with contextlib.suppress(RedisError, OSError, EngineFailed):
            await (await self.share()).release(game_id)

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
                      queued_at: float, clock: list[int] | None = None,
                      owner: str | None = None) -> str | None:
    """arq job: the computer's move at ``ply``, stored and announced; None if not needed (any more).

    In a game with a time control the move is searched on ``clock`` (both sides' times and
    increments when it was queued) and stored with its clock stamp, worked out here from the
    stored rows as the servers do (:mod:`exochess.web.game.clock`).  Whatever the outcome, the
    job's claims (its owner's count, its game's place) are freed at the end.
    """
    try:
        return await _engine_move(ctx, game_id, ply, variant, start_fen, texts, level, seed,
                                  budget_ms, queued_at, clock)
    finally:
        if owner is not None:
            with contextlib.suppress(RedisError, OSError):
                share: RedisShare = ctx["share"]
                await share.leave(owner, MOVE, move_job_id(game_id, ply, texts))
                await share.place_done(game_id)


async def _engine_move(ctx: dict[str, Any], game_id: str, ply: int, variant: str, start_fen: str,
                       texts: list[str], level: int, seed: int, budget_ms: int,
                       queued_at: float, clock: list[int] | None) -> str | None:
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
                          movetime_ms: int, queued_at: float, owner: str | None = None) -> dict[str, Any]:
    """arq job: an analysis (its result goes back to the server that waits for it, which frees
    its owner's claim)."""
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
        ctx["share"] = RedisShare(ctx["redis"], moves_per_owner=MOVES_PER_OWNER,
                                  analyses_per_owner=PER_CLIENT_LIMIT, budget_s=LONG_BUDGET_S)

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
