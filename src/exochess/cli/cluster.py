"""``exochess worker`` (engine jobs from the Redis queue) and ``exochess cluster`` (the whole site
on one machine: PostgreSQL, Redis, N servers and M engine workers, each started again if it
dies; Ctrl-C stops them all).

docs/deploy.md shows the same roles on several machines.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from exochess.cli.localservices import MissingProgram, PostgresServer, RedisServer, wait_port


def register(sub: Any) -> None:
    """Add the ``worker`` and ``cluster`` subcommands (called by :mod:`exochess.cli.main`)."""
    worker: argparse.ArgumentParser = sub.add_parser(
        "worker",
        help="run engine jobs from the Redis queue (Redis mode)",
        description="Take the computer's moves and analyses from the Redis job queue, store the "
        "moves in the database and announce them to the servers.",
    )
    worker.add_argument("--redis-url", default=None, help="Redis (default: $EXOCHESS_REDIS_URL)")
    worker.add_argument(
        "--database-url", default=None, help="SQLAlchemy URL (default: $EXOCHESS_DATABASE_URL)"
    )
    worker.add_argument("--jobs", type=int, default=1, help="jobs at once (one per core; default 1)")
    worker.add_argument(
        "--job-timeout",
        type=float,
        default=60.0,
        help="seconds a job may run (default 60); a dead worker's job is taken again "
        "within seconds, its lease no longer renewed",
    )
    worker.add_argument(
        "--metrics-port",
        type=int,
        default=0,
        help="serve Prometheus metrics and /readyz on this port (default: none)",
    )
    worker.add_argument(
        "--metrics-host",
        default="127.0.0.1",
        help="address of the metrics port (default 127.0.0.1; 0.0.0.0 for a "
        "Prometheus on another machine, behind the firewall)",
    )
    worker.add_argument(
        "--nice",
        type=int,
        default=0,
        help="lower the worker's CPU priority by this much (servers sharing the "
        "machine then come first; default 0)",
    )
    worker.add_argument("--log-level", default="info")
    worker.add_argument("--log-format", choices=("text", "json"), default="text")
    worker.set_defaults(handler=run_worker)

    cluster: argparse.ArgumentParser = sub.add_parser(
        "cluster",
        help="run PostgreSQL, Redis, N servers and M engine workers on this machine",
        description=__doc__,
    )
    cluster.add_argument("--servers", type=int, default=2, help="server processes (default 2)")
    cluster.add_argument("--workers", type=int, default=1, help="engine worker processes (default 1)")
    cluster.add_argument(
        "--port",
        type=int,
        default=8000,
        help="port of the first server; the others take the next ones (default 8000)",
    )
    cluster.add_argument(
        "--metrics-port",
        type=int,
        default=9101,
        help="metrics and readiness port of the first engine worker; the others "
        "take the next ones (default 9101)",
    )
    cluster.add_argument(
        "--restarts",
        type=int,
        default=5,
        help="restarts of one dead process within a minute before giving it up (default 5)",
    )
    cluster.add_argument(
        "--dir", default=None, help="directory for the database and logs (default: a temporary one, removed)"
    )
    cluster.add_argument("--log-level", default="info")
    cluster.set_defaults(handler=run_cluster)


def _error(command: str, message: str) -> int:
    print(f"exochess {command}: error: {message}", file=sys.stderr)
    return 2


def run_worker(args: argparse.Namespace) -> int:
    """Run an engine worker until SIGINT or SIGTERM (a job in progress goes back to the queue).

    It outlives Redis and the database (it waits for them, saying so in its log and on
    ``/readyz``); see :mod:`exochess.web.game.worker`."""
    try:
        from exochess.web.settings import SettingsError, load_settings
    except ImportError as exc:  # pragma: no cover - depends on the install
        return _error(
            "worker", f"the web extra is not installed ({exc}); run: pip install 'exochess[web,cluster]'"
        )
    try:
        settings = load_settings(redis_url=args.redis_url, database_url=args.database_url)
    except SettingsError as exc:
        return _error("worker", str(exc))
    redis = settings.redis_url
    # the default database is for a server on its own: a worker must be told the servers' one
    database = settings.database_url if "database_url" in settings.model_fields_set else None
    if not redis or not database:
        return _error(
            "worker",
            "needs --redis-url and --database-url (or $EXOCHESS_REDIS_URL and "
            "$EXOCHESS_DATABASE_URL): the ones the servers use",
        )
    if args.jobs < 1 or args.job_timeout <= 0:
        return _error("worker", "--jobs and --job-timeout must be positive")
    try:
        from exochess.web import metrics
        from exochess.web.game.queuestats import QueueCollector
        from exochess.web.game.worker import Health, serve_operations
        from exochess.web.game.workerjobs import make_worker
        from exochess.web.http.logs import logging_config
    except ImportError as exc:  # pragma: no cover - depends on the install
        return _error(
            "worker", f"the cluster extra is not installed ({exc}); run: pip install 'exochess[web,cluster]'"
        )
    import logging.config

    if args.nice > 0:
        os.nice(args.nice)

    logging.config.dictConfig(logging_config(args.log_level, args.log_format))
    health = Health()
    if args.metrics_port:
        metrics.add_collector(QueueCollector(redis))
        try:
            serve_operations(args.metrics_port, health, args.metrics_host)
        except OSError as exc:
            return _error("worker", f"cannot serve metrics on port {args.metrics_port}: {exc}")
    print(
        f"exochess: engine worker on {redis} ({args.jobs} job(s) at once)"
        + (f"; /metrics and /readyz on {args.metrics_host}:{args.metrics_port}" if args.metrics_port else ""),
        flush=True,
    )
    make_worker(
        redis,
        database,
        jobs=args.jobs,
        job_timeout_s=args.job_timeout,
        health=health,
        timing=settings.timing(),
        hash_mb=settings.engine_hash_mb,
    ).run()
    return 0


def _unreachable_by_others(path: Path) -> Path | None:
    """The first directory on the way to ``path`` that other users cannot pass through (None if
    they can): PostgreSQL, started as user postgres by root, must reach its data directory."""
    for folder in [*reversed(path.parents), path]:
        if folder.exists() and not folder.stat().st_mode & 0o001:
            return folder
    return None


def _last_line(log: Path) -> str:
    """The last line a child wrote to its log: the error it stopped on."""
    try:
        lines = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return f"no log at {log}"
    return lines[-1] if lines else f"nothing in {log}"


def _python_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "exochess.cli.main", *args]


RESTART_WINDOW_S = 60.0
"""The window of ``--restarts``: a process that died that often within it is left dead."""
RESTART_DELAY_S = 1.0
"""Wait before restarting a dead process (one that dies at once does not spin)."""


class Child:
    """A server or engine worker of the cluster: its command, its process, its restarts."""

    def __init__(self, name: str, command: list[str], log: Path, env: dict[str, str]) -> None:
        self.name, self.command, self.log, self.env = name, command, log, env
        self.proc: subprocess.Popen[bytes] | None = None
        self.restarts: collections.deque[float] = collections.deque()
        self.dead_since: float | None = None
        self.given_up = False

    def start(self) -> None:
        with open(self.log, "ab") as log:  # the child keeps its own descriptor
            # a session of its own: Ctrl-C reaches this command only, which stops the children
            # in order (servers first, so that they finish the moves they are storing)
            self.proc = subprocess.Popen(
                self.command, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.dead_since = None


def _say(text: str) -> None:
    print(f"exochess cluster: {time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)


def _supervise(child: Child, limit: int) -> None:
    """Restart ``child`` if it died (after :data:`RESTART_DELAY_S`), unless it died ``limit``
    times within :data:`RESTART_WINDOW_S`: then it is left dead and said so.  The others are
    never touched."""
    proc = child.proc
    if child.given_up or proc is None or proc.poll() is None:
        return
    now = time.monotonic()
    if child.dead_since is None:
        child.dead_since = now
        while child.restarts and child.restarts[0] < now - RESTART_WINDOW_S:
            child.restarts.popleft()
        if len(child.restarts) >= limit:
            child.given_up = True
            _say(
                f"{child.name} exited with status {proc.returncode}, {limit + 1} times within "
                f"{RESTART_WINDOW_S:.0f} s: left stopped ({_last_line(child.log)}); the rest runs on"
            )
            return
        _say(
            f"{child.name} exited with status {proc.returncode}; restarting it "
            f"({len(child.restarts) + 1} of {limit} within {RESTART_WINDOW_S:.0f} s)"
        )
    if now - child.dead_since >= RESTART_DELAY_S:
        child.restarts.append(now)
        child.start()


def _postgres_alive(postgres: PostgresServer) -> bool:
    """Whether the postmaster in ``postgres``'s pid file runs."""
    try:
        pid = int((postgres.data / "postmaster.pid").read_text().split()[0])
        os.kill(pid, 0)
    except (OSError, ValueError, IndexError):
        return False
    return True


