"""Engine cost in machine instructions per node, for comparing two versions of the code.

    python bench/instructions.py [--nodes N] [--variants fugue,interweave,...]
    python bench/instructions.py --perft      # perft from each starting position instead
    python bench/instructions.py --compiled build/compiled [--perft]   # the compiled build

The project machine is a virtual one whose speed varies by up to 30% between
identical runs, so nodes per second cannot tell a 5% gain from noise.  The
number of instructions a search executes can: this script runs a search with a
fixed node budget from each middle-game position of ``bench/engine.py`` under
valgrind (``cachegrind``, no cache simulation), once with the budget and once
without searching, and prints the difference divided by the nodes.

``--compiled DIR`` measures the build unpacked in ``DIR`` (``make compiled`` makes
``build/compiled``) instead of the sources; the child checks that the compiled modules are
the ones running.

Needs ``valgrind`` (Debian package ``valgrind``).  Slow: about half a minute per
position at the default budget.  Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


PERFT_DEPTH = {"fugue": 3, "interweave": 3, "rebelfury": 2}
"""Perft depth from the start in ``--perft`` mode (about 10-30 thousand nodes each)."""


def child_perft(variant: str, depth: int) -> None:
    """The measured process in ``--perft`` mode: perft ``depth`` from the start (0: none)."""
    _check_build()
    from exochess import Board
    from exochess.perft import perft

    board = Board(variant)
    print(perft(board, depth) if depth else 0)


def _check_build() -> None:
    """Stop when the build the parent asked for (``EXOCHESS_EXPECT_BUILD``) is not the one running."""
    import exochess

    expected = os.environ.get("EXOCHESS_EXPECT_BUILD")
    if expected and expected != exochess.BUILD:
        sys.exit(f"expected the {expected} build, but the {exochess.BUILD} build runs")


def child(variant: str, index: int, nodes: int) -> None:
    """The measured process: set up the position, then search ``nodes`` nodes (0: none)."""
    if index == 0:
        child_perft(variant, nodes)
        return
    _check_build()
    sys.path.insert(0, str(HERE))
    from engine import positions  # bench/engine.py: importable once bench/ is on the path

    from exochess.engine import Limits, Searcher

    board = positions(variant, index)[index][1]
    searched = Searcher().search(board, Limits(nodes=nodes)).nodes if nodes else 0
    print(searched)  # a search may end before its budget (a forced win found)


def instructions(variant: str, index: int, nodes: int, compiled: str | None = None) -> tuple[int, int]:
    """Instructions executed by :func:`child` under valgrind, and the nodes it searched
    (``compiled``: the directory of a compiled build to run instead of the sources)."""
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        # The real interpreter: valgrind cannot follow a shell-script shim (pyenv).
        os.path.realpath(sys.executable),
        __file__,
        "--child",
        variant,
        str(index),
        str(nodes),
    ]
    first = [str(Path(compiled).resolve())] if compiled else [str(HERE.parent / "src")]
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([*first, *sys.path]),
        EXOCHESS_EXPECT_BUILD="compiled" if compiled else "pure",
    )
    env.pop("EXOCHESS_PURE", None)
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    match = REFS.search(done.stderr)
    if match is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(match.group(1).replace(",", "")), int(done.stdout.split()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=10_000, help="search budget (default 10000)")
    parser.add_argument("--variants", help="comma-separated games (default: every registered game)")
    parser.add_argument("--positions", type=int, default=3, help="middle games per variant (default 3)")
    parser.add_argument("--perft", action="store_true", help="perft from the start instead of searches")
    parser.add_argument("--compiled", metavar="DIR", help="measure the compiled build unpacked in DIR")
    parser.add_argument("--child", nargs=3, metavar=("VARIANT", "INDEX", "NODES"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], int(args.child[1]), int(args.child[2]))
        return 0
    if not args.variants:  # read here, not before a child's count: its imports are what is measured
        from exochess.variants import all_variants

        args.variants = ",".join(v.name for v in all_variants())
    if shutil.which("valgrind") is None:
        print("bench/instructions.py needs valgrind (apt install valgrind)", file=sys.stderr)
        return 2
    if args.perft:
        print(f"{'variant':<12} {'perft':<9} {'instructions/node':>18}")
        for variant in args.variants.split(","):
            depth = PERFT_DEPTH.get(variant, 2)
            total, nodes = instructions(variant, 0, depth, args.compiled)
            setup, _ = instructions(variant, 0, 0, args.compiled)
            per_node = (total - setup) // max(1, nodes)
            print(f"{variant:<12} {'depth ' + str(depth):<9} {per_node:>18,}   {nodes} nodes")
            sys.stdout.flush()
        return 0
    print(f"{'variant':<12} {'position':<9} {'instructions/node':>18}   searched (budget {args.nodes})")
    for variant in args.variants.split(","):
        for index in range(1, args.positions + 1):
            total, searched = instructions(variant, index, args.nodes, args.compiled)
            setup, _ = instructions(variant, index, 0, args.compiled)
            per_node = (total - setup) // max(1, searched)
            print(f"{variant:<12} {'middle' + str(index):<9} {per_node:>18,}   {searched} nodes")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
