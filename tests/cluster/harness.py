"""A site in Redis mode on this machine, for tests and bench/cluster.py: PostgreSQL and Redis
from Debian's packages (see :mod:`exochess.cli.localservices`), N real server processes and M
real ``exochess worker`` processes, all on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from exochess.cli.localservices import MissingProgram, PostgresServer, RedisServer
from tests.web.serverproc import Server


class Worker:
    """One ``exochess worker`` process (its own process group, killed with it)."""

    def __init__(
        self,
        root: Path,
        redis_url: str,
        database_url: str,
        name: str,
        job_timeout: float = 5.0,
        nice: int = 0,
    ) -> None:
        from tests.web.serverproc import free_port

        self.log_path = root / f"{name}.log"
        self.metrics_port = free_port()
        """Its ``/metrics`` and ``/readyz``."""
        self.args = [
            sys.executable,
            "-m",
            "exochess.cli.main",
            "worker",
            "--redis-url",
            redis_url,
            "--database-url",
            database_url,
            "--job-timeout",
            str(job_timeout),
            "--nice",
            str(nice),
            "--metrics-port",
            str(self.metrics_port),
        ]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.metrics_port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Worker:
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child's for its lifetime
        self.proc = subprocess.Popen(self.args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def kill(self) -> None:
        """SIGKILL, as a crash: a job it runs is left claimed in Redis."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None


class Services:
    """PostgreSQL + Redis in a temporary directory."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="exochess-cluster-test-"))
        self.root.chmod(0o755)  # PostgreSQL runs as user postgres when we are root
        self.redis = RedisServer(self.root / "redis")
        self.postgres = PostgresServer(self.root / "postgres", durable=False)

    def start(self) -> Services:
        self.redis.start()
        self.postgres.init().start()
        return self

    def stop(self) -> None:
        self.postgres.stop()
        self.redis.stop()
        import shutil

        shutil.rmtree(self.root, ignore_errors=True)


def missing_programs() -> str | None:
    """Why a cluster cannot start here (None: it can)."""
    try:
        RedisServer(Path(tempfile.gettempdir()))
        PostgresServer(Path(tempfile.gettempdir()))
    except MissingProgram as exc:
        return str(exc)
    return None


class Cluster:
    """``servers`` server processes and ``workers`` engine workers on ``services``."""

    def __init__(
        self,
        services: Services,
        servers: int = 2,
        workers: int = 1,
        log_level: str = "warning",
        worker_nice: int = 0,
        env: dict[str, str] | None = None,
        start_timeout: float = 60.0,
    ) -> None:
        self.services = services
        self.start_timeout = start_timeout
        """Seconds each server may take to start (a benchmark niced on a busy machine waits long)."""
        self.root = Path(tempfile.mkdtemp(prefix="site-", dir=services.root))
        env = {"EXOCHESS_REDIS_URL": services.redis.url, **(env or {})}
        self.servers = [
            Server(
                self.root / f"server{i}.sqlite",
                database_url=services.postgres.url,
                env=env,
                log_level=log_level,
            )
            for i in range(servers)
        ]
        self.workers = [
            Worker(self.root, services.redis.url, services.postgres.url, f"worker{i}", nice=worker_nice)
            for i in range(workers)
        ]

    def start(self) -> Cluster:
        for server in self.servers:
            server.start(timeout=self.start_timeout)
        for worker in self.workers:
            worker.start()
        for server in self.servers:
            wait_ready(server.url, self.start_timeout)
        return self

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
        for worker in self.workers:
            worker.stop()


def wait_ready(url: str, timeout: float = 60.0) -> None:
    """Wait until ``url``/readyz says 200 (database and Redis answer, subscription up)."""
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        try:
            res = httpx.get(url + "/readyz", timeout=2.0)
            if res.status_code == 200:
                return
            last = res.text
        except httpx.HTTPError as exc:
            last = str(exc)
        time.sleep(0.1)
    raise TimeoutError(f"{url} not ready after {timeout:.0f} s: {last}")


class RoundRobinProxy:
    """A TCP proxy on 127.0.0.1 handing each new connection to the next of ``ports`` in turn:
    one address for a test, whose connections (an HTTP client's, a websocket's, a browser's)
    land on different server processes.  Runs its own event loop in a thread."""

    def __init__(self, ports: list[int]) -> None:
        from tests.web.serverproc import free_port

        self.ports = ports
        self.port = free_port()
        self._next = 0
        self._loop: Any = None
        self._thread: Any = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _pipe(self, reader: Any, writer: Any) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _handle(self, reader: Any, writer: Any) -> None:
        for _ in range(len(self.ports)):  # a dead backend is skipped, as a load balancer does
            port = self.ports[self._next % len(self.ports)]
            self._next += 1
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                continue
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
            return
        writer.close()

    def start(self) -> RoundRobinProxy:
        import threading

        ready = threading.Event()

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", self.port))
            ready.set()
            try:
                self._loop.run_forever()
            finally:
                server.close()

        self._thread = threading.Thread(target=run, daemon=True, name="round-robin-proxy")
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)


class ClusterSite:
    """What the web tests' ``server`` fixture yields in cluster mode (``$EXOCHESS_TEST_CLUSTER``):
    the suite's one address, behind which two servers and an engine worker run on PostgreSQL
    and Redis."""

    def __init__(self) -> None:
        self.services = Services().start()
        self.cluster = Cluster(self.services, servers=2, workers=1).start()
        self.proxy = RoundRobinProxy([s.port for s in self.cluster.servers]).start()
        self.url = self.proxy.url
        self.database_url = self.services.postgres.url
        """The database every server shares (tests read it directly, as from a single server)."""

    def log_text(self) -> str:
        return "\n".join(s.log_text() for s in self.cluster.servers)

    def stop(self) -> None:
        self.proxy.stop()
        self.cluster.stop()
        self.services.stop()