def _keep_services(redis: RedisServer, postgres: PostgresServer) -> None:
    """Start Redis or PostgreSQL again, on the same port, if it died (they hold the site's
    data and channel: without them nothing works, so no limit)."""
    if redis.proc is not None and redis.proc.poll() is not None:
        _say(f"redis exited with status {redis.proc.returncode}; restarting it on port {redis.port}")
        try:
            redis.start()
        except (OSError, TimeoutError) as exc:
            _say(f"redis did not start again: {exc}; trying again")
    if not _postgres_alive(postgres):
        _say(f"postgresql is not running; restarting it on port {postgres.port}")
        try:
            postgres.start()
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            _say(f"postgresql did not start again ({exc}); trying again")


def run_cluster(args: argparse.Namespace) -> int:
    """Start everything, keep it running (a dead process is started again), stop everything on
    Ctrl-C or SIGTERM."""
    if args.servers < 1 or args.workers < 0:
        return _error("cluster", "--servers must be at least 1 and --workers at least 0")
    made = args.dir is None
    root = Path(tempfile.mkdtemp(prefix="exochess-cluster-") if made else args.dir).resolve()
    if os.geteuid() == 0 and (closed := _unreachable_by_others(root)) is not None and closed != root:
        return _error(
            "cluster",
            f"PostgreSQL runs as user postgres and cannot pass through {closed}:"
            " choose a --dir outside it (e.g. under /srv or /var/lib),"
            f" or chmod o+x {closed}",
        )
    root.mkdir(parents=True, exist_ok=True)
    if made or os.geteuid() == 0:
        root.chmod(0o755)  # PostgreSQL runs as user postgres when we are root: it must get in
    children: list[Child] = []
    try:
        redis = RedisServer(root / "redis")
        postgres = PostgresServer(root / "postgres")
    except MissingProgram as exc:
        return _error("cluster", str(exc))
    stopping = False

    def stop(_signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        print(f"exochess cluster: in {root}", flush=True)
        redis.start()
        print(f"  redis       {redis.url}", flush=True)
        postgres.init().start()
        print(f"  postgresql  {postgres.url}", flush=True)
        env = {**os.environ, "EXOCHESS_REDIS_URL": redis.url, "EXOCHESS_DATABASE_URL": postgres.url}
        logs = root / "logs"
        logs.mkdir(exist_ok=True)

        def spawn(name: str, command: list[str]) -> None:
            child = Child(name, command, logs / f"{name}.log", env)
            child.start()
            children.append(child)

        def wait_server(i: int) -> None:
            port = args.port + i
            try:
                wait_port(port, timeout=60, process=children[i].proc)
            except ChildProcessError as exc:  # say why from its log (a port in use, typically)
                raise ChildProcessError(f"{exc}; {_last_line(logs / f'server-{port}.log')}") from None

        # the first server makes the tables before the others start
        for i in range(args.servers):
            port = args.port + i
            spawn(
                f"server-{port}",
                _python_command(
                    "serve", "--port", str(port), "--log-level", args.log_level, "--log-format", "json"
                ),
            )
            if i == 0:
                wait_server(0)
        for i in range(args.workers):
            # niced: on a machine shared with the servers, the players' moves come first
            spawn(
                f"worker-{i + 1}",
                _python_command(
                    "worker",
                    "--log-level",
                    args.log_level,
                    "--log-format",
                    "json",
                    "--nice",
                    "10",
                    "--metrics-port",
                    str(args.metrics_port + i),
                ),
            )
        for i in range(args.servers):
            wait_server(i)
            print(f"  server      http://127.0.0.1:{args.port + i}/", flush=True)
        for i in range(args.workers):
            print(f"  worker      http://127.0.0.1:{args.metrics_port + i}/metrics (and /readyz)", flush=True)
        print(
            f"  logs in {logs}; a process that dies is restarted (at most {args.restarts} times a "
            "minute); Ctrl-C stops everything",
            flush=True,
        )
        while not stopping:
            for child in children:
                _supervise(child, args.restarts)
            _keep_services(redis, postgres)
            time.sleep(0.2)
        return 0
    except (subprocess.CalledProcessError, TimeoutError, OSError) as exc:
        return _error("cluster", f"could not start: {exc}")
    finally:
        print("exochess cluster: stopping", flush=True)
        procs = [child.proc for child in children if child.proc is not None]
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        postgres.stop()
        redis.stop()
        if made:
            import shutil

            shutil.rmtree(root, ignore_errors=True)
