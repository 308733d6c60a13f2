"""``exochess cluster`` keeps the site up: a killed server or worker is started again, the
others untouched; Ctrl-C (SIGINT) stops everything."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from tests.cluster.harness import missing_programs, wait_ready
from tests.web.serverproc import free_port

WAIT_S = 300.0
"""Bound of each wait: the first one covers initdb, PostgreSQL, Redis, a server and a worker
starting, which took over 120 s on this 2-core machine under a loaded test run (29 Nov 2026)."""


def _pids_with(arg: str, parent: int) -> list[int]:
    """Children of ``parent`` whose command line holds ``arg``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        if ppid == parent and arg.encode() in cmdline:
            found.append(int(entry.name))
    return found


def _wait(what: str, check: object, timeout: float = WAIT_S) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()  # type: ignore[operator]
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"{what}: not after {timeout:.0f} s")


def test_the_cluster_restarts_a_killed_child() -> None:
    why = missing_programs()
    if why is not None:
        pytest.skip(why)
    port, metrics_port = free_port(), free_port()
    with tempfile.TemporaryDirectory(prefix="exochess-supervise-") as tmp:
        root = Path(tmp)
        root.chmod(0o755)  # PostgreSQL runs as user postgres when we are root
        err = open(root / "cluster.err", "wb")  # noqa: SIM115 - read at the end
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "exochess.cli.main",
                "cluster",
                "--servers",
                "1",
                "--workers",
                "1",
                "--port",
                str(port),
                "--metrics-port",
                str(metrics_port),
                "--dir",
                str(root / "site"),
                "--log-level",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_ready(url, WAIT_S)
            server = _pids_with("serve", proc.pid)
            worker = _pids_with("worker", proc.pid)
            assert len(server) == 1 and len(worker) == 1
            for victim, arg in ((worker[0], "worker"), (server[0], "serve")):
                os.kill(victim, signal.SIGKILL)
                _wait(
                    f"the {arg} started again",
                    lambda a=arg, v=victim: (now := _pids_with(a, proc.pid)) and v not in now,
                )
                assert proc.poll() is None  # the cluster itself runs on
            wait_ready(url, WAIT_S)
            _wait("the worker's readiness", lambda: _ready(f"http://127.0.0.1:{metrics_port}/readyz"))
            assert _pids_with("worker", proc.pid) and _pids_with("serve", proc.pid)
            text = (root / "cluster.err").read_text()
            assert "worker-1 exited with status -9; restarting it" in text, text
            assert f"server-{port} exited with status -9; restarting it" in text, text
        finally:
            os.kill(proc.pid, signal.SIGINT)
            try:
                code = proc.wait(90)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                raise
            err.close()
        assert code == 0
        assert not _pids_with("serve", proc.pid)


def _ready(url: str) -> bool:
    try:
        return httpx.get(url, timeout=5).status_code == 200
    except httpx.HTTPError:
        return False
