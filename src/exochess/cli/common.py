"""Helpers shared by the command-line subcommands."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from exochess.board import Board
from exochess.errors import ExochessError
from exochess.variants import names_text


class CliError(ExochessError):
    """A problem with the command line itself (reported on stderr, exit status 2)."""


def add_variant(parser: argparse.ArgumentParser) -> None:
    """The ``<variant>`` argument, its help listing the registered games."""
    parser.add_argument("variant", help=f"game: {names_text()} (titles and aliases accepted)")


def add_variant_and_fen(parser: argparse.ArgumentParser) -> None:
    """The ``<variant> [--fen FEN]`` arguments most commands take."""
    add_variant(parser)
    parser.add_argument("--fen", help="start from this position instead of the initial one")


def board_from_args(args: argparse.Namespace) -> Board:
    """Build the board a command works on (raises a clear error for bad input)."""
    return Board(args.variant, fen=args.fen)


def int_at_least(minimum: int) -> Callable[[str], int]:
    """argparse type: a whole number >= ``minimum``, with a clear message otherwise."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more, got {value}")
        return value

    return parse


non_negative_int = int_at_least(0)
"""argparse type: an integer >= 0."""
positive_int = int_at_least(1)
"""argparse type: an integer >= 1."""
