"""Time to a live analysis's first ``info`` line (issue 45's target: under 300 ms), on one
process (the engine pool) and in Redis mode (a server, Redis, PostgreSQL and one
``exochess worker``, all on 127.0.0.1; the update comes over pub/sub).

Each run opens ``/ws/analysis``, sends ``start`` (three lines, the game's start position, a
different game each run) and times the wait until the first ``info``, then stops the analysis
and waits for its ``done`` (the worker free again).  The first run of each site is a warm-up
(a fresh worker loads the engine) and is left out.  The machine is shared: compare the two
modes within one run of this script.

Run:

    nice -n 10 .venv/bin/python bench/live_first_info.py --runs 6
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import websockets

from exochess.variants import all_variants

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.web.serverproc import Server

VARIANTS = [variant.name for variant in all_variants()]
"""Every registered game."""


async def first_info(url: str, variant: str) -> float:
    """Seconds from ``start`` to the first ``info`` of one live analysis on ``url``."""
    async with websockets.connect(url.replace("http://", "ws://") + "/ws/analysis", open_timeout=60) as ws:
        asked = time.perf_counter()
        await ws.send(json.dumps({"type": "start", "variant": variant, "lines": 3, "movetime_ms": 10_000}))
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 120))
            if msg["type"] == "info":
                took = time.perf_counter() - asked
                break
            if msg["type"] == "error":
                raise RuntimeError(msg)
        await ws.send(json.dumps({"type": "stop"}))
        while json.loads(await asyncio.wait_for(ws.recv(), 120))["type"] != "done":
            pass
    return took


def measure(url: str, runs: int) -> list[float]:
    asyncio.run(first_info(url, "fugue"))  # warm-up
    return [asyncio.run(first_info(url, VARIANTS[i % len(VARIANTS)])) for i in range(runs)]


def show(name: str, times: list[float]) -> None:
    ms = sorted(t * 1000 for t in times)
    print(
        f"{name:<22} runs {len(ms):>2}  median {statistics.median(ms):7.1f} ms"
        f"  min {ms[0]:7.1f}  max {ms[-1]:7.1f}  [{', '.join(f'{m:.0f}' for m in ms)}]"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=6, help="measured runs per mode (default 6)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="exochess-live-bench-"))
    results: dict[str, list[float]] = {}
    server = Server(root / "one.sqlite", engine_workers=2).start()
    try:
        results["one process (pool)"] = measure(server.url, args.runs)
    finally:
        server.stop()
    from tests.cluster.harness import Cluster, Services

    services = Services().start()
    try:
        cluster = Cluster(services, servers=1, workers=1).start()
        try:
            results["Redis mode (worker)"] = measure(cluster.servers[0].url, args.runs)
        finally:
            cluster.stop()
    finally:
        services.stop()
    for name, times in results.items():
        show(name, times)


if __name__ == "__main__":
    main()
