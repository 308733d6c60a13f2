"""The analysis side of the engine job queue (Redis mode): analyses, live analyses and the
positions of game reports, queued for the ``exochess worker`` processes while this server waits
for the result (or, for a live analysis, follows its iterations over pub/sub:
:mod:`exochess.web.game.livestream`).

:class:`~exochess.web.game.jobs.JobQueue` is the engine backend a server sees; it hands these
jobs to :class:`AnalysisJobs` and keeps the computer's moves, the queue's bound and the long
moves' places itself.  An analysis is charged to its owner like a move (the bound per owner in
Redis, :mod:`exochess.web.game.jobshare`) and queued after every computer move; a report's
position is queued with no lead at all, after every move and analysis queued before it.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from arq.connections import ArqRedis
from arq.jobs import Job
from redis.exceptions import RedisError

from exochess.engine import MAX_MULTIPV
from exochess.web import metrics
from exochess.web.compute.enginepool import ANALYSIS, LIVE_LINES, REPORT_NODES_PER_S
from exochess.web.compute.fairshare import owner_of
from exochess.web.domain import EngineBusy, EngineFailed, TooManyEngineJobs
from exochess.web.game.jobshare import JOB_EXPIRES_S, JOB_TIMEOUT_S, RedisShare, start_at
from exochess.web.game.livestream import JOB_PREFIX, LiveFollower, channel_of, request_stop

RESULT_POLL_S = 0.05
"""How often a server waiting for an analysis's result looks for it in Redis."""


