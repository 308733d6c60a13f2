"""The site's uvicorn protocols (web/http/protocols.py): a finished connection leaves nothing for the
garbage collector, a refused websocket handshake is not logged as an application error, one
from an address over its limit is answered before the upgrade, and sockets are compressed at
zlib's fastest level.

A real uvicorn server with the real app on 127.0.0.1, real websocket clients."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import websockets
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.server import ServerProtocol

from exochess.web.app import create_app
from exochess.web.http.errors import error_body
from exochess.web.http.protocols import COMPRESSION, UVICORN_PROTOCOLS, WebSocketProtocol
from exochess.web.limits import parse_rate_limits
from tests.web.serverproc import free_port, run_async

SERVER_SIDE = (HttpToolsProtocol, WebSocketsSansIOProtocol, ServerProtocol)
"""The objects uvicorn makes for each connection on the server's side."""


async def _connections(tmp_path: Path, opened: int, refused: int) -> tuple[list[Any], list[str]]:
    """Serve the site, connect ``opened`` websockets that are accepted and then ``refused``
    beyond the rate limit; what the garbage collector found afterwards (nothing is freed:
    ``DEBUG_SAVEALL``), and the server's outcome of each connection."""
    app = create_app(
        f"sqlite:///{tmp_path / 'p.sqlite'}",
        use_engine_pool=False,
        rate_limits=parse_rate_limits(f"sockets={opened}/minute"),
    )
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            log_config=None,
            http=UVICORN_PROTOCOLS["http"],
            ws=UVICORN_PROTOCOLS["ws"],
        )
    )
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.02)
    outcomes: list[str] = []
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            made = (await client.post("/api/games", json={"variant": "fugue", "opponent": "friend"})).json()
        url = f"ws://127.0.0.1:{port}/ws/games/{made['id']}"
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)  # keep what a collection finds, to look at it
        for _ in range(opened + refused):
            try:
                async with websockets.connect(url) as sock:
                    outcomes.append(str((await sock.recv())[:15]))
            except websockets.InvalidStatus as exc:
                outcomes.append(str(exc.response.status_code))
        await asyncio.sleep(0.2)  # the server sees each connection end
        gc.collect()
        found = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        server.should_exit = True
        await serving
    return found, outcomes


def test_finished_connections_leave_nothing_for_the_garbage_collector(tmp_path: Path) -> None:
    found, outcomes = run_async(lambda: _connections(tmp_path, opened=3, refused=10))
    assert outcomes == ['{"type": "hello'] * 3 + ["429"] * 10
    left = [type(obj).__name__ for obj in found if issubclass(type(obj), SERVER_SIDE)]  # no proxies touched
    assert left == []


def test_a_refused_handshake_is_not_logged_as_an_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        _found, outcomes = run_async(lambda: _connections(tmp_path, opened=1, refused=3))
    assert outcomes[1:] == ["429"] * 3
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def _handshakes(
    tmp_path: Path, opened: int, refused: int, forwarded: str | None = None
) -> tuple[list[Any], list[Any], list[Any]]:
    """Serve the site with a websocket limit of ``opened`` a minute and connect ``opened`` +
    ``refused`` times (then once more through a proxy on 127.0.0.1, uvicorn's trusted one, for
    the client ``forwarded``): the websocket protocols the server made, the accepted clients'
    negotiated extensions, and the refusals (``websockets.InvalidStatus``)."""
    made: list[Any] = []
    original = WebSocketProtocol.__init__

    def counting(self: WebSocketProtocol, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        original(self, *args, **kwargs)

    app = create_app(
        f"sqlite:///{tmp_path / 'h.sqlite'}",
        use_engine_pool=False,
        rate_limits=parse_rate_limits(f"sockets={opened}/minute"),
    )
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            log_config=None,
            http=UVICORN_PROTOCOLS["http"],
            ws=UVICORN_PROTOCOLS["ws"],
        )
    )
    WebSocketProtocol.__init__ = counting  # type: ignore[method-assign]
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.02)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
            game = (await client.post("/api/games", json={"variant": "fugue", "opponent": "friend"})).json()
        url = f"ws://127.0.0.1:{port}/ws/games/{game['id']}"
        extensions, refusals = [], []
        headers = [None] * (opened + refused) + ([{"X-Forwarded-For": forwarded}] if forwarded else [])
        for extra in headers:
            try:
                async with websockets.connect(url, additional_headers=extra) as sock:
                    extensions.append(sock.protocol.extensions)
                    await sock.recv()
            except websockets.InvalidStatus as exc:
                refusals.append(exc)
    finally:
        WebSocketProtocol.__init__ = original  # type: ignore[method-assign]
        server.should_exit = True
        await serving
    return made, extensions, refusals


def test_a_handshake_over_the_limit_is_refused_before_the_upgrade(tmp_path: Path) -> None:
    made, _extensions, refusals = run_async(lambda: _handshakes(tmp_path, opened=2, refused=5))
    assert len(made) == 2  # no websocket protocol for the refused ones: the HTTP protocol answered
    assert len(refusals) == 5
    for refusal in refusals:  # the rate limit's answer, as the middleware gives it
        response = refusal.response
        assert response.status_code == 429
        message = json.loads(response.body)["error"]
        assert "too many websocket connections" in message
        assert response.body == error_body(message)  # byte for byte the API's error shape
        assert 1 <= int(response.headers["Retry-After"]) <= 60


def test_a_proxy_over_its_own_limit_still_passes_its_clients(tmp_path: Path) -> None:
    """A handshake through a proxy is left to the middleware, which counts the forwarded
    client: the proxy's address being over its limit must not refuse the proxy's clients."""
    made, extensions, refusals = run_async(
        lambda: _handshakes(tmp_path, opened=1, refused=2, forwarded="203.0.113.9")
    )
    assert len(refusals) == 2
    assert len(extensions) == 2  # the direct one, then the proxied client
    assert len(made) == 2


def test_sockets_are_compressed_at_the_fastest_level(tmp_path: Path) -> None:
    made, extensions, _refusals = run_async(lambda: _handshakes(tmp_path, opened=1, refused=0))
    # the client's offer is taken, with uvicorn's window and memory per socket
    assert [type(ext).__name__ for ext in extensions[0]] == ["PerMessageDeflate"]
    assert extensions[0][0].remote_max_window_bits == 12
    assert made[0].conn.available_extensions == [COMPRESSION]
    assert COMPRESSION.compress_settings == {"memLevel": 5, "level": 1}
