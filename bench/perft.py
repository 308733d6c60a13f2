"""Perft speed of every registered game, with full make/unmake at every node.

Prints a table of nodes per second on the starting position and middle-game
positions, then the median cost of one push+pop and the memory held by a
board with 200 moves of history.  Figures only: no assertion, no threshold.

    .venv/bin/python bench/perft.py [--quick]
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import statistics
import sys
import time
import tracemalloc

from exochess import Board, all_variants
from exochess.perft import perft

# variant -> [(label, fen or None for the start, depth)]
POSITIONS: dict[str, list[tuple[str, str | None, int]]] = {
    "fugue": [
        ("start", None, 4),
        ("middle 1", "w2ks1ui/1pp2a1p/3p3A/p1p3p1/S1P1U3/2PL4/P2PP1ql/I1PK3W w", 3),
        ("middle 2", "l1qks2u/p1pp2p1/1p1pL1p1/8/4p3/P3Paw1/P1PPPP1P/IUASK1QW b", 3),
        ("middle 3", "1lqk1s1i/p1p1pp1p/1p1p2p1/2a1u3/3P1w2/1P2PA2/P1P2PPP/IU1SKQLW w", 3),
    ],
    "interweave": [
        ("start", None, 4),
        ("middle 1", "r1nkk1br/p2p1Pp1/pp6/3N3p/P5P1/3B4/PP1P3P/R1NKK1BR w - 000011", 3),
        ("chains", "1b1kk1br/p1pp1p1p/p2n3p/2P1NR2/8/4P1PP/P1P1P3/RB1KKNB1 w - 000110", 4),
        ("promotions", "1b1kkn2/p1p4p/p1r4p/2PN1b1p/2P1P1P1/P4p2/B5PP/R2KK1BR w - 010110", 3),
    ],
    "rebelfury": [
        ("start", None, 3),
        (
            "middle 1",
            "f1c3x1g1df/a1a3a1a2a/1a2a1m2a2/3gda1a4/7c4/1h7j2/12/2D3JH4/3AAC6/1A1F1M1A2A1/"
            "A1A3A1A2A/2CG2X1G1DF w",
            2,
        ),
        ("middle 2", "12/10f1/2f6x1a/1a2ma6/4a2g2a1/3h6C1/5Jd5/4G7/6AM4/A1FA4A3/1X7F2/12 b", 3),
        (
            "middle 3",
            "11f/1a1d2c5/a1f1x2ac1ha/1j1a1ga3a1/4a4g2/7m4/3M4J3/1H3G6/2G3D3A1/A2AXA1F1C2/1A2C1A1A2A/F11 w",
            3,
        ),
    ],
}


def measure(board: Board, depth: int) -> tuple[int, float]:
    """Nodes and the CPU seconds this process spent (robust to other load on the machine)."""
    start = time.process_time()
    nodes = perft(board, depth)
    return nodes, time.process_time() - start


def push_pop_median_us(variant: str, batches: int = 30, batch: int = 500) -> float:
    """Median over batches of the CPU time of one push_raw + pop_raw, in microseconds.

    Each batch plays and undoes ``batch`` random moves taken from positions of a
    random game (restarted after 60 plies), so all kinds of moves are included.
    """
    rng = random.Random(1)
    board = Board(variant)
    samples = []
    for _ in range(batches):
        picks = []
        for _ in range(batch):
            raws = board.raw_moves()
            if not raws or board.ply() > 60:
                board = Board(variant)
                raws = board.raw_moves()
            picks.append((board.copy(), rng.choice(raws)))
            board.push_raw(picks[-1][1])
        t0 = time.process_time()
        for position, raw in picks:
            position.push_raw(raw)
            position.pop_raw()
        samples.append((time.process_time() - t0) / batch)
    return statistics.median(samples) * 1e6


def board_memory_kib(variant: str, plies: int = 200, seeds: int = 200) -> tuple[float, int]:
    """KiB allocated and still held by a board after a random game of ``plies`` moves.

    Random games of some variants end early (Interweave's compulsory captures);
    then the longest game found among ``seeds`` tries is measured, and its length
    is reported alongside.
    """
    best: tuple[float, int] = (float("nan"), 0)
    for seed in range(seeds):
        rng = random.Random(seed)
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        board = Board(variant)
        for _ in range(plies):
            moves = board.raw_moves()
            if not moves:
                break
            board.push_raw(rng.choice(moves))
        board.raw_moves()  # the cached move list of the current position counts too
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        if board.ply() > best[1]:
            best = (held / 1024, board.ply())
        if board.ply() == plies:
            break
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one depth less everywhere")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}, {platform.processor() or 'cpu'}")
    print("Times are CPU seconds of this process (time.process_time).")
    print(f"{'game':<12}{'position':<12}{'depth':>6}{'nodes':>12}{'seconds':>10}{'nodes/s':>12}")
    registered = {v.name for v in all_variants()}
    for variant, positions in POSITIONS.items():
        if variant not in registered:
            continue
        total_nodes, total_time = 0, 0.0
        for label, fen, depth in positions:
            depth = max(1, depth - 1) if args.quick else depth
            board = Board(variant, fen=fen)
            nodes, seconds = measure(board, depth)
            total_nodes += nodes
            total_time += seconds
            print(f"{variant:<12}{label:<12}{depth:>6}{nodes:>12,}{seconds:>10.2f}{nodes / seconds:>12,.0f}")
        print(
            f"{variant:<12}{'all':<12}{'':>6}{total_nodes:>12,}{total_time:>10.2f}"
            f"{total_nodes / total_time:>12,.0f}"
        )
    print()
    print(f"{'game':<12}{'push+pop median (us)':>22}{'board + 200 moves (KiB)':>26}")
    for variant in POSITIONS:
        if variant not in registered:
            continue
        kib, plies = board_memory_kib(variant)
        print(f"{variant:<12}{push_pop_median_us(variant):>22.2f}{kib:>20.1f} ({plies} plies)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
