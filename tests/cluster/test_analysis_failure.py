"""Issue 45 in Redis mode: a worker killed mid-analysis ends the live analysis with an error
(the server hears nothing from it any more) rather than a wait for ever.

In a module of its own: the other modules' shared cluster has a worker too, which would take
the analysis on the same Redis.
"""

from __future__ import annotations

from typing import Any

import websockets

from tests.cluster.harness import Cluster
from tests.cluster.test_analysis import WAIT_S, analysis_url, infos, start
from tests.web.serverproc import recv_until, run_async


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
