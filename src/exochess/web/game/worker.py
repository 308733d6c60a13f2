"""The engine worker's machinery (``exochess worker``; its jobs and
:func:`~exochess.web.game.workerjobs.make_worker` are in :mod:`exochess.web.game.workerjobs`): arq's worker
made to outlive its services and to lose no job with itself.

- **Outages of any length.**  arq's own worker exits on the first Redis error of its polling
  loop (a Redis restart of a second or two was enough).  :class:`EngineWorker` catches it,
  says once in its log what it waits for, tries again with a backoff (at most
  :data:`RETRY_MAX_S` apart) and goes on with the same pool and the jobs it was running; a
  worker started before Redis waits for it the same way.  The database is probed every
  :data:`PROBE_S` (:func:`watch_database`); a computer move that cannot reach it is deferred
  and tried again (:func:`retry_on_database_outage`).  :class:`Health` holds what it waits for,
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
import dataclasses
import functools
import json
import logging
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from socketserver import ThreadingMixIn
from typing import Any, cast
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from arq import create_pool
from arq.connections import RedisSettings
from arq.typing import WorkerCoroutine
from arq.worker import Retry, Worker
from prometheus_client import make_wsgi_app
from redis.exceptions import RedisError
from sqlalchemy import text as sql_text
from sqlalchemy.exc import OperationalError

from exochess.web.game.queuestats import (
    DONE_KEY,
    IN_PROGRESS_PREFIX,
    WORKERS_KEY,
    job_kind,
)
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
            log.warning(
                "engine worker: %s at %s is unreachable (%s); waiting for it, jobs kept", service, where, exc
            )

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
        return {
            service: (
                f"waiting for {service} for {now - waiting[service][1]:.0f} s: {waiting[service][0]}"
                if service in waiting
                else "ok"
            )
            for service in ("redis", "database")
        }


class EngineWorker(Worker):
    """arq's worker with reconnection, short renewed leases, heartbeats and site-wide counters
    (see the module docstring)."""

    def __init__(self, *args: Any, health: Health, lease_s: float = LEASE_S, **kwargs: Any) -> None:
        super().__init__(*args, on_job_start=self._job_started, on_job_end=self._job_ended, **kwargs)
        self.health = health
        settings = self.redis_settings or RedisSettings()
        # fail fast, then wait here with a backoff (arq's own retries end in an exit)
        self._settings = dataclasses.replace(settings, conn_timeout=1, conn_retries=0)
        self.redis_where = f"{settings.host}:{settings.port}"
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
                    self._pool = await create_pool(self._settings, default_queue_name=self.queue_name)
                await super().main()
                return
            except (RedisError, OSError, TimeoutError) as exc:
                await self._redis_lost(exc)

    async def _redis_lost(self, exc: BaseException) -> None:
        self.health.down("redis", self.redis_where, exc)
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

    async def _job_started(self, ctx: dict[str, Any]) -> None:
        self._started[ctx["job_id"]] = time.monotonic()

    async def _job_ended(self, ctx: dict[str, Any]) -> None:
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


def watch_database(storage: Storage, health: Health) -> asyncio.Task[None]:
    """Check every :data:`PROBE_S` that the database answers, telling ``health`` (a task of
    the running event loop; cancel it to stop)."""
    where = storage.url.rpartition("@")[2]  # the host and database, not a password
    return asyncio.create_task(_probe_database(storage, health, where), name="db-probe")


def retry_on_database_outage(job: Callable[..., Awaitable[Any]]) -> WorkerCoroutine:
    """``job`` run again a little later (arq's :class:`Retry`, up to the function's tries)
    when the database is away, instead of failing for good."""

    @functools.wraps(job)
    async def run(ctx: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return await job(ctx, *args, **kwargs)
        except OperationalError as exc:
            log.warning("engine job %s waits for the database: %s", ctx.get("job_id"), exc.orig)
            raise Retry(defer=min(5.0, 0.5 * ctx.get("job_try", 1))) from exc

    return cast(WorkerCoroutine, run)


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
            start_response(
                "200 OK" if ready else "503 Service Unavailable",
                [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
            )
            return [body]
        if environ.get("PATH_INFO") == "/healthz":
            start_response("200 OK", [("Content-Type", "application/json")])
            return [b'{"status":"ok"}']
        result: Iterable[bytes] = metrics_app(environ, start_response)
        return result

    server = make_server(host, port, app, _ThreadingWSGIServer, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True, name="worker-operations").start()
    return server
