"""A request body limit as plain ASGI middleware, for bodies with and without a Content-Length."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from exochess.web.http.errors import error_response


class BodyLimitMiddleware:
    """Refuse HTTP request bodies over ``max_body`` bytes with a 413.

    A declared Content-Length is checked before the app runs; a chunked body is counted as
    it is read, and the read raises :class:`HTTPException` (413), which FastAPI passes on
    to the app's handler, so nothing larger than the limit is ever buffered.
    """

    def __init__(self, app: ASGIApp, max_body: int, larger: dict[str, int] | None = None) -> None:
        """``larger``: paths whose bodies may be bigger (a pasted PGN), with their limit."""
        self.app = app
        self.max_body = max_body
        self.larger = larger or {}

    @staticmethod
    def _too_large(limit: int) -> str:
        return f"request body too large (over {limit} bytes)"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(scope["path"], self.max_body)
        headers = dict(scope["headers"])
        length = headers.get(b"content-length")
        if length is not None:
            try:
                too_big = int(length) > limit
            except ValueError:
                await error_response(400, "bad Content-Length header")(scope, receive, send)
                return
            if too_big:
                await error_response(413, self._too_large(limit))(scope, receive, send)
                return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise HTTPException(413, self._too_large(limit))
            return message

        await self.app(scope, counting_receive, send)
