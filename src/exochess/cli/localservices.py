"""PostgreSQL and Redis from Debian's packages, run as plain processes in a directory of ours.

Used by ``exochess cluster`` and by the tests of Redis mode: no system service is touched,
everything listens on 127.0.0.1 only and lives in the given directory.  PostgreSQL refuses to
run as root, so as root its programs run as the ``postgres`` user (which Debian's package
creates).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import socket
import subprocess
import time
from pathlib import Path


class MissingProgram(RuntimeError):
    """A server program is not installed (the message names the Debian package)."""


def free_port() -> int:
    """A TCP port nobody listens on now (127.0.0.1)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 30.0, process: subprocess.Popen[bytes] | None = None) -> None:
    """Wait until something accepts connections on 127.0.0.1:``port``.

    With ``process`` (the program meant to listen there), stop waiting as soon as it exits:
    ``ChildProcessError`` names its status (a server that could not bind its port, for
    example, exits at once; waiting out the timeout would only hide why)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise ChildProcessError(f"the program for port {port} exited with status {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port} after {timeout:.0f} s")


def program(name: str, package: str) -> str:
    """The path of a server program: on PATH, or in PostgreSQL's versioned directory."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    if candidates:
        return str(candidates[-1])
    raise MissingProgram(f"{name} is not installed (Debian package {package}: apt-get install {package})")


class RedisServer:
    """``redis-server`` without persistence (the queue and channel hold nothing that the database
    does not), in the foreground as our child."""

    def __init__(self, root: Path, port: int | None = None) -> None:
        self.binary = program("redis-server", "redis-server")
        self.root = root
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.root.mkdir(parents=True, exist_ok=True)
        log = open(self.root / "redis.log", "ab")  # noqa: SIM115 - the child's for its lifetime
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.root),
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_port(self.port)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None


class PostgresServer:
    """A PostgreSQL cluster made by ``initdb`` in ``root``/data, started with ``pg_ctl``."""

    def __init__(self, root: Path, port: int | None = None, *, durable: bool = True) -> None:
        """``durable=False`` (tests, benchmarks) turns fsync off: faster, lost on a machine crash."""
        self.durable = durable
        self.initdb = program("initdb", "postgresql")
        self.pg_ctl = program("pg_ctl", "postgresql")
        self.root = root
        self.data = root / "data"
        self.port = port or free_port()
        self.as_root = os.geteuid() == 0

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://exochess@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        cmd = list(args)
        if self.as_root:
            cmd = ["su", "postgres", "-s", "/bin/sh", "-c", shlex.join(cmd)]
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)

    def init(self) -> PostgresServer:
        """Make the cluster (once: a directory already holding one is reused)."""
        self.root.mkdir(parents=True, exist_ok=True)
        if self.as_root:
            shutil.chown(self.root, "postgres")
        if not (self.data / "PG_VERSION").exists():
            self._run(self.initdb, "-D", str(self.data), "-U", "exochess", "--auth=trust", "--no-sync")
        return self

    def start(self) -> PostgresServer:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=200"
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off"
        self._run(
            self.pg_ctl, "-D", str(self.data), "-o", options, "-l", str(self.root / "pg.log"), "-w", "start"
        )
        return self

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            self._run(self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop")
