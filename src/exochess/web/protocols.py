"""The server's websocket protocol: uvicorn's, leaving no garbage cycle behind a connection.

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
event loop for several milliseconds (issue 17).  Here the websocket one is broken when its
connection ends, and reference counting frees those objects at once.

The websocket protocol also takes a handshake refused with an HTTP answer (the ASGI
"websocket denial response", as the rate limit sends it) for complete, where uvicorn's logged
every such refusal as an error of the application ("ASGI callable returned without completing
handshake"): a log line per request of an attacker's flood.
"""

from __future__ import annotations

import contextlib
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

UVICORN_PROTOCOLS = {"ws": "exochess.web.protocols:WebSocketProtocol"}
"""uvicorn's settings for the site's protocols (import paths, as its worker processes need
them).  The HTTP protocol's cycle (above) is not broken yet: a subclass of uvicorn's httptools
protocol that dropped its parser after an upgrade made the analysis board's huge-position
browser test time out (tests/web/test_web_browser_large.py), for a reason not found yet."""


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
