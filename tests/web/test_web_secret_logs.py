"""Issue 41, finding 8: uvicorn's log line of a websocket held the URL's ``?secret=``; no HSTS
over https.  Against a real server logging at info level."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import httpx
import pytest
import websockets

from exochess.web.http.logs import RedactFilter, redact
from tests.web.serverproc import Server, create, run_async


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("logs") / "logs.sqlite", log_level="info").start()
    yield srv
    srv.stop()


def test_a_secret_in_a_websocket_url_is_not_logged(logged: Server) -> None:
    with httpx.Client(base_url=logged.url, timeout=30) as client:
        game = create(client, variant="fugue", opponent="friend")
    secret = game["seats"]["white"]["secret"]
    url = logged.url.replace("http", "ws") + f"/ws/games/{game['id']}?secret={secret}&x=1"

    async def visit() -> None:
        async with websockets.connect(url) as ws:
            while json.loads(await ws.recv()).get("type") != "state":
                pass

    run_async(visit)
    with httpx.Client(base_url=logged.url, timeout=30) as client:
        client.get(f"/api/games/{game['id']}?secret={secret}")
    text = logged.log_text()
    assert f"/ws/games/{game['id']}" in text, text[-2000:]  # uvicorn's line is there...
    assert secret not in text, text[-2000:]  # ...without the secret
    assert "secret=***" in text


def test_the_redaction_covers_every_secret_parameter() -> None:
    assert (
        redact('"WebSocket /ws/games/a?secret=abc&x=1" [accepted]')
        == '"WebSocket /ws/games/a?secret=***&x=1" [accepted]'
    )
    assert redact("/login?password=hunter2 token=t0k player=p1") == "/login?password=*** token=*** player=***"
    record = logging.LogRecord(
        "uvicorn.error",
        logging.INFO,
        "",
        0,
        '%s - "WebSocket %s" %s',
        ("127.0.0.1:5", "/ws/games/a?secret=s3cr3t", "[accepted]"),
        None,
    )
    assert RedactFilter().filter(record) and "s3cr3t" not in record.getMessage()


def test_hsts_only_over_https(logged: Server) -> None:
    with httpx.Client(base_url=logged.url, timeout=30) as client:
        plain = client.get("/")
        # uvicorn trusts X-Forwarded-Proto from 127.0.0.1 (the proxy of the docs' example)
        proxied = client.get("/", headers={"X-Forwarded-Proto": "https"})
    assert "strict-transport-security" not in plain.headers
    assert proxied.headers["strict-transport-security"].startswith("max-age=31536000")
