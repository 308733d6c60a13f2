"""The server's connection protocols: uvicorn's, leaving no garbage cycle behind a connection.

Two of uvicorn's protocol objects end their lives in a reference cycle, which only the
garbage collector frees:

* the HTTP protocol (httptools) holds its parser, and the parser holds the protocol's bound
  methods as its callbacks.  uvicorn breaks that pair when an HTTP connection is lost, but a
  websocket handshake hands the connection over to a websocket protocol, and the HTTP one is
  dropped with its parser, its transport and the request's headers (about 30 objects);
* the websocket protocol (``websockets-sansio``, uvicorn's default) keeps a ``websockets``
  :class:`~websockets.server.ServerProtocol`, whose parser is a generator suspended inside a
  method of that object: the generator's frame holds the object, the object the generator
  (about a dozen objects with its reader, request and extensions).

Under a flood of websocket handshakes (an attacker's, refused by the rate limit) those filled
the collector's youngest generation every second or so, and each of its passes stopped the
event loop for several milliseconds (issue 17).  Here each cycle is broken when its
connection is done with it, and reference counting frees the objects at once.

The websocket protocol also takes a handshake refused with an HTTP answer (the ASGI
"websocket denial response", as the rate limit sends it) for complete, where uvicorn's logged
every such refusal as an error of the application ("ASGI callable returned without completing
handshake"): a log line per request of an attacker's flood.
"""

from __future__ import annotations

import contextlib
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

UVICORN_PROTOCOLS = {
    "http": "exochess.web.protocols:HttpProtocol",
    "ws": "exochess.web.protocols:WebSocketProtocol",
}
"""uvicorn's ``http`` and ``ws`` settings for the site (import paths, as its worker processes
need them)."""


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, freed at once when it hands a connection to a websocket."""

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        # The websocket protocol owns the connection now and this object is done: dropping
        # the parser (as uvicorn does when an HTTP connection is lost) ends the cycle through
        # its callbacks.  Called after the parser has stopped on the upgrade, never inside it.
        self.parser = None  # type: ignore[assignment]


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O websocket protocol, whose connection state is freed without the
    garbage collector when the connection ends."""

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.http.response.body" and not message.get("more_body", False):
            # the refusal's whole answer is sent: the handshake is over (uvicorn's own flag
            # stays unset, and it then reports the app as having left the handshake open)
            self.handshake_complete = True

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        # Closing the parser generator ends its frame, the only other holder of the
        # connection object; nothing reads from the connection after this.
        with contextlib.suppress(Exception):  # a parser already finished, or failing to close
            self.conn.parser.close()
