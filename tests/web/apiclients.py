"""Helpers of the public API's tests (issue 47): accounts with tokens, and ndjson streams read
in a thread so that a test waits on their lines with a timeout (events, never sleeps)."""

from __future__ import annotations

import json
import queue
import threading
from typing import Any
from urllib.parse import quote

import httpx

PASSWORD = "pass-word-1"
WAIT_S = 120.0
"""Generous bound on any one line of a stream (a loaded machine can be slow)."""


def signup(url: str, name: str) -> httpx.Client:
    """A signed-in client of a new account (its POSTs carry this site's ``Origin``)."""
    client = httpx.Client(base_url=url, headers={"Origin": url}, timeout=60.0)
    res = client.post("/api/account/signup", json={"name": name, "password": PASSWORD, "claim": []})
    assert res.status_code == 201, res.text
    return client


def make_token(session: httpx.Client, *scopes: str, description: str = "test") -> str:
    res = session.post("/api/account/tokens", json={"description": description, "scopes": list(scopes)})
    assert res.status_code == 201, res.text
    token: str = res.json()["token"]
    return token


def bearer(url: str, token: str) -> httpx.Client:
    """A client that acts by the token alone (no cookie, no Origin: a program)."""
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60.0)


def move_path(kind: str, game_id: str, move: str, ply: int | None = None) -> str:
    """The move endpoint with the move text URL-encoded (it may hold ``/``, ``(``, ``,``...)."""
    path = f"/api/{kind}/game/{game_id}/move/{quote(move, safe='')}"
    return path if ply is None else f"{path}?ply={ply}"


class Stream:
    """An ndjson stream read in a thread: :meth:`next` the next line's JSON (``{}`` for a
    keep-alive blank line when ``blanks``), waiting at most :data:`WAIT_S`."""

    def __init__(self, client: httpx.Client, path: str) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.status = 0
        self.content_type = ""
        self.raw: list[bytes] = []
        self.opened = threading.Event()
        self._client = client
        self._path = path
        self._stop = False
        self._response: httpx.Response | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        assert self.opened.wait(WAIT_S), f"{path} did not answer"

    def _read(self) -> None:
        try:
            with self._client.stream("GET", self._path, timeout=httpx.Timeout(60.0, read=None)) as res:
                self._response = res
                self.status = res.status_code
                self.content_type = res.headers.get("content-type", "")
                self.opened.set()
                buffer = b""
                for chunk in res.iter_raw():
                    if self._stop:
                        return
                    self.raw.append(chunk)
                    buffer += chunk
                    while b"\n" in buffer:
                        text, buffer = buffer.split(b"\n", 1)
                        self.lines.put(text.decode())
        except (httpx.HTTPError, OSError, RuntimeError, AttributeError):
            pass  # closed by close(), or by the server
        finally:
            self.opened.set()
            self.lines.put(None)

    def next(self, blanks: bool = False) -> dict[str, Any] | None:
        """The next line's JSON (None: the stream ended)."""
        while True:
            text = self.lines.get(timeout=WAIT_S)
            if text is None:
                return None
            if text.strip():
                data: dict[str, Any] = json.loads(text)
                return data
            if blanks:
                return {}

    def until(self, kind: str) -> dict[str, Any]:
        """The next event of type ``kind`` (the others are skipped)."""
        while True:
            event = self.next()
            assert event is not None, f"the stream ended before a {kind}"
            if event.get("type") == kind:
                return event

    def close(self) -> None:
        """Hang up (the server sees the client go)."""
        self._stop = True
        if self._response is not None:
            self._response.close()
        self.thread.join(WAIT_S)
