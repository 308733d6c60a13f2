"""Errors to HTTP, in one place: the status of every service error, and the app's exception handlers.

The API answers every error with ``{"error": "<message>"}``; pages answer a missing game,
variant or URL with the HTML error page.  The websocket reuses :func:`status_of` so that its
``{"type": "error", "status": ...}`` messages carry the same codes as the API.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from exochess.web.domain import (
    Conflict,
    EngineDisabled,
    EngineWithheld,
    GameNotFound,
    GameServiceError,
    IllegalMove,
    InvalidRequest,
    LessonNotFound,
    PositionTooLarge,
    PuzzleNotFound,
    SecretRequired,
    ServerBusy,
    StorageUnavailable,
    TooFast,
    TooLarge,
    TooManyAttempts,
    TooManyEngineJobs,
    WrongSeat,
)
from exochess.web.http.disconnect import CLIENT_CLOSED, ClientGone
from exochess.web.http.i18n import N_, localized, request_language
from exochess.web.http.templating import error_page

log = logging.getLogger("exochess.web")

STATUS: dict[type[GameServiceError], HTTPStatus] = {
    InvalidRequest: HTTPStatus.BAD_REQUEST,
    SecretRequired: HTTPStatus.UNAUTHORIZED,
    WrongSeat: HTTPStatus.FORBIDDEN,
    GameNotFound: HTTPStatus.NOT_FOUND,
    LessonNotFound: HTTPStatus.NOT_FOUND,
    PuzzleNotFound: HTTPStatus.NOT_FOUND,
    Conflict: HTTPStatus.CONFLICT,  # and its kinds: GameOver, NotYourTurn, StalePosition
    TooLarge: HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
    TooFast: HTTPStatus.TOO_MANY_REQUESTS,
    IllegalMove: HTTPStatus.UNPROCESSABLE_ENTITY,
    EngineDisabled: HTTPStatus.SERVICE_UNAVAILABLE,  # and EngineFailed
    EngineWithheld: HTTPStatus.FORBIDDEN,
    TooManyEngineJobs: HTTPStatus.TOO_MANY_REQUESTS,  # a kind of ServerBusy, but the client's own doing
    TooManyAttempts: HTTPStatus.TOO_MANY_REQUESTS,
    StorageUnavailable: HTTPStatus.SERVICE_UNAVAILABLE,
    PositionTooLarge: HTTPStatus.UNPROCESSABLE_ENTITY,
    ServerBusy: HTTPStatus.SERVICE_UNAVAILABLE,
}


def status_of(exc: GameServiceError) -> int:
    """The HTTP status of a service error (that of its nearest listed class)."""
    for cls in type(exc).__mro__:
        if cls in STATUS:
            return int(STATUS[cls])
    return int(HTTPStatus.BAD_REQUEST)


def error_body(message: str) -> bytes:
    """The API's one error shape, ``{"error": message}``, as the bytes every error answer sends
    (:func:`error_response`, and the websocket refusals written below the ASGI layer)."""
    return json.dumps({"error": message}, ensure_ascii=False, separators=(",", ":")).encode()


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """An error answer: ``status`` with :func:`error_body`'s JSON."""
    return Response(error_body(message), status_code=status, headers=headers, media_type="application/json")


def _field(loc: Sequence[int | str]) -> str:
    return ".".join(str(part) for part in loc)


def validation_message(errors: Sequence[Any]) -> str:
    """One sentence for Pydantic's error list, naming the fields as the client wrote them."""
    parts = []
    for err in errors:
        kind, loc = err.get("type"), tuple(err.get("loc", ()))
        if kind == "json_invalid":
            return f"malformed JSON: {err.get('ctx', {}).get('error', 'cannot be decoded')}"
        if loc == ("body",):
            if kind == "missing":
                return "a JSON object body is required"
            return "the JSON body must be an object"
        where = loc[1:] if loc and loc[0] in ("body", "query", "path") else loc
        parts.append(f"'{_field(where)}': {err.get('msg', 'invalid')}")
    return "bad request: " + "; ".join(parts)


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that turn every exception into a JSON error (API) or error page."""

    @app.exception_handler(GameServiceError)
    async def _service_error(request: Request, exc: GameServiceError) -> Response:
        status = status_of(exc)
        message = localized(exc.template, exc.params, request_language(request))
        if not _is_api(request) and status == HTTPStatus.NOT_FOUND:
            return error_page(request, status, message)
        # a busy server (engine queue, CPU pools) says when to come back (RFC 9110 Retry-After, in seconds)
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, ServerBusy) else None
        return error_response(status, message, headers)

    @app.exception_handler(ClientGone)
    async def _client_gone(_request: Request, _exc: ClientGone) -> Response:
        # nobody reads this reply; uvicorn drops it, the access log keeps the status
        return Response(status_code=CLIENT_CLOSED)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if _is_api(request) or exc.status_code != HTTPStatus.NOT_FOUND:
            return error_response(exc.status_code, str(exc.detail))
        # the router's own 404 carries only the status phrase; a page's carries its reason
        generic = exc.detail == HTTPStatus.NOT_FOUND.phrase
        message = N_("This page does not exist.") if generic else str(exc.detail)
        return error_page(request, exc.status_code, message)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, exc: RequestValidationError) -> Response:
        return error_response(HTTPStatus.BAD_REQUEST, validation_message(exc.errors()))

    @app.exception_handler(Exception)
    async def _internal_error(_request: Request, exc: Exception) -> Response:
        log.exception("internal error", exc_info=exc)
        return error_response(HTTPStatus.INTERNAL_SERVER_ERROR, "internal server error")
