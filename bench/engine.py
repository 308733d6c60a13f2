"""Engine benchmark: nodes per second in middle games and depth reached in 1 s.

    python bench/engine.py [--seconds S] [--variants fugue,interweave,rebelfury]

Middle games are reached by a fixed seeded random walk of 20 plies from the
starting position (the same positions on every run).  Prints figures only;
nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import sys

from exochess import Board
from exochess.engine import Limits, Searcher
from exochess.errors import UnknownVariantError


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=1.0, help="search time per position (default 1)")
    parser.add_argument("--variants", default="fugue,interweave,rebelfury")
    parser.add_argument("--positions", type=int, default=3, help="middle games per variant (default 3)")
    args = parser.parse_args(argv)
    ms = int(args.seconds * 1000)
    print(f"{'variant':<12} {'position':<10} {'depth':>5} {'nodes':>8} {'nodes/s':>8}  best")
    for name in args.variants.split(","):
        try:
            Board(name)
        except UnknownVariantError:
            print(f"{name:<12} (not available on this branch)")
            continue
        boards = [("start", Board(name))]
        boards += [(f"middle{i + 1}", middle_game(name, 20, seed=7 + i)) for i in range(args.positions)]
        total_nodes = 0
        total_ms = 0
        for label, board in boards:
            result = Searcher().search(board, Limits(movetime_ms=ms))
            row = f"{name:<12} {label:<10} {result.depth:>5} {result.nodes:>8} {result.nps:>8}"
            print(f"{row}  {result.best}")
            if label != "start":
                total_nodes += result.nodes
                total_ms += max(1, result.time_ms)
        nps = total_nodes * 1000 // max(1, total_ms)
        print(f"{name:<12} {'middle avg':<10} {'':>5} {total_nodes:>8} {nps:>8}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
