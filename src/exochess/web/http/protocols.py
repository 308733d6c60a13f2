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

The websocket protocol compresses at zlib's fastest level (:data:`COMPRESSION`): a game's state
is compressed once per socket it goes to, on the event loop.

Before the upgrade, the HTTP protocol asks the rate limit (``ratelimit.py``, through uvicorn's
lifespan state) whether the client's address is already over its websocket limit, and if so
answers the 429 itself.  The websocket protocol, the handshake parsed a second time by
``websockets``, the ASGI task and the middleware stack cost 0.32-0.38 ms of server CPU for each
refusal, 0.10-0.13 ms without them (``bench/web.py --refusals 4000``): an attacker's burst of 50
handshakes held the event loop about 17 ms, during which no move was served (issue 17).

The websocket protocol also takes a handshake refused with an HTTP answer (the ASGI
"websocket denial response", as the rate limit sends it) for complete, where uvicorn's logged
every such refusal as an error of the application ("ASGI callable returned without completing
handshake"): a log line per request of an attacker's flood.
"""

from __future__ import annotations

import contextlib
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory

from exochess.web.http.errors import error_body
from exochess.web.http.logs import access
from exochess.web.http.ratelimit import WEBSOCKET_GATE

COMPRESSION = ServerPerMessageDeflateFactory(
    server_max_window_bits=12,
    client_max_window_bits=12,
    compress_settings={"memLevel": 5, "level": 1},
)
"""Per-message compression as uvicorn offers it (the same 4 KB window and memory per socket),
at zlib's fastest level instead of its default (6).  On a game's states (8.5-27 KB of JSON)
level 1 costs 97 µs of CPU a state on average where level 6 costs 234 µs, for 6.3-fold
compression instead of 7.5-fold (a state of 26.5 KB: 4.2 KB instead of 3.5 KB sent)."""

HandshakeGate = Callable[[str, str | None], tuple[str, int] | None]
"""(path, client address) -> None to go on, or (the refusal's message, Retry-After seconds)."""

UVICORN_PROTOCOLS = {
    "http": "exochess.web.http.protocols:HttpProtocol",
    "ws": "exochess.web.http.protocols:WebSocketProtocol",
}
"""uvicorn's ``http`` and ``ws`` settings for the site (import paths, as its worker processes
need them)."""


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, freed at once when it hands a connection to a websocket."""

    def handle_websocket_upgrade(self) -> None:
        if self._refused_early():
            return
        super().handle_websocket_upgrade()
        # The websocket protocol owns the connection now and this object is done: dropping
        # the parser (as uvicorn does when an HTTP connection is lost) ends the cycle through
        # its callbacks.  Called after the parser has stopped on the upgrade, never inside it.
        self.parser = None  # type: ignore[assignment]

    def _refused_early(self) -> bool:
        """Answer the rate limit's 429 to a handshake from an address over its limit (as the
        middleware would, the same JSON body and ``Retry-After``) and close; False to go on."""
        gate: HandshakeGate | None = self.app_state.get(WEBSOCKET_GATE)
        if gate is None:
            return False
        if any(name == b"x-forwarded-for" for name, _value in self.headers):
            # Through a proxy the client is the forwarded address, which uvicorn's proxy
            # middleware sets for trusted proxies only: left to the rate-limit middleware,
            # which sees it (the proxy's own address must not be refused for its clients).
            return False
        start = time.perf_counter()
        raw_path = self.url.partition(b"?")[0].decode("latin-1")
        path = urllib.parse.unquote(raw_path) if "%" in raw_path else raw_path
        refusal = gate(path, self.client[0] if self.client else None)
        if refusal is None:
            return False
        message, wait = refusal
        body = error_body(message)
        head = [b"HTTP/1.1 429 Too Many Requests\r\n"]
        for name, value in self.server_state.default_headers:
            head += [name, b": ", value, b"\r\n"]
        head += [
            b"content-type: application/json\r\ncontent-length: ",
            str(len(body)).encode(),
            b"\r\nretry-after: ",
            str(wait).encode(),
            b"\r\nconnection: close\r\n\r\n",
            body,
        ]
        self.transport.write(b"".join(head))
        self.transport.close()
        # the access line the request-id middleware writes for every answer
        ms = round((time.perf_counter() - start) * 1000, 1)
        fields = {"method": "WS", "path": path, "status": 429, "ms": ms}
        access.info("%s %s %s", "WS", path, 429, extra=fields)
        return True


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O websocket protocol, whose connection state is freed without the
    garbage collector when the connection ends."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.conn.available_extensions:  # compression on (uvicorn's ws_per_message_deflate)
            self.conn.available_extensions = [COMPRESSION]

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
