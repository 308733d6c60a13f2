"""Helpers shared by the command-line subcommands."""

from __future__ import annotations

import argparse

from exochess.board import Board
from exochess.errors import ExochessError


class CliError(ExochessError):
    """A problem with the command line itself (reported on stderr, exit status 2)."""


def add_variant_and_fen(parser: argparse.ArgumentParser) -> None:
    """The ``<variant> [--fen FEN]`` arguments most commands take."""
    parser.add_argument("variant", help="game: fugue, interweave or rebelfury (aliases accepted)")
    parser.add_argument("--fen", help="start from this position instead of the initial one")


def board_from_args(args: argparse.Namespace) -> Board:
    """Build the board a command works on (raises a clear error for bad input)."""
    return Board(args.variant, fen=args.fen)


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value
