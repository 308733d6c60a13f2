"""Start and stop a real exochess web server (uvicorn in a subprocess) for tests and benchmarks."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


TEST_LIMITS = "games=off;analyses=off;sockets=off;signups=off;misses=off;puzzles=off;puzzle-checks=off"
"""The rate limits of test servers (:data:`exochess.web.limits.LIMITS`' names)."""
LOOSE_LOBBY = TEST_LIMITS + ";lobby=200 per 4 seconds"
"""The same with room for tests that post and accept many challenges from one address."""

START_TIMEOUT_S = 120.0
"""A server starts in 1-3 s; on a loaded machine, under ``nice -n 19``, it took over 30."""


class Server:
    def __init__(
        self,
        db_path: Path,
        port: int | None = None,
        engine_workers: int = 1,
        database_url: str | None = None,
        log_level: str = "warning",
        env: dict[str, str] | None = None,
    ) -> None:
        self.db_path = db_path
        self.log_level = log_level
        # Test and benchmark servers serve one client address (127.0.0.1) many games at once:
        # the per-address request limits are off unless a test sets EXOCHESS_RATE_LIMITS itself
        # (the chat's, the lobby's and the logins' keep their defaults).
        self.env = {"EXOCHESS_RATE_LIMITS": TEST_LIMITS, **(env or {})}
        self._database_url = database_url
        self.port = port or free_port()
        self.engine_workers = engine_workers
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = db_path.with_suffix(f".{self.port}.log")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def database_url(self) -> str:
        return self._database_url or f"sqlite:///{self.db_path}"

    def start(self, timeout: float = START_TIMEOUT_S) -> Server:
        env = dict(os.environ)
        env.pop("EXOCHESS_DATABASE_URL", None)
        env.update(self.env)
        log = open(self.log_path, "ab")  # noqa: SIM115 - kept open for the child's lifetime
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "exochess.cli.serve",
                "--port",
                str(self.port),
                "--database-url",
                self.database_url,
                "--engine-workers",
                str(self.engine_workers),
                "--log-level",
                self.log_level,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.stop()  # its engine workers may have started
                raise RuntimeError(f"server exited: {self.log_path.read_text()}")
            try:
                if httpx.get(self.url + "/api/variants", timeout=1.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        # a server that did not answer in time is stopped, not left running after the test
        self.stop()
        raise RuntimeError(f"server did not start in {timeout:g} s")

    def _signal_group(self, sig: int) -> None:
        # The whole process group, even when the server itself has already exited:
        # its engine workers may still be alive and must not outlive the test.
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)

    def log_text(self) -> str:
        """Everything the server wrote so far (uvicorn's log and the app's)."""
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL to the server and its workers: no shutdown code runs (what a crash looks like)."""
        if self.proc is not None:
            self._signal_group(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self._signal_group(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self._signal_group(signal.SIGKILL)
                self.proc.wait(10)
            self._signal_group(signal.SIGKILL)  # any worker left behind by the shutdown
        self.proc = None


@contextlib.contextmanager
def served_in_thread(app: Any, **config: Any) -> Iterator[str]:
    """Serve ``app`` with a real uvicorn server on 127.0.0.1, in a thread of this process, and
    yield its base URL; the server shuts down (the app's lifespan ends) when the block ends.
    For what a subprocess cannot show: the app's effect on this interpreter, or a game
    registered only here."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **config))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join()


def create(client: httpx.Client, **body: Any) -> dict[str, Any]:
    res = client.post("/api/games", json=body)
    assert res.status_code == 201, res.text
    data: dict[str, Any] = res.json()
    return data


def run_async(factory: Any) -> Any:
    """Run ``factory()`` (a coroutine function) to completion in a fresh thread and event loop.

    Playwright's sync API keeps an event loop running in the test thread, so
    asyncio.run() cannot be used there directly.
    """
    import asyncio
    import threading

    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(factory())
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


async def recv_until(ws: Any, kind: str, pred: Any = None, timeout: float = 10.0) -> dict[str, Any]:
    """The next message of type ``kind`` (matching ``pred``) that the websocket ``ws`` receives,
    within ``timeout`` seconds."""

    async def loop() -> dict[str, Any]:
        while True:
            msg = json.loads(await ws.recv())
            if msg["type"] == kind and (pred is None or pred(msg)):
                return msg  # type: ignore[no-any-return]

    return await asyncio.wait_for(loop(), timeout)
