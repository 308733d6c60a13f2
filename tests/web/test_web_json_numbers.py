"""Issue 41, finding 6: a JSON integer longer than Python's conversion limit (4,300 digits) was a
500 with two tracebacks on every POST endpoint.  Now any over-long integer a client sends is a
400 naming the problem, on every POST route of the app (listed from the app itself, so a new
route is covered) and in websocket messages."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

import httpx
import pytest
import websockets
from fastapi.routing import APIRoute

from exochess.web.app import create_app
from exochess.web.http.security import MAX_JSON_INT_DIGITS, BadJSON, parse_json_text
from tests.web.serverproc import Server, create, run_async

HUGE = "7" * 5000


def _routes(routes: Iterable[Any]) -> Iterator[Any]:
    """The app's routes, those of included routers too."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _routes(inner.routes)
        else:
            yield route


def post_routes() -> list[str]:
    """Every POST route of the app, as declared (path parameters unfilled)."""
    app = create_app(use_engine_pool=False)
    paths = sorted(
        {r.path for r in _routes(app.routes) if isinstance(r, APIRoute) and "POST" in (r.methods or ())}
    )
    assert len(paths) >= 18, paths
    return paths


@pytest.fixture(scope="module")
def numbers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("numbers") / "n.sqlite", log_level="info").start()
    yield srv
    srv.stop()


def test_parser_refuses_long_integers_only() -> None:
    assert parse_json_text('{"ply": 12, "n": -3, "x": 1.5e300}') == {"ply": 12, "n": -3, "x": 1.5e300}
    assert parse_json_text("9" * MAX_JSON_INT_DIGITS) == int("9" * MAX_JSON_INT_DIGITS)
    for text in (HUGE, "-" + HUGE, '{"ply": ' + HUGE + "}", "[" + "9" * (MAX_JSON_INT_DIGITS + 1) + "]"):
        with pytest.raises(BadJSON, match="number too long"):
            parse_json_text(text)


def test_huge_integer_is_a_400_on_every_post_route(numbers: Server) -> None:
    with httpx.Client(base_url=numbers.url, timeout=30.0) as client:
        game_id = create(client, variant="fugue", opponent="friend")["id"]
        filled = {"game_id": game_id, "challenge_id": "1", "game": "fugue"}
        for path in post_routes():
            # any other path parameter (a lesson's stage, an exercise's number) gets a plain value
            url = re.sub(r"\{(\w+)\}", lambda m: filled.get(m.group(1), "1"), path)
            for body in (HUGE, '{"ply": ' + HUGE + ', "secret": "x", "move": "e2-e3"}'):
                res = client.post(url, content=body.encode(), headers={"Content-Type": "application/json"})
                assert res.status_code == 400, (url, res.status_code, res.text[:300])
                assert "number too long" in res.json()["error"], res.text[:300]
    text = numbers.log_text()
    assert "Traceback" not in text and " 500 " not in text, text[-3000:]


def test_huge_integer_in_a_websocket_message_is_an_error_message(numbers: Server) -> None:
    with httpx.Client(base_url=numbers.url, timeout=30.0) as client:
        game = create(client, variant="fugue", opponent="friend")
    url = numbers.url.replace("http", "ws") + f"/ws/games/{game['id']}"

    async def go() -> dict[str, Any]:
        async with websockets.connect(url) as ws:
            await ws.recv()  # the state
            await ws.send('{"type": "ping", "n": ' + HUGE + "}")
            while True:
                msg = json.loads(await ws.recv())
                if msg.get("type") == "error":
                    return dict(msg)

    msg = run_async(go)
    assert "number too long" in msg["error"] and msg.get("status") == 400, msg
    assert "Traceback" not in numbers.log_text()
