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

Analyses are jobs too (:mod:`exochess.web.game.jobanalysis`); the server that queued one waits
for its result, or, for a live analysis, follows its iterations on a pub/sub channel
(:mod:`exochess.web.game.livestream`).
So are the positions of game reports (:mod:`exochess.web.game.reports`), queued without a lead:
after every move and analysis queued before them (a running one is not stopped for a move here,
unlike on one process: it holds its worker for one position's search).

Every job is charged to its owner and ordered fairly, and the long moves have a budget of
places, as on one process; the bookkeeping lives in Redis (:mod:`exochess.web.game.jobshare`),
and the worker frees a job's claims when it ends.

A server can die between storing a player's move and queueing the computer's reply (or Redis
can lose the queue when it restarts): :mod:`exochess.web.game.sweep` mends that.

The queue has a bound, :attr:`JobQueue.limit` jobs: beyond it new computer games and analyses
are refused (:class:`~exochess.web.domain.EngineBusy`, 503 with Retry-After) while the games
already started keep their place.  Human games never wait for the engine: it runs in other
processes, usually on other machines.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
import zlib
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from arq import create_pool
from arq.connections import ArqRedis, RedisSettings
from redis.exceptions import RedisError

from exochess.web import metrics
from exochess.web.compute.enginepool import (
    ANALYSIS_CAP_MS,
    LIVE_ANALYSIS_CAP_MS,
    LIVE_LINES,
    MOVE,
    PER_CLIENT_LIMIT,
    QUICK_MOVE_S,
    EngineClock,
    PoolStats,
    move_cost,
)
from exochess.web.compute.fairshare import MOVES_PER_OWNER, owner_of
from exochess.web.domain import EngineBusy, EngineFailed, TooManyEngineJobs
from exochess.web.game.jobanalysis import AnalysisJobs
from exochess.web.game.jobshare import JOB_EXPIRES_S, RedisShare, start_at
from exochess.web.game.queuestats import QUEUE_NAME, QueueReader

log = logging.getLogger("exochess.web")

QUEUE_LIMIT = 200
"""Jobs that may wait in the queue; beyond it new computer games and analyses are refused
(the setting ``EXOCHESS_ENGINE_QUEUE_LIMIT`` sets another bound)."""
LONG_BUDGET_S = 24.0
"""Thinking time the long moves' places add up to in Redis mode (eight level-8 moves: the
workers are other machines; ``$EXOCHESS_ENGINE_LONG_BUDGET_S`` sets another)."""
ENQUEUE_ATTEMPTS = 60
"""Tries to queue a computer move while Redis is unreachable (about two minutes)."""


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

    :meth:`move` queues the job and returns None at once: the worker stores the answer.  The
    analyses are :attr:`analyses`' (:class:`~exochess.web.game.jobanalysis.AnalysisJobs`).
    """

    def __init__(
        self,
        url: str,
        *,
        limit: int = QUEUE_LIMIT,
        per_client: int = PER_CLIENT_LIMIT,
        analysis_cap_ms: int = ANALYSIS_CAP_MS,
        live_cap_ms: int = LIVE_ANALYSIS_CAP_MS,
        moves_per_owner: int = MOVES_PER_OWNER,
        long_budget_s: float = LONG_BUDGET_S,
    ) -> None:
        self.url = url
        self.limit = limit
        self.per_client = per_client
        self.moves_per_owner = moves_per_owner
        self.long_budget_s = long_budget_s
        self._pool: ArqRedis | None = None
        self._share: RedisShare | None = None
        self._counts: Counter[str] = Counter()
        self.analyses = AnalysisJobs(
            self._redis,
            self.share,
            self.admit,
            self._counts,
            analysis_cap_ms=analysis_cap_ms,
            live_cap_ms=live_cap_ms,
        )
        """Analyses, live analyses and report positions (:mod:`exochess.web.game.jobanalysis`)."""
        self.queue = QueueReader(url)
        """The queue's state as Redis holds it (:mod:`exochess.web.game.queuestats`)."""
        self.announced: Callable[[], Awaitable[None]] | None = None
        """Waits until this server's announcements so far have reached Redis (the bus's
        :meth:`~exochess.web.live.pubsub.RedisBus.drained`): a move's job is queued only
        after the note of the move it answers, or the worker's note could arrive first."""

    async def share(self) -> RedisShare:
        """The owners' bounds and the long moves' places, in Redis."""
        if self._share is None:
            self._share = RedisShare(
                await self._redis(),
                moves_per_owner=self.moves_per_owner,
                analyses_per_owner=self.per_client,
                budget_s=self.long_budget_s,
            )
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
                f" try again in {retry} s, or play a friend",
                retry_after=retry,
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
        if self.announced is not None:
            await self.announced()
        delay = 0.1
        # the game waits for this move: while Redis is away (a restart), keep trying
        for _attempt in range(ENQUEUE_ATTEMPTS):
            try:
                position = await self._claim(owner, game_id, job_id, cost)
                job = await (await self._redis()).enqueue_job(
                    "engine_move",
                    game_id,
                    ply,
                    variant,
                    start_fen,
                    list(texts),
                    level,
                    seed,
                    budget_ms,
                    time.time(),
                    budget,
                    owner,
                    _job_id=job_id,
                    _defer_until=start_at(position, cost, MOVE),
                    _expires=JOB_EXPIRES_S,
                )
            except (TooManyEngineJobs, EngineBusy):  # refused: nothing was queued
                self._counts["refused"] += 1
                raise
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

    # --- analyses: :class:`~exochess.web.game.jobanalysis.AnalysisJobs` runs them ----------

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
        """An analysis run by a worker, this server waiting for it (:meth:`AnalysisJobs.analyse`)."""
        return await self.analyses.analyse(variant, start_fen, texts, movetime_ms, client, owner=owner)

    async def check_analysis(self, owner: str) -> None:
        """The refusal an analysis for ``owner`` would meet now (:meth:`AnalysisJobs.check_analysis`)."""
        await self.analyses.check_analysis(owner)

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
    ) -> str:
        """A live analysis run by a worker, followed over pub/sub (:meth:`AnalysisJobs.analyse_live`)."""
        return await self.analyses.analyse_live(
            variant, start_fen, texts, on_info, owner=owner, multipv=multipv, movetime_ms=movetime_ms
        )

    async def report_position(
        self, variant: str, start_fen: str, texts: list[str], nodes: int, *, owner: str
    ) -> dict[str, Any]:
        """One position of a game report (:meth:`AnalysisJobs.report_position`)."""
        return await self.analyses.report_position(variant, start_fen, texts, nodes, owner=owner)

    async def idle(self) -> bool:
        """Whether the queue is empty (no move or analysis waits or runs); False while Redis is away."""
        try:
            return await self.depth() == 0
        except EngineFailed:
            return False

    async def drop_game(self, game_id: str) -> None:
        """``game_id`` is over: its place among the long moves is free."""
        with contextlib.suppress(RedisError, OSError, EngineFailed):
            await (await self.share()).release(game_id)

    def stats(self) -> PoolStats:
        """This server's own counters only (:meth:`live_stats` reads the queue)."""
        return PoolStats(
            workers=0,
            ready=0,
            running=0,
            queued_moves=self._counts["queued"],
            queued_analyses=0,
            completed=self._counts["completed"],
            cancelled=0,
            refused=self._counts["refused"],
            killed=0,
        )

    async def live_stats(self) -> PoolStats:
        """:meth:`stats` with the site's figures read from the queue
        (:meth:`QueueState.pool_stats`)."""
        return (await self.queue.state()).pool_stats(refused=self._counts["refused"])

    async def ping(self) -> bool:
        try:
            return bool(await (await self._redis()).ping())
        except (EngineFailed, RedisError, OSError):
            return False

    def shutdown(self) -> None:
        """Nothing to stop here: queued jobs stay for the workers."""

    async def aclose(self) -> None:
        self.queue.close()
        if self._pool is not None:
            with contextlib.suppress(Exception):
                await self._pool.aclose()
