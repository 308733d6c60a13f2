"""One process per task (exochess_lab/parallel.py): stopping the parent stops its workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PARENT = """
import sys
from exochess_lab.parallel import map_in_processes
from tests.engine.test_parallel import sleeper
for _ in map_in_processes(sleeper, [sys.argv[1] + "/a", sys.argv[1] + "/b"], 2):
    pass
"""


def sleeper(path: str) -> None:
    """A task that says it started (its pid in ``path``) and then runs until it is stopped."""
    Path(path + ".tmp").write_text(str(os.getpid()))
    Path(path + ".tmp").rename(path)
    time.sleep(600)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (dead, not yet reaped by its new parent) has finished running too.
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ")[-1][0] != "Z"


def wait_until(condition: object, what: str) -> None:
    for _ in range(600):  # a generous bound on a loaded machine, not a timing assertion
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(what)


def test_sigterm_to_the_parent_terminates_the_running_workers(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(tmp_path)], cwd=ROOT, env=env)
    try:
        files = [tmp_path / "a", tmp_path / "b"]
        wait_until(lambda: all(f.exists() for f in files), "the workers did not start")
        workers = [int(f.read_text()) for f in files]
        parent.send_signal(signal.SIGTERM)
        assert parent.wait(timeout=60) == 128 + signal.SIGTERM
        wait_until(lambda: not any(alive(pid) for pid in workers), "a worker outlived its parent")
    finally:
        if parent.poll() is None:
            parent.kill()
