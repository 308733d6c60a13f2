"""The engine queue's state, read from Redis itself (Redis mode): the same figures on every
server and every engine worker, true whenever they are read.

A process's own counters cannot say how many jobs wait: a server sees only the jobs it queued,
a worker only the ones it ran, and either misses what happened while it was away.  So the
figures are read from where arq keeps them, when ``/metrics`` or ``/api/engine`` is asked:

- the queue is arq's sorted set :data:`~exochess.web.game.jobs.QUEUE_NAME` (every job not yet
  finished, queued or running) and a job runs while its ``arq:in-progress:<id>`` key (the
  worker's lease, :mod:`exochess.web.game.worker`) exists;
- the workers alive are the members of :data:`WORKERS_KEY` whose heartbeat has not expired
  (score: the expiry, epoch milliseconds; each worker renews its own every second);
- the jobs done and their run time are counters the workers add to in :data:`DONE_KEY`.

One pipeline reads the queue, the workers and the counters, a second one the leases of the
jobs in the queue (bounded by the queue's limit).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Iterator
from typing import Any

import redis
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from redis.exceptions import RedisError

from exochess.web.compute.enginepool import PoolStats
from exochess.web.domain import EngineFailed

QUEUE_NAME = "exochess:engine"
"""arq's queue (its sorted set) of engine jobs."""
IN_PROGRESS_PREFIX = "arq:in-progress:"
"""arq's key marking a job as taken by a worker (:mod:`arq.constants`)."""
WORKERS_KEY = "exochess:engine:workers"
"""Sorted set: each live worker's id, scored with the expiry of its heartbeat (epoch ms)."""
DONE_KEY = "exochess:engine:done"
"""Hash: ``<kind>`` jobs finished by all workers, ``<kind>:seconds`` their run time summed."""
KINDS = ("move", "analysis")


def job_kind(job_id: str) -> str:
    """``move`` or ``analysis`` from a job's id (a move's id starts with ``move:``)."""
    return "move" if job_id.startswith("move:") else "analysis"


@dataclasses.dataclass(frozen=True)
class QueueState:
    """The engine queue at one moment."""

    waiting: int
    """Jobs queued and not taken by a worker."""
    running: int
    """Jobs a worker holds (its lease alive)."""
    workers: int
    """Workers whose heartbeat is alive."""
    oldest_wait_s: float
    """How long the oldest waiting job has waited (0 when none waits)."""
    done: dict[str, tuple[int, float]]
    """Per kind, the jobs finished by all workers and the seconds they ran."""

    def pool_stats(self, refused: int) -> PoolStats:
        """The site's figures as the pool gives them: workers alive (all ready: a worker
        heartbeats once it polls), jobs running and waiting, jobs done; ``refused`` is the
        server's own count."""
        return PoolStats(
            workers=self.workers,
            ready=self.workers,
            running=self.running,
            queued_moves=self.waiting,
            queued_analyses=0,
            completed=sum(n for n, _s in self.done.values()),
            cancelled=0,
            refused=refused,
            killed=0,
        )


def read_state(client: redis.Redis, now_ms: int | None = None) -> QueueState:
    """The queue's state now (raises :class:`RedisError` or :class:`OSError` if Redis is away)."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    with client.pipeline(transaction=False) as pipe:
        pipe.zrange(QUEUE_NAME, 0, -1, withscores=True)
        pipe.zcount(WORKERS_KEY, now_ms, "+inf")
        pipe.hgetall(DONE_KEY)
        queued, workers, done_raw = pipe.execute()
    ids = [member for member, _score in queued]
    leased: list[Any] = []
    if ids:
        with client.pipeline(transaction=False) as pipe:
            for job_id in ids:
                pipe.exists(IN_PROGRESS_PREFIX + job_id.decode())
            leased = pipe.execute()
    waiting_scores = [score for (_member, score), held in zip(queued, leased, strict=True) if not held]
    # a job's score is when it may start (its queueing time, or later for a deferred retry)
    oldest = max(0.0, (now_ms - min(waiting_scores)) / 1000) if waiting_scores else 0.0
    done: dict[str, tuple[int, float]] = {}
    fields = {key.decode(): value for key, value in done_raw.items()}
    for kind in KINDS:
        done[kind] = (int(fields.get(kind, 0)), float(fields.get(f"{kind}:seconds", 0.0)))
    return QueueState(
        waiting=len(waiting_scores),
        running=sum(1 for held in leased if held),
        workers=int(workers),
        oldest_wait_s=oldest,
        done=done,
    )


def sync_client(url: str) -> redis.Redis:
    """A blocking client for :func:`read_state` that fails fast while Redis is away (a scrape
    must answer, saying the queue is unreadable, rather than hang)."""
    client: redis.Redis = redis.Redis.from_url(url, socket_connect_timeout=1.0, socket_timeout=1.0)
    return client


class QueueReader:
    """A server's reads of the queue's state (:func:`read_state` on its own blocking client, run
    in a thread)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._client: redis.Redis | None = None

    async def state(self) -> QueueState:
        """The queue as Redis holds it now; raises :class:`EngineFailed` while Redis is away."""
        if self._client is None:
            self._client = sync_client(self.url)
        try:
            return await asyncio.to_thread(read_state, self._client)
        except (RedisError, OSError) as exc:
            raise EngineFailed("the engine queue is unreachable; try again") from exc

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


class QueueCollector:
    """Prometheus collector of :class:`QueueState`, read from Redis at each scrape.

    Registered once per process in Redis mode (servers and workers alike); the scrape runs in
    a thread (the servers' ``/metrics`` hands it to one), never on an event loop."""

    def __init__(self, url: str) -> None:
        self.client = sync_client(url)

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily(
            "exochess_engine_queue_up",
            "Redis mode: 1 if the engine queue could be read for this scrape, else 0",
        )
        try:
            state = read_state(self.client)
        except (RedisError, OSError):
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield GaugeMetricFamily(
            "exochess_engine_queue_depth",
            "Engine jobs waiting in the queue, not yet taken by a worker (Redis mode)",
            value=state.waiting,
        )
        yield GaugeMetricFamily(
            "exochess_engine_jobs_running",
            "Engine jobs a worker is running now (Redis mode)",
            value=state.running,
        )
        yield GaugeMetricFamily(
            "exochess_engine_workers_alive",
            "Engine workers whose heartbeat is alive (Redis mode)",
            value=state.workers,
        )
        yield GaugeMetricFamily(
            "exochess_engine_oldest_job_wait_seconds",
            "How long the oldest waiting engine job has waited (Redis mode)",
            value=state.oldest_wait_s,
        )
        count = CounterMetricFamily(
            "exochess_engine_jobs_done",
            "Engine jobs finished by all workers of the site, by kind (Redis mode)",
            labels=["kind"],
        )
        seconds = CounterMetricFamily(
            "exochess_engine_job_run_seconds",
            "Seconds engine jobs ran in the workers of the site, by kind "
            "(Redis mode; divided by exochess_engine_jobs_done_total: the "
            "mean job time)",
            labels=["kind"],
        )
        for kind, (n, s) in state.done.items():
            count.add_metric([kind], n)
            seconds.add_metric([kind], s)
        yield count
        yield seconds

    def close(self) -> None:
        self.client.close()
