"""Operations endpoints: ``/healthz`` (the process runs), ``/readyz`` (it can serve: database
and, in Redis mode, Redis answer) and ``/metrics`` (Prometheus)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy import text

from exochess.web import metrics
from exochess.web.domain import GameServiceError
from exochess.web.http.deps import Service
from exochess.web.storage.store import Storage

router = APIRouter(include_in_schema=False)


def _select_one(storage: Storage) -> None:
    with storage.engine.connect() as conn:
        conn.execute(text("SELECT 1"))


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """Alive: the event loop answers (a load balancer restarts the process otherwise)."""
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(request: Request, service: Service) -> JSONResponse:
    """Ready for traffic: 200 when every service it needs answers, else 503 naming the missing."""
    checks: dict[str, Any] = {}
    try:
        await service.db(_select_one, service.storage)
        checks["database"] = "ok"
    except GameServiceError as exc:
        checks["database"] = exc.message
    bus = getattr(request.app.state, "bus", None)
    if bus is not None:
        checks["redis"] = "ok" if await bus.ping() else "unreachable"
        checks["subscribed"] = "ok" if bus.subscribed.is_set() else "not subscribed"
    if service.closed:
        checks["server"] = "shutting down"
    ready = all(value == "ok" for value in checks.values())
    return JSONResponse(
        {"status": "ok" if ready else "unavailable", "checks": checks}, status_code=200 if ready else 503
    )


@router.get("/metrics")
async def prometheus() -> Response:
    # in a thread: the engine queue's figures are read from Redis at each scrape
    body, content_type = await asyncio.to_thread(metrics.exposition)
    return Response(body, media_type=content_type)
