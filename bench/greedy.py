"""A random-but-greedy player speaking the engine protocol: the ladder's beginner anchor.

    python bench/greedy.py          (reads the protocol on stdin, like ``exochess engine``)

It plays the move that wins the game if there is one, else the capture that wins the most
material (by the game's evaluator's piece values, counting what the move itself removes, not
the reply), else a random legal move: a beginner who takes whatever hangs and never looks at
the opponent's answer.  Ties are broken at random.  The choice is seeded by the position, so a
game replays identically.  It is the fixed point of the level ladder (``bench/ladder.py
--anchor``), which gives it a documented, arbitrary rating (``docs/benchmarks.md``).

Only what a match sends is understood: ``uci``, ``isready``, ``setoption name Variant``,
``ucinewgame``, ``position startpos [moves ...]``, ``go ...`` and ``quit``.
"""

from __future__ import annotations

import random
import sys
import zlib

from exochess.board import Board
from exochess.engine.evaluate import evaluator_for
from exochess.rawmove import to_move


def material(board: Board, value_of: list[int]) -> int:
    """White's material minus Black's (the evaluator's values)."""
    total = 0
    for code in board.squares:
        if code:
            total += value_of[code & 31] if code > 0 else -value_of[code & 31]
    return total


def greedy_move(board: Board, rng: random.Random) -> str:
    """The text of the greedy choice in ``board`` (see the module docstring)."""
    value_of = list(evaluator_for(board.variant).value_of)
    mover = board.turn
    side = 1 if mover else -1
    before = material(board, value_of)
    best: list[str] = []
    best_gain = -1 << 60
    for m in board.raw_moves():
        board.push_raw(m)
        over = board.decided
        if over is not None:  # a win (royal capture) first, a loss (repetition) last
            gain = 1 << 40 if over.winner == mover else -(1 << 40)
        else:
            gain = side * (material(board, value_of) - before)
        board.pop_raw()
        if gain > best_gain:
            best, best_gain = [str(to_move(m))], gain
        elif gain == best_gain:
            best.append(str(to_move(m)))
    return rng.choice(sorted(best))


def main() -> int:
    """Serve the protocol on stdin/stdout until ``quit``."""
    variant = "fugue"
    board = Board(variant)
    position = ""
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "quit":
            break
        if command == "uci":
            print("id name greedy\nuciok", flush=True)
        elif command == "isready":
            print("readyok", flush=True)
        elif command == "setoption" and len(words) >= 5 and words[2].lower() == "variant":
            variant = words[4]
            board = Board(variant)
        elif command == "ucinewgame":
            board = Board(variant)
        elif command == "position":
            position = line.strip()
            board = Board(variant)
            if "moves" in words:
                for text in words[words.index("moves") + 1 :]:
                    board.push_text(text)
        elif command == "go":
            rng = random.Random(zlib.crc32(f"{variant} {position}".encode()))
            print(f"bestmove {greedy_move(board, rng)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
