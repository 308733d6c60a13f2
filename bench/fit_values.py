"""Fit material values by self-play: which material imbalances win games?

    python bench/fit_values.py fugue --games 200 --nodes 300 [--jobs 1]

1. Play ``--games`` fast engine-vs-engine games (both sides the same player,
   ``level=4`` searching ``--nodes`` nodes a move, random opening plies and the
   level's root noise for variety).
2. Record every position after the opening with the final result (1 White won,
   0 Black won; games cut by the move limit are dropped) and the material
   difference per piece type (White count - Black count).
3. Fit a logistic model  P(White wins) = 1 / (1 + exp(-(b + sum_k w_k d_k)))
   by gradient descent; ``w_k`` is what one more piece of type k is worth in
   log-odds of winning.
4. Print the weights rescaled so that the reference type (the pawn / Advancer)
   is worth 100: those are the fitted centipawn values.

The values in each game's ``exochess/variants/<game>/evaluation.py`` were set from these fits and
the reasoning in ``docs/engine.md``.  The fit only sees imbalances that occur
in play: a type that is rarely traded gets a wide error bar, which the script
prints as the number of positions where that type was unbalanced.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from concurrent.futures import ProcessPoolExecutor

from exochess import Board
from exochess.engine import Limits, Searcher
from exochess.engine.levels import level
from exochess_lab.match import random_opening

Sample = tuple[list[int], float]


def play(args: tuple[str, int, int, int]) -> list[Sample]:
    variant, seed, nodes, max_plies = args
    rng = random.Random(seed)
    board = Board(variant)
    for text in random_opening(variant, 6, rng):
        board.push_text(text)
    letters = board.variant.piece_letters
    options = level(4).options()
    searcher = Searcher()
    features: list[list[int]] = []
    while board.outcome() is None and board.ply() < max_plies:
        b = board.squares
        counts = [0] * len(letters)
        for sq in board.geometry.squares:
            v = b[sq]
            if v:
                counts[abs(v) - 1] += 1 if v > 0 else -1
        features.append(counts)
        result = searcher.search(board, Limits(nodes=nodes), options=options, seed=seed * 997 + board.ply())
        board.push(result.best)
    outcome = board.outcome()
    if outcome is None:
        return []
    score = 1.0 if outcome.winner else 0.0
    return [(f, score) for f in features]


def fit(samples: list[Sample], n: int, steps: int = 400, rate: float = 0.5) -> tuple[float, list[float]]:
    """Logistic regression by full-batch gradient descent (features are small integers)."""
    w = [0.0] * n
    b = 0.0
    m = len(samples)
    for _ in range(steps):
        gw = [0.0] * n
        gb = 0.0
        for x, y in samples:
            z = b + sum(wi * xi for wi, xi in zip(w, x, strict=True) if xi)
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            e = p - y
            gb += e
            for i, xi in enumerate(x):
                if xi:
                    gw[i] += e * xi
        b -= rate * gb / m
        for i in range(n):
            w[i] -= rate * gw[i] / m
    return b, w


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="fit material values by self-play")
    parser.add_argument("variant")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--nodes", type=int, default=300)
    parser.add_argument("--max-plies", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--reference", help="type letter worth 100 (default: the last letter, the pawn)")
    args = parser.parse_args(argv)
    board = Board(args.variant)
    letters = board.variant.piece_letters
    tasks = [(board.variant.name, seed, args.nodes, args.max_plies) for seed in range(1, args.games + 1)]
    samples: list[Sample] = []
    done = 0
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for game in pool.map(play, tasks):
            samples.extend(game)
            done += 1
            if done % 10 == 0:
                print(f"{done}/{args.games} games, {len(samples)} positions", file=sys.stderr, flush=True)
    if not samples:
        print("no decisive game: nothing to fit (raise --max-plies or --games)")
        return 1
    b, w = fit(samples, len(letters))
    ref_letter = args.reference or letters[-1]
    ref = w[letters.index(ref_letter)]
    print(f"{args.variant}: {len(samples)} positions from {args.games} games; bias {b:+.3f}")
    print(f"{'type':<5} {'log-odds':>9} {'cp (' + ref_letter + '=100)':>12} {'unbalanced in':>14}")
    for i, letter in enumerate(letters):
        seen = sum(1 for x, _ in samples if x[i])
        cp = 100 * w[i] / ref if ref > 0 else float("nan")
        print(f"{letter:<5} {w[i]:>9.3f} {cp:>12.0f} {seen:>14}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
