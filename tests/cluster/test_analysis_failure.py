"""Issue 45 in Redis mode when a part dies: a worker killed mid-analysis ends the live
analysis with an error (the server hears nothing from it any more) rather than a wait for ever;
a server killed mid-report leaves the report to another (its lease in the database lapses).

In a module of its own: a module's shared cluster has a worker too, which would take the jobs
on the same Redis.
"""

from __future__ import annotations

from typing import Any

import httpx
import websockets

from tests.cluster.harness import Cluster, Services, wait_ready
from tests.cluster.test_analysis import WAIT_S, analysis_url, infos, start
from tests.web.serverproc import recv_until, run_async
from tests.web.test_web_reports import random_game, wait_report


def test_a_worker_killed_mid_analysis_ends_it_with_an_error(own_cluster: Cluster) -> None:
    a = own_cluster.servers[0].url

    async def run() -> dict[str, Any]:
        async with websockets.connect(analysis_url(a), open_timeout=30) as ws:
            started = await start(ws, variant="rebelfury", movetime_ms=60_000)
            assert started["type"] == "started", started
            await infos(ws, started, 1)
            own_cluster.workers[0].kill()
            return await recv_until(ws, "error", timeout=WAIT_S)

    error = run_async(run)
    assert error["status"] == 503 and "stopped answering" in error["error"], error


def test_a_report_whose_server_dies_is_finished_by_another(services: Services) -> None:
    """Game reports in Redis mode: the report is run by server A alone (B is stopped), A dies
    mid-report, and B, started again, takes the report over once A's lease has lapsed and
    finishes it from where A stopped."""
    env = {"EXOCHESS_REPORT_NODES": "600", "EXOCHESS_REPORT_AUTO": "0", "EXOCHESS_REPORT_LEASE_S": "2"}
    site = Cluster(services, servers=2, workers=1, env=env).start()
    a, b = site.servers
    try:
        b.stop()
        with httpx.Client(base_url=a.url, timeout=60.0) as c:
            game = random_game(c, 12, seed=45)
            assert c.post(f"/api/games/{game}/report", json={}).status_code == 200
            running = wait_report(c, game, lambda d: d["done"] >= 2)
        a.kill()  # a crash: its lease is never given back
        b.start()
        wait_ready(b.url)
        with httpx.Client(base_url=b.url, timeout=60.0) as c:
            after = c.get(f"/api/games/{game}/report").json()
            assert after["done"] >= running["done"] and after["total"] == 13, after
            done = wait_report(c, game, lambda d: d["status"] == "done")
        assert len(done["report"]["moves"]) == 12 and len(done["report"]["white_percent"]) == 13
    finally:
        site.stop()
