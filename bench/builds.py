"""The pure and the compiled build side by side: the same work, timed in each, and the ratios.

    make compiled
    PYTHONPATH=build/compiled .venv/bin/python bench/builds.py [--rounds 2] [--nodes 20000]

Each build runs in its own process (``EXOCHESS_PURE=1`` for the pure one), alternating
pure, compiled, pure, compiled ... for ``--rounds`` rounds; every figure keeps the best of
its rounds (the least disturbed by other load on a shared machine).  The work is fixed, so
both builds do exactly the same thing:

* perft: the positions and depths of ``bench/perft.py`` (``--quick``: one depth less);
* engine: a search of ``--nodes`` nodes from each middle game of ``bench/engine.py``
  (a node budget, not a time limit, so both builds search the same tree), timed from the
  call to the answer (making and freeing the searcher are not counted);
* python-chess (``pip install chess``, when installed): perft of orthodox chess from the
  start and from "Kiwipete" with its ``legal_moves``/``push``/``pop``, every node played
  and undone as ours are, timed in the same run (between the builds' processes) as the
  yardstick of the issue's targets; each game's perft figures are also given as a
  multiple of it.

Times are CPU seconds of the measuring process.  Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BUILDS = ("pure", "compiled")


def worker(quick: bool, nodes: int, middles: int) -> None:
    """Measure in this process and print one JSON object: game -> work -> (nodes, seconds)."""
    sys.path.insert(0, str(HERE))
    from engine import positions  # bench/engine.py
    from perft import POSITIONS  # bench/perft.py

    import exochess
    from exochess import Board
    from exochess.engine import Limits, Searcher
    from exochess.perft import perft

    registered = {v.name for v in exochess.all_variants()}
    figures: dict[str, dict[str, tuple[int, float]]] = {}
    for game, perft_positions in POSITIONS.items():
        if game not in registered:
            continue
        count, seconds = 0, 0.0
        for _label, fen, depth in perft_positions:
            board = Board(game, fen=fen)
            start = time.process_time()
            count += perft(board, max(1, depth - 1) if quick else depth)
            seconds += time.process_time() - start
        searched, search_seconds = 0, 0.0
        for _label, board in positions(game, middles)[1:]:
            # The searcher is made and freed outside the clock, as in bench/engine.py and in play
            # (a game keeps its searcher; Searcher.release frees full caches after the answer):
            # freeing its table and caches took 14 ms (Fugue) to 25 ms (Rebel Fury) per three
            # searches in either build, some 7% of the compiled build's search time.
            searcher = Searcher()
            start = time.process_time()
            searched += searcher.search(board, Limits(nodes=nodes)).nodes
            search_seconds += time.process_time() - start
            del searcher
        figures[game] = {"perft": (count, seconds), "engine": (searched, search_seconds)}
    print(json.dumps({"build": exochess.BUILD, "figures": figures}))


# Orthodox chess perft for python-chess: (FEN, depth).  Depths keep each under a few seconds.
CHESS_POSITIONS = (
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3),
)


def chess_perft(board: Any, depth: int) -> int:
    """python-chess perft with every node played and undone (no bulk counting at the leaves)."""
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += chess_perft(board, depth - 1)
        board.pop()
    return total


def chess_worker() -> None:
    """Measure python-chess's perft in this process; print JSON (nodes, seconds) or null."""
    try:
        import chess
    except ImportError:
        print(json.dumps(None))
        return
    count, seconds = 0, 0.0
    for fen, depth in CHESS_POSITIONS:
        board = chess.Board(fen)
        start = time.process_time()
        count += chess_perft(board, depth)
        seconds += time.process_time() - start
    print(json.dumps([count, seconds]))


def run_chess() -> tuple[int, float] | None:
    command = [sys.executable, __file__, "--chess-worker"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.splitlines()[-1])
    return None if result is None else (int(result[0]), float(result[1]))


def run(build: str, args: argparse.Namespace) -> dict[str, dict[str, tuple[int, float]]]:
    env = {k: v for k, v in os.environ.items() if k != "EXOCHESS_PURE"}
    if build == "pure":
        env["EXOCHESS_PURE"] = "1"
    command = [
        sys.executable,
        __file__,
        "--worker",
        "--nodes",
        str(args.nodes),
        "--positions",
        str(args.positions),
        *(["--quick"] if args.quick else []),
    ]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.splitlines()[-1])
    if result["build"] != build:
        sys.exit(
            f"the {build} build is not available here (got {result['build']}): "
            "run `make compiled` and set PYTHONPATH=build/compiled"
        )
    figures: dict[str, dict[str, tuple[int, float]]] = result["figures"]
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=2, help="runs of each build, alternating (default 2)")
    parser.add_argument("--nodes", type=int, default=20_000, help="search budget per middle game")
    parser.add_argument("--positions", type=int, default=3, help="middle games per game (default 3)")
    parser.add_argument("--quick", action="store_true", help="perft one depth less")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--chess-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.quick, args.nodes, args.positions)
        return 0
    if args.chess_worker:
        chess_worker()
        return 0
    chess_best: tuple[int, float] | None = None
    best: dict[str, dict[str, dict[str, tuple[int, float]]]] = {build: {} for build in BUILDS}
    for _ in range(args.rounds):
        for build in BUILDS:
            for game, works in run(build, args).items():
                for work, (nodes, seconds) in works.items():
                    kept = best[build].setdefault(game, {}).get(work)
                    if kept is None or seconds < kept[1]:
                        best[build][game][work] = (nodes, seconds)
        measured = run_chess()
        if measured is not None and (chess_best is None or measured[1] < chess_best[1]):
            chess_best = measured
    chess_rate: float | None = None
    if chess_best is None:
        print("python-chess is not installed (pip install chess): no yardstick")
    else:
        chess_rate = chess_best[0] / chess_best[1]
        print(f"python-chess perft: {chess_best[0]:,} nodes, {chess_rate:,.0f} nodes/s")
    print(
        f"{'game':<12}{'work':<8}{'nodes':>11}{'pure n/s':>12}{'compiled n/s':>14}{'ratio':>8}"
        f"{'pure/pc':>9}{'comp/pc':>9}"
    )
    for game, works in best["pure"].items():
        for work, (nodes, pure_seconds) in works.items():
            compiled_nodes, compiled_seconds = best["compiled"][game][work]
            if compiled_nodes != nodes:
                print(f"{game:<12}{work:<8} the builds counted different nodes: {nodes} and {compiled_nodes}")
                continue
            pure_rate, compiled_rate = nodes / pure_seconds, nodes / compiled_seconds
            versus = ""
            if work == "perft" and chess_rate is not None:
                versus = f"{pure_rate / chess_rate:>9.2f}{compiled_rate / chess_rate:>9.2f}"
            print(
                f"{game:<12}{work:<8}{nodes:>11,}{pure_rate:>12,.0f}{compiled_rate:>14,.0f}"
                f"{compiled_rate / pure_rate:>8.2f}{versus}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
