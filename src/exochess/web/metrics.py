"""Prometheus metrics of a server (and of an engine worker), served on ``/metrics``.

One module owns every metric, so names and labels are defined once.  Each process counts its
own; with ``exochess serve --workers N`` (several processes behind one port) set
``$PROMETHEUS_MULTIPROC_DIR`` to an empty directory so that ``/metrics`` adds up all of them
(prometheus-client's multiprocess mode), or run one process per port (``exochess cluster``).
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

REQUESTS = Counter(
    "exochess_http_requests_total", "HTTP requests answered", ["method", "status"]
)
REQUEST_SECONDS = Histogram(
    "exochess_http_request_seconds", "Time to answer an HTTP request",
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
    "Moves stored by another process (Redis mode): played on the cached game from the message, "
    "or the game read again from the database", ["how"],
)
QUEUE_DEPTH = Gauge(
    "exochess_engine_queue_depth", "Engine jobs waiting in the queue (Redis mode)", multiprocess_mode="max"
)
ENGINE_SECONDS = Histogram(
    "exochess_engine_job_seconds", "Time from queueing an engine job to its answer being stored",
    ["kind"], buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64),
)


def exposition() -> tuple[bytes, str]:
    """The metrics as Prometheus' text format: (body, content type)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST
