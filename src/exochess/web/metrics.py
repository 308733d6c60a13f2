"""Prometheus metrics of a server (and of an engine worker), served on ``/metrics``.

One module owns every metric, so names and labels are defined once.  Each process counts its
own: run one process per port (``exochess cluster``) and scrape each; a deployment that puts
several processes behind one port may set ``$PROMETHEUS_MULTIPROC_DIR`` to an empty directory
so that ``/metrics`` adds up all of them (prometheus-client's multiprocess mode).
"""

from __future__ import annotations

import gc
import os
import threading
import time
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.registry import Collector

REQUESTS = Counter("exochess_http_requests_total", "HTTP requests answered", ["method", "status"])
REQUEST_SECONDS = Histogram(
    "exochess_http_request_seconds",
    "Time to answer an HTTP request",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
ERRORS = Counter(
    "exochess_errors_total", "Errors: 5xx answers, lost Redis messages, failed engine jobs", ["kind"]
)
WEBSOCKETS = Gauge(
    "exochess_websocket_clients", "Websocket connections open on this process", multiprocess_mode="livesum"
)
MOVES = Counter("exochess_moves_stored_total", "Moves stored (players' and the computer's)", ["by"])
REMOTE_MOVES = Counter(
    "exochess_remote_moves_total",
    "Moves stored by another process (Redis mode), by how the cached game took them: applied "
    "(played from the message), known (already read), busy (in use), stale (to be read again "
    "already) or reloaded (it had missed a move or disagreed: read again)",
    ["how"],
)
PEER_CHANGES = Counter(
    "exochess_peer_changes_total",
    "Times this server saw the set of its peer servers change (Redis mode); each time it reads "
    "its cached games again",
)
# The engine queue's depth, running jobs and live workers are read from Redis at each scrape
# (exochess.web.game.queuestats, added with add_collector): a process's own count is wrong as
# soon as another process queues or runs a job.
ENGINE_SECONDS = Histogram(
    "exochess_engine_job_seconds",
    "Time from queueing an engine job to its answer being stored",
    ["kind"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64),
)

_WAIT_BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5)
# Where a request's time goes besides its own CPU: waiting for a worker thread (the database's
# single SQLite thread, the game-views pool), and waiting for the event loop once the work is
# done (a busy loop or the GIL held elsewhere).  ``bench/web.py --attack`` reads them per phase.
WORK_WAIT = Histogram(
    "exochess_work_wait_seconds",
    "Time a job waited in its pool's queue before a thread took it",
    ["pool"],
    buckets=_WAIT_BUCKETS,
)
WORK_RUN = Histogram(
    "exochess_work_run_seconds",
    "Time a job ran in its worker thread",
    ["pool"],
    buckets=_WAIT_BUCKETS,
)
WORK_RESUME = Histogram(
    "exochess_work_resume_seconds",
    "Time from a job's end in its thread to the waiting coroutine running again (event loop delay)",
    ["pool"],
    buckets=_WAIT_BUCKETS,
)
LOOP_LAG = Histogram(
    "exochess_event_loop_lag_seconds",
    "How late a periodic timer on the event loop ran",
    buckets=_WAIT_BUCKETS,
)
MOVE_SECONDS = Histogram(
    "exochess_move_seconds",
    "Time from a player's move arriving to its answer, by stage",
    ["stage"],
    buckets=_WAIT_BUCKETS,
)
MOVES_PER_STATEMENT = Histogram(
    "exochess_moves_per_statement",
    "PostgreSQL: moves stored by one statement (moves ready in several database threads at once share one)",
    buckets=(1, 2, 4, 8, 16, 32, 64),
)
BUS_LAG = Histogram(
    "exochess_bus_lag_seconds",
    "Redis mode: time from another process publishing an envelope to this one starting to handle it "
    "(the publisher's wall clock against this one's: meaningful between processes of one machine)",
    buckets=_WAIT_BUCKETS,
)
BUS_SEND = Histogram(
    "exochess_bus_send_seconds",
    "Redis mode: an envelope's way out of this process, by stage: 'wait' from being queued to "
    "being written to Redis's connection",
    ["stage"],
    buckets=_WAIT_BUCKETS,
)
BUS_HANDLE = Histogram(
    "exochess_bus_handle_seconds",
    "Redis mode: time this process took to handle one envelope from another (the subscriber "
    "takes the next one after it)",
    buckets=_WAIT_BUCKETS,
)

GC_PAUSE = Histogram(
    "exochess_gc_pause_seconds",
    "Time the garbage collector stopped the process, by generation",
    ["generation"],
    buckets=_WAIT_BUCKETS,
)
# The pause above is wall-clock time: it includes the time the collecting thread waited for a
# core, and for the GIL while finalizers ran and another thread took it.  The CPU time the
# collecting thread itself spent tells the collector's own cost from those waits.
GC_CPU = Histogram(
    "exochess_gc_cpu_seconds",
    "CPU time of the thread that ran a garbage collection, by generation",
    ["generation"],
    buckets=(0.0005, *_WAIT_BUCKETS),
)
GC_THREAD = Counter(
    "exochess_gc_collections_total",
    "Garbage collections by the thread whose allocation started them (the event loop's or a worker)",
    ["generation", "thread"],
)
_gc_started = 0.0
_gc_cpu_started = 0.0
_loop_thread: int | None = None


def _time_gc(phase: str, info: dict[str, Any]) -> None:
    global _gc_started, _gc_cpu_started
    if phase == "start":
        _gc_started = time.perf_counter()
        _gc_cpu_started = time.thread_time()
    elif _gc_started:
        generation = str(info.get("generation"))
        GC_PAUSE.labels(generation).observe(time.perf_counter() - _gc_started)
        GC_CPU.labels(generation).observe(time.thread_time() - _gc_cpu_started)
        thread = "loop" if threading.get_ident() == _loop_thread else "worker"
        GC_THREAD.labels(generation, thread).inc()


def time_garbage_collection() -> None:
    """Time every garbage collection of this process (a full one over many live games can
    hold the event loop as long as a burst of requests); once per process.  Called on the
    event loop's thread: collections are counted as the loop's or a worker thread's."""
    global _loop_thread
    _loop_thread = threading.get_ident()
    if _time_gc not in gc.callbacks:
        gc.callbacks.append(_time_gc)


_shared: list[Collector] = []
"""Collectors of figures shared by the whole site (read from Redis at each scrape)."""


def add_collector(collector: Collector) -> None:
    """Expose ``collector``'s metrics too, until :func:`remove_collector` (its ``collect`` may
    block on the network: :func:`exposition` is for a thread, not an event loop)."""
    REGISTRY.register(collector)
    _shared.append(collector)


def remove_collector(collector: Collector) -> None:
    """Stop exposing ``collector`` (a server's app shutting down: another may be made after)."""
    if collector in _shared:
        _shared.remove(collector)
        REGISTRY.unregister(collector)


def exposition() -> tuple[bytes, str]:
    """The metrics as Prometheus' text format: (body, content type).  May block on Redis (the
    shared collectors): call it from a thread."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        for collector in _shared:  # the site's figures once, not added up over the processes
            registry.register(collector)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST
