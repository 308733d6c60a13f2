"""Engine benchmark: nodes per second in middle games and depth reached in 1 s.

    python bench/engine.py [--seconds S] [--variants fugue,interweave,...]

For every game: the starting position and three middle games (Fugue: the
positions of ``bench/perft.py``; the other games: a fixed seeded random walk of
20 plies).  Each search runs with a generous wall-clock cap and reports

* ``nodes/s`` — nodes per second of *CPU time* of this process (robust to other
  load on a shared machine) and, for reference, per wall-clock second;
* ``depth@1s`` — the deepest iteration completed within ``--seconds`` seconds
  of CPU time.

Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from exochess import Board, all_variants
from exochess.engine import Analysis, Limits, Searcher
from exochess.errors import UnknownVariantError

FUGUE_MIDDLE = [
    "w2ks1ui/1pp2a1p/3p3A/p1p3p1/S1P1U3/2PL4/P2PP1ql/I1PK3W w",
    "l1qks2u/p1pp2p1/1p1pL1p1/8/4p3/P3Paw1/P1PPPP1P/IUASK1QW b",
    "1lqk1s1i/p1p1pp1p/1p1p2p1/2a1u3/3P1w2/1P2PA2/P1P2PPP/IU1SKQLW w",
]


def middle_game(variant: str, plies: int = 20, seed: int = 7) -> Board:
    """A reproducible middle-game position: ``plies`` seeded random moves (never a game end)."""
    rng = random.Random(seed)
    board = Board(variant)
    for _ in range(plies):
        moves = board.raw_moves()
        if not moves:
            break
        choices = list(moves)
        rng.shuffle(choices)
        for raw in choices:
            board.push_raw(raw)
            if board.raw_moves():
                break
            board.pop_raw()
    return board


def positions(variant: str, count: int) -> list[tuple[str, Board]]:
    boards = [("start", Board(variant))]
    if variant == "fugue":
        boards += [(f"middle{i + 1}", Board(variant, fen=fen)) for i, fen in enumerate(FUGUE_MIDDLE[:count])]
    else:
        boards += [(f"middle{i + 1}", middle_game(variant, 20, seed=7 + i)) for i in range(count)]
    return boards


def measure(board: Board, seconds: float) -> tuple[int, int, int, int, str]:
    """(depth within ``seconds`` CPU, nodes, nodes per CPU second, nodes per wall second, best move)."""
    cpu0 = time.process_time()
    wall0 = time.perf_counter()
    completed: list[tuple[float, int]] = []

    def note(a: Analysis) -> None:
        completed.append((time.process_time() - cpu0, a.depth))

    searcher = Searcher()
    # Wall cap well above the CPU budget: other processes may share the cores.
    result = searcher.search(board, Limits(movetime_ms=int(seconds * 4000)), on_iteration=note)
    cpu = max(1e-6, time.process_time() - cpu0)
    wall = max(1e-6, time.perf_counter() - wall0)
    depth = max((d for t, d in completed if t <= seconds), default=0)
    return depth, result.nodes, int(result.nodes / cpu), int(result.nodes / wall), str(result.best)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds for the depth figure")
    parser.add_argument("--variants", default=",".join(v.name for v in all_variants()))
    parser.add_argument("--positions", type=int, default=3, help="middle games per variant (default 3)")
    args = parser.parse_args(argv)
    print(f"{'variant':<12} {'position':<9} {'depth@1s':>8} {'nodes':>8} {'nodes/s':>8} {'(wall)':>8}  best")
    for name in args.variants.split(","):
        try:
            Board(name)
        except UnknownVariantError:
            print(f"{name:<12} (not available on this branch)")
            continue
        total_nodes = 0
        total_cpu = 0.0
        for label, board in positions(name, args.positions):
            depth, nodes, nps, wall_nps, best = measure(board, args.seconds)
            print(f"{name:<12} {label:<9} {depth:>8} {nodes:>8} {nps:>8} {wall_nps:>8}  {best}")
            sys.stdout.flush()
            if label != "start":
                total_nodes += nodes
                total_cpu += nodes / max(1, nps)
        average = int(total_nodes / max(1e-6, total_cpu))
        print(f"{name:<12} {'middle':<9} {'':>8} {total_nodes:>8} {average:>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