class AnalysisJobs:
    """Analyses run by the workers, for :class:`~exochess.web.game.jobs.JobQueue`.

    Ports: the queue's connection (``redis``), the owners' bookkeeping in Redis (``share``),
    the queue's bound (``admit``: raises :class:`EngineBusy` when the queue is full) and the
    queue's counters (``counts``: ``refused`` and ``completed`` are counted here).
    """

    def __init__(
        self,
        redis: Callable[[], Awaitable[ArqRedis]],
        share: Callable[[], Awaitable[RedisShare]],
        admit: Callable[[], Awaitable[None]],
        counts: Counter[str],
        *,
        analysis_cap_ms: int,
        live_cap_ms: int,
    ) -> None:
        self.redis = redis
        self.share = share
        self.admit = admit
        self.counts = counts
        self.analysis_cap_ms = analysis_cap_ms
        """Longest thinking time of an analysis (:meth:`analyse`)."""
        self.live_cap_ms = live_cap_ms
        """Longest thinking time of a live analysis (:meth:`analyse_live`)."""

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
        """An analysis run by a worker, charged to ``owner`` (else the address ``client``); this
        server waits for its result."""
        await self.admit()
        movetime_ms = max(1, min(movetime_ms, self.analysis_cap_ms))
        owner = owner or owner_of(None, client or "?")
        job_id = f"analysis:{secrets.token_hex(8)}"
        try:
            position = await (await self.share()).enter(owner, ANALYSIS, job_id, movetime_ms / 1000)
        except TooManyEngineJobs:
            self.counts["refused"] += 1
            raise
        except (RedisError, OSError) as exc:
            raise EngineFailed("the engine queue is unreachable; try again") from exc
        try:
            redis = await self.redis()
            job: Job | None = await redis.enqueue_job(
                "engine_analysis",
                variant,
                start_fen,
                list(texts),
                movetime_ms,
                time.time(),
                owner,
                _job_id=job_id,
                _expires=JOB_EXPIRES_S,
                _defer_until=start_at(position, movetime_ms / 1000, ANALYSIS),
            )
            assert job is not None  # a fresh random id is never taken
            result: dict[str, Any] = await job.result(
                timeout=movetime_ms / 1000 + JOB_TIMEOUT_S, poll_delay=RESULT_POLL_S
            )
            self.counts["completed"] += 1
            return result
        except (RedisError, OSError, TimeoutError) as exc:
            metrics.ERRORS.labels("engine").inc()
            raise EngineFailed("the engine did not answer; try again") from exc
        finally:
            with contextlib.suppress(RedisError, OSError, EngineFailed):
                await (await self.share()).leave(owner, ANALYSIS, job_id)

    async def check_analysis(self, owner: str) -> None:
        """Raise the refusal (:class:`TooManyEngineJobs`, :class:`EngineBusy`) that an analysis
        for ``owner`` would meet now, queueing nothing."""
        await self.admit()
        try:
            await (await self.share()).check(owner, ANALYSIS, self.live_cap_ms / 1000)
        except TooManyEngineJobs:
            self.counts["refused"] += 1
            raise
        except (RedisError, OSError) as exc:
            raise EngineFailed("the engine queue is unreachable; try again") from exc

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
        """A live analysis run by a worker, each completed iteration sent to ``on_info`` as it
        comes over Redis pub/sub (:mod:`exochess.web.game.livestream`), for at most
        :attr:`live_cap_ms`; returns why it ended (``finished`` or ``stopped``).  Charged to
        ``owner`` like :meth:`analyse`; cancelling the awaiting task stops the worker's search
        and returns once the worker has confirmed it (or after a short wait)."""
        await self.admit()
        movetime_ms = max(1, min(movetime_ms or self.live_cap_ms, self.live_cap_ms))
        multipv = max(1, min(multipv, MAX_MULTIPV))
        stream_id = secrets.token_hex(8)
        job_id = JOB_PREFIX + stream_id
        redis: ArqRedis | None = None
        pubsub = None
        follower: LiveFollower | None = None
        try:
            try:
                position = await (await self.share()).enter(owner, ANALYSIS, job_id, movetime_ms / 1000)
            except TooManyEngineJobs:
                self.counts["refused"] += 1
                raise
            redis = await self.redis()
            pubsub = redis.pubsub()
            # subscribed before the job is queued: none of its updates can be missed
            await pubsub.subscribe(channel_of(stream_id))
            follower = LiveFollower(pubsub, movetime_ms)
            job: Job | None = await redis.enqueue_job(
                "engine_live_analysis",
                stream_id,
                variant,
                start_fen,
                list(texts),
                movetime_ms,
                multipv,
                time.time(),
                owner,
                _job_id=job_id,
                _expires=JOB_EXPIRES_S,
                _defer_until=start_at(position, movetime_ms / 1000, ANALYSIS),
            )
            assert job is not None  # a fresh random id is never taken
            reason = await follower.follow(on_info)
            self.counts["completed"] += 1
            return reason
        except asyncio.CancelledError:
            # stopped by its viewer: the worker's search stops, and the viewer's next start
            # finds the worker free once it says so
            if redis is not None:
                with contextlib.suppress(RedisError, OSError):
                    await request_stop(redis, stream_id, movetime_ms / 1000 + JOB_TIMEOUT_S)
                    if follower is not None:
                        await follower.wait_stopped()
            raise
        except (EngineBusy, EngineFailed):
            if redis is not None:  # given up: a worker that takes it later skips it
                with contextlib.suppress(RedisError, OSError):
                    await request_stop(redis, stream_id, movetime_ms / 1000 + JOB_TIMEOUT_S)
            raise
        except (RedisError, OSError) as exc:
            metrics.ERRORS.labels("engine").inc()
            raise EngineFailed("the engine did not answer; try again") from exc
        finally:
            if pubsub is not None:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
            with contextlib.suppress(RedisError, OSError, EngineFailed):
                await (await self.share()).leave(owner, ANALYSIS, job_id)

    async def report_position(
        self, variant: str, start_fen: str, texts: list[str], nodes: int, *, owner: str
    ) -> dict[str, Any]:
        """One position of a game report, run by a worker after the moves and analyses queued
        before it (no lead: see the module docstring); this server waits for its result."""
        job_id = f"report:{secrets.token_hex(8)}"
        budget_s = max(1, nodes) / REPORT_NODES_PER_S
        try:
            redis = await self.redis()
            job: Job | None = await redis.enqueue_job(
                "engine_report_position",
                variant,
                start_fen,
                list(texts),
                nodes,
                time.time(),
                _job_id=job_id,
                _expires=JOB_EXPIRES_S,
            )
            assert job is not None  # a fresh random id is never taken
            result: dict[str, Any] = await job.result(
                timeout=budget_s + JOB_TIMEOUT_S, poll_delay=RESULT_POLL_S
            )
        except (RedisError, OSError, TimeoutError) as exc:
            metrics.ERRORS.labels("engine").inc()
            raise EngineFailed("the engine did not answer; try again") from exc
        self.counts["completed"] += 1
        return result
