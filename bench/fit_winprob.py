"""Fit each game's win-probability curve from the engine's own games (issue 45).

    python bench/fit_winprob.py bench/data/matches/fugue-sprt-150-250-seed61.txt [--depth 2] [--write]

The game reports (``exochess.review``, docs/analysis.md) turn an engine score into the chance
that the side to move wins with a logistic curve

    P(win) = 1 / (1 + exp(-k * score_cp))

whose slope ``k`` this script fits for one game from match records (``exochess match --record``):

1. every game of the records is replayed; each position from ``--skip`` plies on (past the
   random opening) up to the last before the end, every ``--every``-th one, is searched by the
   engine at full strength to ``--depth`` (a fast search: the curve needs many positions more
   than deep ones);
2. each position is labelled 1 if its side to move went on to win the game, 0 if it lost
   (a drawn game, at the move limit, is dropped; so is a position scored as a forced mate,
   which the reports take as certain anyway);
3. ``k`` is the maximum-likelihood fit over all positions (Newton's method on the one-parameter
   log-likelihood; no intercept: the curve is symmetric, a position and its mirror with the
   other side to move score opposite), with its standard error from the Fisher information.

With ``--write`` the result goes to ``src/exochess/variants/<game>/winprob.json`` (the one owner
of the fact; ``exochess.review.win_curve`` reads it), with the command and the records it came
from.  The fitted values and the command are in docs/analysis.md.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from exochess import Board
from exochess.engine import Limits, Searcher
from exochess.engine.search import MATE_BOUND
from exochess.variant import resolve_variant
from exochess_lab.record import read_record

Sample = tuple[float, int]
"""(score in centipawns from the side to move's view, 1 if that side won else 0)."""

FORMAT = 1
"""The ``format`` of ``winprob.json`` that ``exochess.review`` reads."""
VARIANTS_DIR = Path(__file__).resolve().parents[1] / "src" / "exochess" / "variants"


def game_samples(args: tuple[str, tuple[str, ...], float, int, int, int]) -> list[Sample]:
    """The labelled positions of one game (run in a worker process)."""
    variant, moves, white_score, depth, skip, every = args
    if white_score == 0.5:
        return []
    board = Board(variant)
    searcher = Searcher(hash_mb=16)
    out: list[Sample] = []
    for ply, text in enumerate(moves):
        if ply >= skip and (ply - skip) % every == 0:
            result = searcher.search(board, Limits(depth=depth))
            if abs(result.score_cp) < MATE_BOUND:
                white_to_move = board.turn
                won = (white_score == 1.0) == bool(white_to_move)
                out.append((float(result.score_cp), 1 if won else 0))
        board.push_text(text)
    return out


def fit_k(samples: list[Sample], iterations: int = 50) -> tuple[float, float]:
    """(k, its standard error): the maximum-likelihood slope of P(win) = 1/(1+exp(-k s))."""
    k = 0.004  # chess's curve is about this steep per centipawn: a start near the answer
    info = 0.0
    for _ in range(iterations):
        grad = 0.0
        info = 0.0
        for s, y in samples:
            p = 1.0 / (1.0 + math.exp(-k * s))
            grad += (y - p) * s
            info += p * (1.0 - p) * s * s
        if info <= 0:
            break
        step = grad / info
        k += step
        if abs(step) < 1e-10:
            break
    return k, (1.0 / math.sqrt(info) if info > 0 else math.inf)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", help="match records of one game (exochess match --record)")
    parser.add_argument("--depth", type=int, default=2, help="search depth of each position (default 2)")
    parser.add_argument("--skip", type=int, default=6, help="plies skipped at each game's start (default 6)")
    parser.add_argument("--every", type=int, default=1, help="search one position in this many (default 1)")
    parser.add_argument("--jobs", type=int, default=1, help="games replayed at once (default 1)")
    parser.add_argument(
        "--games", type=int, default=0, help="use the first N games of each record (default all)"
    )
    parser.add_argument("--write", action="store_true", help="write variants/<game>/winprob.json")
    ns = parser.parse_args(argv)
    variant_name = None
    jobs: list[tuple[str, tuple[str, ...], float, int, int, int]] = []
    for path in ns.records:
        settings, games = read_record(path)
        name = resolve_variant(settings.variant).name
        if variant_name not in (None, name):
            parser.error(f"{path} records {name}, the others {variant_name}: one game at a time")
        variant_name = name
        chosen = games[: ns.games] if ns.games > 0 else games
        jobs += [(name, g.moves, g.score, ns.depth, ns.skip, ns.every) for g in chosen]
    assert variant_name is not None
    with ProcessPoolExecutor(max_workers=max(1, ns.jobs)) as pool:
        samples = [s for game in pool.map(game_samples, jobs) for s in game]
    k, se = fit_k(samples)
    decisive = sum(1 for _v, _m, score, *_ in jobs if score != 0.5)
    command = "python bench/fit_winprob.py " + " ".join(
        [
            *(str(Path(p)) for p in ns.records),
            f"--depth {ns.depth}",
            f"--skip {ns.skip}",
            f"--every {ns.every}",
            *([f"--games {ns.games}"] if ns.games > 0 else []),
        ]
    )
    data = {
        "format": FORMAT,
        "k": round(k, 6),
        "k_stderr": round(se, 6),
        "score_unit": "centipawns, side to move",
        "games": decisive,
        "positions": len(samples),
        "search": f"depth {ns.depth}, full strength",
        "records": [Path(p).name for p in ns.records],
        "command": command,
    }
    text = json.dumps(data, indent=2) + "\n"
    sys.stdout.write(text)
    if ns.write:
        (VARIANTS_DIR / variant_name / "winprob.json").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
