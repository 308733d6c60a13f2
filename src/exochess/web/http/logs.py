"""Structured logs: one JSON object per line, each carrying the id of the request it belongs to.

:class:`RequestIdMiddleware` gives every HTTP request and websocket an id (the client's
``X-Request-ID`` when it is a plausible one, as set by a proxy, else a new one), returns it in
the answer's ``X-Request-ID`` header, logs one ``request`` line per answer, and counts it in
:mod:`exochess.web.metrics`.  :class:`RequestIdFilter` adds the id to every log record made
while the request runs, so the lines of one request can be found together.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import re
import time
import uuid
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from exochess.web import metrics

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
_PLAUSIBLE = re.compile(r"[A-Za-z0-9._:-]{1,64}")
access = logging.getLogger("exochess.access")
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "request_id"}


class RequestIdFilter(logging.Filter):
    """Adds ``request_id`` (or ``-`` outside a request) to each record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        return True


_SECRET_PARAM = re.compile(r"(?i)\b(secret|password|token|player)=[^&\s\"']*")


def redact(text: str) -> str:
    """``text`` with the values of URL parameters that hold secrets replaced by ``***``."""
    return _SECRET_PARAM.sub(lambda m: f"{m.group(1)}=***", text)


class RedactFilter(logging.Filter):
    """Keep seat secrets, passwords and player tokens out of every log line: uvicorn logs a
    websocket's URL with its query (``/ws/games/x?secret=...``, issue 41), and a client may put
    anything in a URL.  The message is formatted here and its secret parameters replaced."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "=" in message:
            cleaned = redact(message)
            if cleaned != message:
                record.msg, record.args = cleaned, None
        return True


class JsonFormatter(logging.Formatter):
    """A record as one JSON line: time, level, logger, message, request id, and any ``extra``."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            "request_id": getattr(record, "request_id", REQUEST_ID.get()),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                plain = isinstance(value, str | int | float | bool | None)
                data.setdefault(key, value if plain else str(value))
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False)


def logging_config(level: str, fmt: str) -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for uvicorn and the site: ``fmt`` is ``json`` or ``text``."""
    formatter: dict[str, Any] = (
        {"()": JsonFormatter}
        if fmt == "json"
        else {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"}
    )
    handler = {
        "class": "logging.StreamHandler",
        "formatter": "site",
        "filters": ["request_id", "redact"],
        "stream": "ext://sys.stderr",
    }
    upper = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": RequestIdFilter}, "redact": {"()": RedactFilter}},
        "formatters": {"site": formatter},
        "handlers": {"default": handler},
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": upper, "propagate": False},
            # the request lines below say more than uvicorn's access log (id, time taken)
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
            "exochess": {"handlers": ["default"], "level": upper, "propagate": False},
            "arq": {"handlers": ["default"], "level": upper, "propagate": False},
        },
    }


class RequestIdMiddleware:
    """Request ids, one access line per answer, and the request metrics (pure ASGI)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or ()).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if _PLAUSIBLE.fullmatch(given) else uuid.uuid4().hex[:16]
        token = REQUEST_ID.set(request_id)
        start = time.perf_counter()
        status = 0

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                MutableHeaders(scope=message).append("X-Request-ID", request_id)
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            status = 500
            raise
        finally:
            elapsed = time.perf_counter() - start
            if scope["type"] == "http":
                metrics.REQUESTS.labels(scope["method"], str(status)).inc()
                metrics.REQUEST_SECONDS.observe(elapsed)
                if status >= 500:
                    metrics.ERRORS.labels("http").inc()
            access.info(
                "%s %s %s",
                scope.get("method", "WS"),
                scope["path"],
                status,
                extra={
                    "method": scope.get("method", "WS"),
                    "path": scope["path"],
                    "status": status,
                    "ms": round(elapsed * 1000, 1),
                },
            )
            REQUEST_ID.reset(token)
