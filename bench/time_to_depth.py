"""Time to depth: nodes and CPU seconds a search takes to complete a fixed depth.

    python bench/time_to_depth.py rebelfury --depth 5 [--every 10] [--player level=8,late_move_pruning=1]

Searches every ``--every``-th position of ``bench/data/sample-<game>.jsonl`` (positions from
self-play games, 200 a game) to ``--depth`` plies with a fresh searcher each, as the match
player ``--player`` searches (the same text as ``exochess match --a``: a level, search
switches, evaluation overrides; default ``level=8``), and prints the total nodes, the CPU
seconds and the best moves.  A pruning switch that reaches the same depth sooner lets
a timed search go deeper; whether the moves it then plays are better is for a match to say
(``exochess match``), so nothing is judged here.  Run it on the compiled build
(``PYTHONPATH=build/compiled``) to see the figures a match plays at.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from exochess import Board, all_variants
from exochess.compiled import COMPILED
from exochess.engine import Limits, Searcher
from exochess.errors import ExochessError
from exochess_lab.match import parse_player

DATA = Path(__file__).parent / "data"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("variant", choices=[v.name for v in all_variants()])
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--every", type=int, default=10, help="take every N-th sample position (default 10)")
    parser.add_argument("--player", default="level=8", help="a match player's text (default level=8)")
    args = parser.parse_args(argv)
    try:
        player = parse_player(args.player)
    except ExochessError as exc:
        parser.error(f"--player: {exc}")
    options = player.options(args.variant)
    lines = (DATA / f"sample-{args.variant}.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines][:: args.every]
    nodes = 0
    cpu = 0.0
    moves = []
    for row in rows:
        board = Board(args.variant, fen=row["fen"])
        start = time.process_time()
        result = Searcher(player.evaluator(board)).search(board, Limits(depth=args.depth), options=options)
        cpu += time.process_time() - start
        nodes += result.nodes
        moves.append(str(result.best))
    build = "compiled" if COMPILED else "pure"
    print(
        f"{args.variant} depth {args.depth}, {len(rows)} positions, {build}, player {args.player}: "
        f"{nodes} nodes, {cpu:.1f} s CPU, {nodes / max(cpu, 1e-9):.0f} nodes/s"
    )
    print("best moves:", " ".join(moves))
    return 0


if __name__ == "__main__":
    sys.exit(main())
