"""Multi-PV bench: fixed-depth searches, their nodes, CPU time and best moves.

    python bench/multipv.py [--depth D] [--multipv N] [--repeat R] [--json]

For every game: the start position and two seeded middle games (``bench/engine.py``'s), each
searched by a fresh :class:`~exochess.engine.search.Searcher` to a fixed depth.  A fixed depth
makes the node count exact, so two builds of the search (say, before and after a change that
must not touch the single-line path) compare by their nodes and best moves, which must be
equal, and by CPU nodes/s, a ratio within one run.  With ``--multipv N`` the same searches
show what N lines cost against one.

Run one tree against another by PYTHONPATH, e.g.::

    PYTHONPATH=/tmp/base/src python bench/multipv.py --json > before.json
    PYTHONPATH=src python bench/multipv.py --json > after.json

Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine import middle_game  # bench/engine.py, beside this file

from exochess import Board, all_variants
from exochess.engine import Limits, Searcher

DEPTHS = {"fugue": 5, "interweave": 5, "rebelfury": 4}
"""Default depth per game (a few seconds each in the pure build)."""


def run(depth: int | None, multipv: int, repeat: int) -> list[dict[str, object]]:
    """One row per (game, position): nodes, best move, the best CPU time of ``repeat`` runs."""
    rows: list[dict[str, object]] = []
    for variant in all_variants():
        boards = [("start", Board(variant.name))]
        boards += [(f"middle{i + 1}", middle_game(variant.name, 20, seed=7 + i)) for i in range(2)]
        d = depth if depth is not None else DEPTHS.get(variant.name, 4)
        for name, board in boards:
            best_cpu = float("inf")
            nodes = 0
            best = ""
            for _ in range(repeat):
                searcher = Searcher()
                t0 = time.process_time()
                if multipv == 1:  # the call of a build without multi-PV, too
                    a = searcher.search(board, Limits(depth=d))
                else:
                    a = searcher.search(board, Limits(depth=d), multipv=multipv)  # type: ignore[call-arg,unused-ignore]
                best_cpu = min(best_cpu, time.process_time() - t0)
                nodes, best = a.nodes, str(a.best)
            rows.append(
                {
                    "game": variant.name,
                    "position": name,
                    "depth": d,
                    "nodes": nodes,
                    "best": best,
                    "cpu_s": round(best_cpu, 3),
                    "nps_cpu": int(nodes / max(best_cpu, 1e-6)),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--depth", type=int, default=None, help="depth for every game (default: per game)")
    parser.add_argument("--multipv", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1, help="runs per position; the fastest counts")
    parser.add_argument("--json", action="store_true", help="the rows as JSON")
    args = parser.parse_args()
    rows = run(args.depth, args.multipv, args.repeat)
    if args.json:
        print(json.dumps(rows))
        return
    for r in rows:
        print(
            f"{r['game']:<11} {r['position']:<8} depth {r['depth']} nodes {r['nodes']:>9} "
            f"cpu {r['cpu_s']:>7.3f} s  {r['nps_cpu']:>8} nodes/s  best {r['best']}"
        )
    total_nodes = sum(int(str(r["nodes"])) for r in rows)
    total_cpu = sum(float(str(r["cpu_s"])) for r in rows)
    print(f"total nodes {total_nodes} cpu {total_cpu:.2f} s  {int(total_nodes / total_cpu)} nodes/s")


if __name__ == "__main__":
    main()
