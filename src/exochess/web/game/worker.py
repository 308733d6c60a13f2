"""``exochess worker``: the arq worker that runs the engine's jobs (:mod:`exochess.web.game.jobs`),
made to outlive its services and to lose no job with itself.

- **Outages of any length.**  arq's own worker exits on the first Redis error of its polling
  loop (a Redis restart of a second or two was enough).  :class:`EngineWorker` catches it,
  says once in its log what it waits for, tries again with a backoff (at most
  :data:`RETRY_MAX_S` apart) and goes on with the same pool and the jobs it was running; a
  worker started before Redis waits for it the same way.  The database is probed every
  :data:`PROBE_S`; a job that cannot reach it is deferred and tried again
  (:func:`~exochess.web.game.jobs.engine_move`).  :class:`Health` holds what it waits for,
  which ``/readyz`` on the worker's ``--metrics-port`` answers and its log tells.
- **A short lease instead of a long timeout.**  arq marks a job taken with an
  ``in-progress`` key that expires after the job timeout + 10 s: a worker killed mid-job left
  its computer move waiting over a minute.  Here the key lives :data:`LEASE_S` and the worker
  renews it every :data:`HEARTBEAT_S` while the job runs, so a dead worker's job is taken
  again within a few seconds (by another worker, or this one restarted).  Storing stays
  exactly once: a second run finds the move stored, or loses the guarded update.
- **Heartbeats and counters in Redis** for :mod:`exochess.web.game.queuestats`: each worker's
  heartbeat in :data:`~exochess.web.game.queuestats.WORKERS_KEY`, each finished job's run time
  in :data:`~exochess.web.game.queuestats.DONE_KEY`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from arq import create_pool
from arq.connections import RedisSettings
from arq.worker import Worker, func
from prometheus_client import make_wsgi_app
from redis.exceptions import RedisError
from sqlalchemy import text as sql_text

from exochess.web.game.jobs import JOB_TIMEOUT_S, engine_analysis, engine_move
from exochess.web.game.queuestats import (
    DONE_KEY,
    IN_PROGRESS_PREFIX,
    QUEUE_NAME,
    WORKERS_KEY,
    job_kind,
)
from exochess.web.live.pubsub import RedisBus
from exochess.web.storage.store import Storage

log = logging.getLogger("exochess.worker")

LEASE_S = 5.0
"""How long a job stays taken without its worker renewing it: a dead worker's job is run again
this long after its last heartbeat, at most."""
HEARTBEAT_S = 1.0
"""How often a worker renews its leases and its heartbeat."""
WORKER_TTL_S = 3.0
"""A worker counts as alive this long after its last heartbeat."""
RETRY_MAX_S = 5.0
"""Longest wait between two attempts to reach Redis again."""
PROBE_S = 2.0
"""How often the worker checks that the database answers."""
MOVE_TRIES = 20
"""Runs of one computer-move job before arq gives it up (a lease lost in an outage, a database
away: each counts; the servers' sweep queues the move again after that)."""


class Health:
    """What the worker waits for (``"redis"``, ``"database"``), for its log and ``/readyz``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, tuple[str, float]] = {}
        """Per service: why it is unreachable and since when (``time.monotonic``)."""

    def down(self, service: str, where: str, exc: BaseException) -> None:
        """``service`` at ``where`` did not answer; logged once per outage."""
        with self._lock:
            first = service not in self._waiting
            if first:
                self._waiting[service] = (f"{type(exc).__name__}: {exc}", time.monotonic())
        if first:
            log.warning("engine worker: %s at %s is unreachable (%s); waiting for it, jobs kept",
                        service, where, exc)

    def up(self, service: str) -> None:
        """``service`` answers again."""
        with self._lock:
            gone = self._waiting.pop(service, None)
        if gone is not None:
            log.warning("engine worker: %s is back after %.1f s", service, time.monotonic() - gone[1])

    def checks(self) -> dict[str, str]:
        """Per service, ``"ok"`` or what the worker waits for."""
        with self._lock:
            waiting = dict(self._waiting)
        now = time.monotonic()
        return {service: (f"waiting for {service} for {now - waiting[service][1]:.0f} s: "
                          f"{waiting[service][0]}" if service in waiting else "ok")
                for service in ("redis", "database")}


class EngineWorker(Worker):
    """arq's worker with reconnection, short renewed leases, heartbeats and site-wide counters
    (see the module docstring)."""

    def __init__(self, *args: Any, health: Health, redis_url: str, lease_s: float = LEASE_S,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.health = health
        self.redis_url = redis_url
        self.worker_id = secrets.token_hex(6)
        self.lease_s = lease_s
        # arq's own claim lasts the job timeout + 10 s; ours is renewed while the job runs
        self.in_progress_timeout_s = lease_s
        self._next_beat = 0.0
        self._started: dict[str, float] = {}
        self._delay = 0.1

    async def main(self) -> None:
        """arq's main loop, entered again after Redis was away at start (or came back empty)."""
        while True:
            try:
                if self._pool is None:
                    settings = RedisSettings.from_dsn(self.redis_url)
                    settings.conn_timeout, settings.conn_retries = 1, 0
                    self._pool = await create_pool(settings, default_queue_name=self.queue_name)
                await super().main()
                return
            except (RedisError, OSError, TimeoutError) as exc:
                await self._redis_lost(exc)

    async def _redis_lost(self, exc: BaseException) -> None:
        self.health.down("redis", self.redis_url, exc)
        await asyncio.sleep(self._delay)
        self._delay = min(2 * self._delay, RETRY_MAX_S)

    async def _poll_iteration(self) -> None:
        # arq's loop ends on the first Redis error; here the worker waits and polls again,
        # its running jobs untouched (what they store goes to the database, not Redis)
        try:
            await super()._poll_iteration()
        except (RedisError, OSError, TimeoutError) as exc:
            await self._redis_lost(exc)
            return
        self._delay = 0.1
        self.health.up("redis")

    async def heart_beat(self) -> None:
        """arq's health key, then (every :data:`HEARTBEAT_S`) the leases of the jobs running
        here and this worker's heartbeat."""
        await super().heart_beat()
        now = time.monotonic()
        if now < self._next_beat:
            return
        self._next_beat = now + HEARTBEAT_S
        lease_ms = int(self.lease_s * 1000)
        wall_ms = int(time.time() * 1000)
        async with self.pool.pipeline(transaction=False) as pipe:
            for job_id, task in self.tasks.items():
                if not task.done():
                    pipe.pexpire(IN_PROGRESS_PREFIX + job_id, lease_ms)
            pipe.zadd(WORKERS_KEY, {self.worker_id: wall_ms + int(WORKER_TTL_S * 1000)})
            pipe.zremrangebyscore(WORKERS_KEY, "-inf", wall_ms - 60_000)  # long-dead workers
            await pipe.execute()

    async def job_started(self, ctx: dict[str, Any]) -> None:
        self._started[ctx["job_id"]] = time.monotonic()

    async def job_ended(self, ctx: dict[str, Any]) -> None:
        started = self._started.pop(ctx["job_id"], None)
        if started is None:
            return
        kind = job_kind(ctx["job_id"])
        with contextlib.suppress(RedisError, OSError, TimeoutError):  # a figure, not the job
            async with self.pool.pipeline(transaction=False) as pipe:
                pipe.hincrby(DONE_KEY, kind, 1)
                pipe.hincrbyfloat(DONE_KEY, f"{kind}:seconds", time.monotonic() - started)
                await pipe.execute()

    async def close(self) -> None:
        """arq's close, this worker's heartbeat removed (it no longer counts as alive)."""
        if self._pool is not None:
            with contextlib.suppress(RedisError, OSError, TimeoutError):
                await self.pool.zrem(WORKERS_KEY, self.worker_id)
        with contextlib.suppress(RedisError, OSError, TimeoutError):
            await super().close()


async def _probe_database(storage: Storage, health: Health, where: str) -> None:
    def select_one() -> None:
        with storage.engine.connect() as conn:
            conn.execute(sql_text("SELECT 1"))

    while True:
        try:
            await asyncio.get_running_loop().run_in_executor(None, select_one)
        except Exception as exc:  # any failure means "not reachable now"
            health.down("database", where, exc)
        else:
            health.up("database")
        await asyncio.sleep(PROBE_S)


def make_worker(redis_url: str, database_url: str, *, jobs: int = 1,
                job_timeout_s: float = JOB_TIMEOUT_S, health: Health | None = None,
                lease_s: float = LEASE_S) -> EngineWorker:
    """A worker running the engine's jobs, ``jobs`` at a time (one per core is right)."""
    health = health if health is not None else Health()
    shown = database_url.rpartition("@")[2]  # the host and database, not a password

    async def startup(ctx: dict[str, Any]) -> None:
        if "storage" in ctx:  # entered again after Redis came back: everything is there
            return
        ctx["storage"] = storage = Storage(database_url)
        ctx["cpu"] = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="engine")
        ctx["bus"] = RedisBus(redis_url, origin="worker")
        ctx["probe"] = asyncio.create_task(_probe_database(storage, health, shown), name="db-probe")

    async def shutdown(ctx: dict[str, Any]) -> None:
        ctx["probe"].cancel()
        ctx["cpu"].shutdown(wait=True)
        await ctx["bus"].close()
        ctx["storage"].close()

    worker: EngineWorker

    async def on_job_start(ctx: dict[str, Any]) -> None:
        await worker.job_started(ctx)

    async def on_job_end(ctx: dict[str, Any]) -> None:
        await worker.job_ended(ctx)

    worker = EngineWorker(
        functions=[
            # results of moves are not kept: the answer is the stored move; the id is then free
            # again for a retry after a takeback
            func(engine_move, name="engine_move", keep_result=0, max_tries=MOVE_TRIES),
            func(engine_analysis, name="engine_analysis", keep_result=60, max_tries=2),
        ],
        redis_settings=RedisSettings.from_dsn(redis_url),
        queue_name=QUEUE_NAME,
        max_jobs=jobs,
        job_timeout=job_timeout_s,
        poll_delay=0.05,
        on_startup=startup,
        on_shutdown=shutdown,
        on_job_start=on_job_start,
        on_job_end=on_job_end,
        handle_signals=True,
        health=health,
        redis_url=redis_url,
        lease_s=lease_s,
    )
    return worker


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes are not worth a log line each."""


def serve_operations(port: int, health: Health, host: str = "127.0.0.1") -> WSGIServer:
    """Serve ``/metrics`` (Prometheus, the engine queue read from Redis at each scrape) and
    ``/readyz`` (200 when Redis and the database answer, else 503 naming what the worker waits
    for) on ``host``:``port``, in a daemon thread."""
    metrics_app = make_wsgi_app()

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == "/readyz":
            checks = health.checks()
            ready = all(value == "ok" for value in checks.values())
            body = json.dumps({"status": "ok" if ready else "unavailable", "checks": checks}).encode()
            start_response("200 OK" if ready else "503 Service Unavailable",
                           [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        if environ.get("PATH_INFO") == "/healthz":
            start_response("200 OK", [("Content-Type", "application/json")])
            return [b'{"status":"ok"}']
        result: Iterable[bytes] = metrics_app(environ, start_response)
        return result

    server = make_server(host, port, app, _ThreadingWSGIServer, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True, name="worker-operations").start()
    return server
