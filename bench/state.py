"""CPU per game-state encoding and per stored move, in one process (issue 39, item 6).

    python bench/state.py [--plies 60] [--encodings 2000] [--moves 400] [--rounds 3]

A friend game is played to ``--plies`` plies in each of the three games (a set of legal moves
chosen the same way every run); then its state is encoded ``--encodings`` times from scratch
(the cached text dropped each time, the history and legal-move view kept, as after a move),
and ``--moves`` further moves are played and stored in fresh games (SQLite file, the service's
real threads).  CPU is the process's (``time.process_time``: every thread), so the figures hold
on a shared machine better than wall time; compare builds by their ratio within one run.

To compare with another source tree (the former encoder, say), run this script with that tree
first on the path, alternating: ``PYTHONPATH=/path/to/tree/src python bench/state.py``.  Only the
service's public calls are used (``create``, ``play``, ``get``, ``state_text``).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from exochess.board import Board
from exochess.variants import all_variants
from exochess.web.domain import Color
from exochess.web.game.service import GameService
from exochess.web.live.hub import Hub
from exochess.web.storage.store import Storage

GAMES = [variant.name for variant in all_variants()]
"""Every registered game."""


def line(variant: str, plies: int, seed: int) -> list[str]:
    """``plies`` legal move texts of ``variant`` (fewer if the game ends), the same every run."""
    rng = random.Random(seed)
    board = Board(variant)
    texts: list[str] = []
    while len(texts) < plies:
        moves = sorted(str(m) for m in board.legal_moves)
        if not moves:
            break
        board.push_text(rng.choice(moves))
        if board.is_game_over():
            board.pop()
            break
        texts.append(str(board.peek()))
    return texts


async def measure(plies: int, encodings: int, moves: int) -> dict[str, float]:
    """µs of CPU per state encoding (per game) and per stored move."""
    folder = tempfile.mkdtemp()
    svc = GameService(Storage(f"sqlite:///{folder}/bench.sqlite"), None, Hub())
    figures: dict[str, float] = {}
    try:
        for variant in GAMES:
            texts = line(variant, plies, 1)
            live, seats, _you = await svc.create(variant, "friend", None, "white", None)
            for ply, text in enumerate(texts):
                await svc.play(live.row.id, seats[Color.WHITE if ply % 2 == 0 else Color.BLACK], text, ply)
            live = await svc.get(live.row.id)  # the legal-move view is ready, as when publishing
            size = len(svc.reader.state_text(live))
            start = time.process_time()
            for _ in range(encodings):
                live.state_cache = None
                svc.reader.state_text(live)
            figures[f"state {variant} ({len(texts)} plies, {size:,} chars)"] = (
                (time.process_time() - start) / encodings * 1e6
            )
        texts = line("fugue", 20, 2)
        played = 0
        start = time.process_time()
        while played < moves:
            live, seats, _you = await svc.create("fugue", "friend", None, "white", None)
            for ply, text in enumerate(texts):
                await svc.play(live.row.id, seats[Color.WHITE if ply % 2 == 0 else Color.BLACK], text, ply)
                svc.reader.state_text(live)  # as publishing does
                played += 1
        figures["stored move (fugue, with its state)"] = (time.process_time() - start) / played * 1e6
    finally:
        svc.close()
        svc.storage.close()
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plies", type=int, default=60)
    parser.add_argument("--encodings", type=int, default=2000)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    import exochess.web.game.service as service_module

    print(f"source: {Path(service_module.__file__).parents[3]}", file=sys.stderr)
    rounds = [asyncio.run(measure(args.plies, args.encodings, args.moves)) for _ in range(args.rounds)]
    for name in rounds[0]:
        values = [r[name] for r in rounds]
        print(
            f"{name:55s} median {statistics.median(values):9.1f} µs CPU  (rounds: "
            + ", ".join(f"{v:.1f}" for v in values)
            + ")"
        )


if __name__ == "__main__":
    main()
