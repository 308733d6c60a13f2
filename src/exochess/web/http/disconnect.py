"""Stop work that nobody waits for: a request's work is cancelled when its client hangs up.

Starlette does not cancel an endpoint when the client disconnects; uvicorn only reports it
to the next ``receive()``.  Once the body has been read, that call waits for exactly this
event, so watching it next to the work costs one task and no polling.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

from starlette.requests import Request

log = logging.getLogger("exochess.web")
T = TypeVar("T")

CLIENT_CLOSED = 499
"""Status of the (unsent) reply to a client that hung up: nginx's convention, for the access log."""


class ClientGone(Exception):
    """The client closed its connection before the answer was ready; the work was cancelled."""


async def _disconnected(request: Request) -> None:
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


def client_address(request: Request) -> str:
    """The address of the peer (what per-client limits count), ``"unknown"`` if the server has none."""
    return request.client.host if request.client is not None else "unknown"


async def unless_disconnected(request: Request, work: Coroutine[Any, Any, T]) -> T:
    """Await ``work``; if the client disconnects first, cancel it and raise :class:`ClientGone`."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
    if not task.cancelled():
        return task.result()  # the answer, or the work's own error
    log.info("client %s gave up on %s: its work was cancelled", client_address(request), request.url.path)
    raise ClientGone
