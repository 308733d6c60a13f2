"""``moves``, ``perft`` and ``show``: the rules library on the command line."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from exochess.cli.common import add_variant_and_fen, board_from_args, non_negative_int
from exochess.geometry import victim_order
from exochess.move import Move
from exochess.perft import divide
from exochess.text import render


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the subcommands of this module to the main parser."""
    p = sub.add_parser("moves", help="list every legal move in canonical text")
    add_variant_and_fen(p)
    p.set_defaults(handler=cmd_moves)

    p = sub.add_parser("perft", help="count legal move sequences (perft)")
    add_variant_and_fen(p)
    p.add_argument("depth", type=non_negative_int, help="number of plies (turns)")
    p.add_argument("--divide", action="store_true", help="print the count below each root move")
    p.set_defaults(handler=cmd_perft)

    p = sub.add_parser("show", help="print the board as text")
    add_variant_and_fen(p)
    p.add_argument("--flip", action="store_true", help="Black at the bottom")
    p.set_defaults(handler=cmd_show)


def sorted_moves_text(moves: list[str]) -> list[str]:
    """Moves in a stable reading order: by origin square (file, rank), then text."""
    return sorted(moves, key=lambda text: (victim_order(Move.from_text(text).from_square), text))


def cmd_moves(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    for text in sorted_moves_text([str(m) for m in board.legal_moves]):
        print(text)
    return 0


class ProgressBar:
    """A one-line progress bar on a terminal stream (silent when it is not a terminal)."""

    def __init__(self, stream: TextIO, label: str) -> None:
        self.stream = stream
        self.label = label
        self.enabled = stream.isatty()

    def update(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        width = 30
        filled = width * done // total
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * (len(self.label) + 45) + "\r")
            self.stream.flush()


def cmd_perft(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    depth: int = args.depth
    if depth == 0:
        print("nodes 1")
        return 0
    bar = ProgressBar(sys.stderr, f"perft {depth}")
    try:
        results = divide(board, depth, progress=bar.update)
    finally:
        bar.close()
    if args.divide:
        for text in sorted_moves_text([text for text, _ in results]):
            print(f"{text} {dict(results)[text]}")
    print(f"nodes {sum(count for _, count in results)}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    print(render(board, flipped=args.flip))
    print(f"FEN: {board.fen()}")
    print(f"{'White' if board.turn else 'Black'} to move")
    return 0
