"""Time a game report's searches at a node budget: the positions of the first ``--plies`` plies
of the first game of a match record, each searched as a report searches it (a fresh search of
``--nodes`` nodes, full strength), one after the other on one core.

    python bench/report_budget.py bench/data/matches/fugue-sprt-150-250-seed61.txt --plies 120 --nodes 3000

Prints the positions, the wall and CPU seconds in all and per position, and the mean depth
(docs/analysis.md, docs/benchmarks.md "Game reports").
"""

from __future__ import annotations

import argparse
import sys
import time

from exochess import Board
from exochess.web.compute.enginepool import compute_report_position
from exochess_lab.record import read_record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("record")
    parser.add_argument("--plies", type=int, default=120)
    parser.add_argument("--nodes", type=int, default=3000)
    parser.add_argument("--game", type=int, default=1, help="which game of the record (default 1)")
    ns = parser.parse_args(argv)
    settings, games = read_record(ns.record)
    moves = list(games[ns.game - 1].moves[: ns.plies])
    wall, cpu = time.perf_counter(), time.process_time()
    start = Board(settings.variant).fen()
    depths = []
    for ply in range(len(moves) + 1):
        depths.append(compute_report_position(settings.variant, start, moves[:ply], ns.nodes)["depth"])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n = len(depths)
    print(
        f"{settings.variant}: {n} positions at {ns.nodes} nodes: {wall:.1f} s wall, {cpu:.1f} s CPU"
        f" ({1000 * cpu / n:.0f} ms CPU a position), mean depth {sum(depths) / n:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
