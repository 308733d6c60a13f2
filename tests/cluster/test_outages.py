"""Issue 42's fault tests: realistic outages of Redis, a worker killed in a computer move, and
the engine queue's figures read from the queue itself.  Each runs on a site of its own."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import httpx

from tests.cluster.common import a_move, game_state, new_game
from tests.cluster.harness import Cluster, Worker, wait_ready

WAIT_S = 60.0
"""Generous bound of every wait (the machine may be loaded); no test asserts on a duration."""


def wait_for(what: str, check: Callable[[], Any], timeout: float = WAIT_S) -> Any:
    """Poll ``check`` until it returns something true; fail naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
        except httpx.HTTPError as exc:
            last = exc
        else:
            if last:
                return last
        time.sleep(0.1)
    raise AssertionError(f"{what}: not after {timeout:.0f} s (last: {last!r})")


def scrape(url: str) -> dict[str, float]:
    """The unlabelled (and ``kind``-labelled) samples of ``url``/metrics."""
    res = httpx.get(url + "/metrics", timeout=30)
    assert res.status_code == 200
    samples: dict[str, float] = {}
    for line in res.text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples


def computer_moved(url: str, gid: str, ply: int) -> bool:
    return bool(game_state(url, gid)["ply"] >= ply)


def _at_ply(url: str, gid: str, ply: int) -> Callable[[], bool]:
    return lambda: computer_moved(url, gid, ply)


def _figures(url: str, waiting: int, running: int, workers: int) -> Callable[[], bool]:
    """Whether ``url``'s metrics show this many jobs waiting and running, and workers alive."""

    def check() -> bool:
        m = scrape(url)
        return (
            m["exochess_engine_queue_depth"],
            m["exochess_engine_jobs_running"],
            m["exochess_engine_workers_alive"],
        ) == (waiting, running, workers)

    return check


def test_the_worker_outlives_redis_outages(own_cluster: Cluster) -> None:
    a, b = own_cluster.servers
    worker = own_cluster.workers[0]
    redis = own_cluster.services.redis
    rng = random.Random(42)
    for outage in (3.0, 10.0):
        friend = new_game(a.url, opponent="friend")
        seats = {c: s["secret"] for c, s in friend["seats"].items()}
        redis.stop()
        # the worker says what it waits for (on /readyz and in its log) instead of exiting
        ready = wait_for(
            "the worker's readiness names Redis",
            lambda: (
                (res := httpx.get(worker.url + "/readyz", timeout=5)).status_code == 503
                and "waiting for redis" in res.json()["checks"]["redis"]
                and res
            ),
        )
        assert ready.json()["checks"]["database"] == "ok"
        time.sleep(outage)  # the outage itself, not a wait for an outcome
        assert worker.proc is not None and worker.proc.poll() is None, worker.log_text()[-2000:]
        redis.start()  # same port, empty (no persistence)
        for server in (a, b):
            wait_ready(server.url, WAIT_S)
        wait_for(
            "the worker ready again", lambda: httpx.get(worker.url + "/readyz", timeout=5).status_code == 200
        )
        assert "waiting for it" in worker.log_text() and "redis is back" in worker.log_text()
        # moves across servers resume
        state = game_state(b.url, friend["id"])
        res = httpx.post(
            f"{b.url}/api/games/{friend['id']}/moves",
            timeout=30,
            json={"secret": seats["white"], "move": a_move(state, rng), "ply": 0},
        )
        assert res.status_code == 200, res.text
        wait_for("the move seen on the other server", _at_ply(a.url, friend["id"], 1))
        # and computer games: the same worker process plays a new game's first move
        computer = new_game(a.url, opponent="computer", level=1, color="black")
        wait_for("the computer's first move", _at_ply(b.url, computer["id"], 1))
    assert worker.proc is not None and worker.proc.poll() is None


def _job_running(redis_url: str) -> bool:
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        return bool(client.keys("arq:in-progress:move:*"))
    finally:
        client.close()


def test_a_worker_killed_in_a_computer_move(own_cluster: Cluster) -> None:
    """The dead worker's lease lapses within seconds: its move is run again by another worker,
    stored once; meanwhile every server's figures show the job waiting and no worker."""
    a, b = own_cluster.servers
    redis_url = own_cluster.services.redis.url
    # Rebel Fury at level 8: the first move thinks long enough to be caught running
    game = new_game(a.url, variant="rebelfury", opponent="computer", level=8, color="black")
    gid = game["id"]
    wait_for("the worker takes the job", lambda: _job_running(redis_url))
    assert scrape(b.url)["exochess_engine_jobs_running"] == 1
    own_cluster.workers[0].kill()
    assert game_state(a.url, gid)["ply"] == 0  # it died before storing the move
    # the figures come from the queue: the same on both servers, true without any new game
    for server in (a, b):
        wait_for("the job counted waiting, no worker alive", _figures(server.url, 1, 0, 0))
    engine = httpx.get(a.url + "/api/engine", timeout=30).json()
    assert engine["workers"] == 0 and engine["queued_moves"] == 1
    spare = Worker(own_cluster.root, redis_url, own_cluster.services.postgres.url, "spare").start()
    try:
        wait_for("the computer's move", lambda: computer_moved(b.url, gid, 1))
        api = wait_for(
            "the spare worker counted",
            lambda: (e := httpx.get(b.url + "/api/engine", timeout=30).json())["workers"] == 1 and e,
        )
        assert api["enabled"] is True
        for url in (a.url, b.url, spare.url):
            wait_for("the queue empty again", _figures(url, 0, 0, 1))
        done = scrape(spare.url)
        assert done['exochess_engine_jobs_done_total{kind="move"}'] >= 1
        assert done['exochess_engine_job_run_seconds_total{kind="move"}'] > 0
        # a second run of the job, if there were one, finds the move stored: still one move
        state = game_state(a.url, gid)
        assert state["ply"] == 1 and len(state["moves"]) == 1 and state["turn"] == "black"
    finally:
        spare.stop()
