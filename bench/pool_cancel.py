"""How soon a cancelled analysis frees its worker in the site's engine pool (issue 48).

    python bench/pool_cancel.py [--variants NAME,...] [--tries 10]

    EXOCHESS_PURE=1 python bench/pool_cancel.py          (the pure build)
    PYTHONPATH=build/compiled python bench/pool_cancel.py (the compiled build)

An :class:`EnginePool` with one worker (no express worker) is asked for a 5-second analysis
of a position of each game (the start, then a few plies in); after 0.3-1.3 s the awaiting
task is cancelled, as when the browser goes away.  The latency is the time from the
cancellation to the pool counting no running job (the worker answered and is free).  The
build is the one this interpreter imports (its workers are spawned with the same path).
Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import time

from exochess.board import Board
from exochess.compiled import COMPILED
from exochess.variants import all_variants
from exochess.web.compute.enginepool import EnginePool


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def measure(variants: list[str], tries: int, rng: random.Random) -> dict[str, list[float]]:
    pool = EnginePool(1, express=False, analysis_cap_ms=5000)
    await pool.warm()
    out: dict[str, list[float]] = {}
    try:
        for variant in variants:
            board = Board(variant)
            texts: list[str] = []
            for _ in range(4):
                move = sorted(board.legal_moves, key=str)[rng.randrange(len(board.legal_moves))]
                texts.append(str(move))
                board.push(move)
            lat = out.setdefault(variant, [])
            for _ in range(tries):
                task = asyncio.create_task(pool.analyse(variant, Board(variant).fen(), texts, 5000))
                while pool.stats().running == 0:
                    await asyncio.sleep(0.001)
                await asyncio.sleep(rng.uniform(0.3, 1.3))
                cancelled = time.perf_counter()
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                while pool.stats().running:
                    await asyncio.sleep(0.0005)
                lat.append((time.perf_counter() - cancelled) * 1000)
    finally:
        pool.shutdown()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variants", default=",".join(v.name for v in all_variants()))  # every game
    parser.add_argument("--tries", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    results = asyncio.run(measure(args.variants.split(","), args.tries, random.Random(args.seed)))
    build = "compiled" if COMPILED else "pure"
    print(f"pool_cancel ({build} build): ms from cancelling a 5 s analysis to a free worker")
    print()
    print("| build | game | p50 / p99 / max (n) |")
    print("|---|---|---|")
    for variant, lat in results.items():
        print(
            f"| {build} | {variant} | {statistics.median(lat):.1f} / {percentile(lat, 99):.1f} / "
            f"{max(lat):.1f} ({len(lat)}) |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
