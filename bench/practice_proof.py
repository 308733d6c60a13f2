"""Practice positions, proved at a deep budget: each game played out, and the time it took.

    python bench/practice_proof.py [GAME ...] [--budget ci|deep] [--id ID] [--games]

For every practice position of the games' lessons files (all games with one by default):
:func:`exochess_lab.practice.prove` at the chosen budget (``deep``: 25,000 nodes a move for the
learner's side, at most 15,000 for the level; ``ci``: the tests' budget), its verdict, the
lengths of the games it played and the CPU seconds.  ``--games`` prints every game's moves.
This is the slower check behind ``tests/lessons/test_lessons_data.py`` (docs/lessons.md); run it
before adding a position.  Exits 1 when a position fails.
"""

from __future__ import annotations

import argparse
import sys
import time

from exochess.lessons import course_path, load_course
from exochess.variants import all_variants
from exochess_lab.practice import CI_BUDGET, DEEP_BUDGET, prove


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="games (default: every game with a lessons file)")
    parser.add_argument("--budget", choices=("ci", "deep"), default="deep")
    parser.add_argument("--id", help="only the position with this id")
    parser.add_argument("--games", dest="show", action="store_true", help="print every game's moves")
    args = parser.parse_args(argv)
    budget = DEEP_BUDGET if args.budget == "deep" else CI_BUDGET
    names = args.games or [v.name for v in all_variants() if course_path(v).is_file()]
    failed = 0
    for name in names:
        course = load_course(name)
        if course is None:
            continue
        started = time.process_time()
        for position in course.practice:
            if args.id and position.id != args.id:
                continue
            t = time.process_time()
            proof = prove(name, position, budget)
            failed += not proof.ok
            lengths = [g.learner_moves for g in proof.games]
            print(
                f"{name:11} {position.id:22} {position.goal:4} level {position.level}"
                f" moves {position.moves:2}"
                f" {'ok  ' if proof.ok else 'FAIL'} learner moves {lengths} {time.process_time() - t:.2f}s"
                f" {proof.reason}"
            )
            if args.show:
                for g in proof.games:
                    print(f"    seed {g.seed} winner {g.winner}: {' '.join(g.line)}")
        print(f"{name}: {time.process_time() - started:.1f} s CPU")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
