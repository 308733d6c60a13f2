"""``exochess diagram``: write an SVG diagram of a position.

    exochess diagram <variant> [--fen FEN] [--squares e4,d5] [--targets ...]
                     [--captures ...] [--arrows e2e4,d2d4] [--lastmove MOVE]
                     [--flip] [--size PX] [--no-coordinates] [-o out.svg]

Errors are printed on stderr as one line and the exit status is 2 (no traceback).

>>> import io, contextlib
>>> out = io.StringIO()
>>> with contextlib.redirect_stdout(out):
...     status = main(["fugue", "--squares", "e4,d5", "--arrows", "e2e4"])
>>> status, out.getvalue().startswith("<svg")
(0, True)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from exochess import svg
from exochess.board import Board
from exochess.cli.common import add_variant
from exochess.errors import ExochessError
from exochess.move import Move

HELP = "write an SVG diagram of a position"


def _split(values: Sequence[str] | None) -> list[str]:
    items: list[str] = []
    for value in values or ():
        items.extend(part.strip() for part in value.replace(" ", ",").split(",") if part.strip())
    return items


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``diagram`` options to ``parser`` (used by the main ``exochess`` command)."""
    add_variant(parser)
    parser.add_argument("--fen", help="position to draw (default: the starting position)")
    parser.add_argument(
        "--squares", action="append", metavar="SQ,SQ", help="squares to tint (comma separated; repeatable)"
    )
    parser.add_argument(
        "--targets", action="append", metavar="SQ,SQ", help="squares to mark with a destination dot"
    )
    parser.add_argument(
        "--captures", action="append", metavar="SQ,SQ", help="squares to frame in red as captured"
    )
    parser.add_argument(
        "--arrows",
        action="append",
        metavar="FROMTO,...",
        help="arrows such as e2e4 (comma separated; repeatable)",
    )
    parser.add_argument("--lastmove", metavar="MOVE", help="move text whose squares are highlighted")
    parser.add_argument("--flip", action="store_true", help="draw the board from Black's side")
    parser.add_argument("--size", type=int, metavar="PX", help="width in pixels")
    parser.add_argument("--no-coordinates", action="store_true", help="omit file letters and rank numbers")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``diagram`` subcommand to the main ``exochess`` parser."""
    parser = sub.add_parser("diagram", help=HELP, description=HELP)
    add_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Execute a parsed ``diagram`` command; return the exit status."""
    try:
        fen = args.fen
        if fen is not None and len(fen.split()) == 1:
            fen += " w"  # a bare placement (as in published diagrams): White to move
        board = Board(args.variant, fen=fen)
        styles: dict[svg.SquareSpec, str] = {}
        for style, values in (("mark", args.squares), ("target", args.targets), ("capture", args.captures)):
            for name in _split(values):
                styles[name] = style
        lastmove = Move.from_text(args.lastmove) if args.lastmove else None
        if args.size is not None and args.size <= 0:
            raise ValueError("--size must be a positive number of pixels")
        text = svg.board(
            board,
            squares=styles,
            arrows=_split(args.arrows),
            lastmove=lastmove,
            orientation=not args.flip,
            size=args.size,
            coordinates=not args.no_coordinates,
        )
    except (ExochessError, ValueError) as exc:
        print(f"exochess diagram: error: {exc}", file=sys.stderr)
        return 2
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            print(f"exochess diagram: error: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Stand-alone entry point: ``python -m exochess.cli.diagram fugue --flip``."""
    parser = argparse.ArgumentParser(prog="exochess diagram", description=HELP)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
