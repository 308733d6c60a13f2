"""A site in Redis mode on this machine, for tests and bench/cluster.py: PostgreSQL and Redis
from Debian's packages (see :mod:`exochess.cli.localservices`), N real server processes and M
real ``exochess worker`` processes, all on 127.0.0.1."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from exochess.cli.localservices import MissingProgram, PostgresServer, RedisServer
from tests.web.serverproc import Server


class Worker:
    """One ``exochess worker`` process (its own process group, killed with it)."""

    def __init__(self, root: Path, redis_url: str, database_url: str, name: str,
                 job_timeout: float = 5.0) -> None:
        self.log_path = root / f"{name}.log"
        self.args = [sys.executable, "-m", "exochess.cli.main", "worker", "--redis-url", redis_url,
                     "--database-url", database_url, "--job-timeout", str(job_timeout)]
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

    def __init__(self, services: Services, servers: int = 2, workers: int = 1,
                 log_level: str = "warning") -> None:
        self.services = services
        self.root = Path(tempfile.mkdtemp(prefix="site-", dir=services.root))
        env = {"EXOCHESS_REDIS_URL": services.redis.url}
        self.servers = [
            Server(self.root / f"server{i}.sqlite", database_url=services.postgres.url, env=env,
                   log_level=log_level)
            for i in range(servers)
        ]
        self.workers = [
            Worker(self.root, services.redis.url, services.postgres.url, f"worker{i}") for i in range(workers)
        ]

    def start(self) -> Cluster:
        for server in self.servers:
            server.start(timeout=60)
        for worker in self.workers:
            worker.start()
        for server in self.servers:
            wait_ready(server.url)
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
