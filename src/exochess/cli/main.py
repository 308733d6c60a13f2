"""Entry point of the ``exochess`` command.

Every error caused by the user's input is printed as one line on stderr and
the command exits with status 2; no traceback is ever shown for bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from exochess import BUILD, __version__
from exochess.cli import (
    bot,
    cluster,
    db,
    diagram,
    engine_commands,
    play,
    puzzles_commands,
    rules_commands,
    serve,
)
from exochess.errors import ExochessError
from exochess.variants import all_variants

# Each module adds its subcommands through register(subparsers).
COMMAND_MODULES = [rules_commands, play, diagram, serve, db, cluster, engine_commands, puzzles_commands, bot]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="exochess",
        description="Rules, engine and tools for the games "
        + ", ".join(variant.title or variant.name for variant in all_variants())
        + ".",
    )
    build = "compiled with mypyc" if BUILD == "compiled" else "pure Python"
    parser.add_argument("--version", action="version", version=f"exochess {__version__} ({build})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.handler(args)
    except ExochessError as error:
        print(f"exochess: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
