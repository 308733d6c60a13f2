"""Helpers shared by the test folders (``from tests.helpers import ...``)."""

from __future__ import annotations

import importlib.util
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TypeVar

from exochess import Board, Variant, all_variants

T = TypeVar("T")

TESTS = Path(__file__).parent
"""The tests folder; each game's data files live in ``variants/<game>/``."""


GAMES_UNDER_TEST: list[str] | None = None
"""The games the generic tests run over when narrowed (``pytest --toy-game``); None: all."""


def game_names() -> list[str]:
    """The games a generic test runs over: every registered one, read from the registry (never a
    list of names), or the ones ``pytest --toy-game`` narrows the run to."""
    if GAMES_UNDER_TEST is not None:
        return list(GAMES_UNDER_TEST)
    return [variant.name for variant in all_variants()]


def games_under_test() -> list[Variant]:
    """The :class:`Variant` of each of :func:`game_names`."""
    names = set(game_names())
    return [variant for variant in all_variants() if variant.name in names]


def bench_script(name: str) -> ModuleType:
    """``bench/<name>.py``, imported from its file (bench is a folder of scripts, not a package).

    The module is registered as ``bench_<name>`` (dataclasses look their module up while a
    class is built), once: a second call returns the same module."""
    module_name = f"bench_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, TESTS.parent / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def texts(moves: object) -> set[str]:
    """Canonical texts of an iterable of moves."""
    return {str(m) for m in moves}  # type: ignore[attr-defined]


def moves_of(board: Board, square: str) -> set[str]:
    """Canonical texts of the legal moves of the piece on ``square``."""
    return texts(board.moves_from(square))


def perft_files() -> list[Path]:
    """Every game's perft suite (``tests/variants/<game>/perft.txt``)."""
    return sorted(TESTS.glob("variants/*/perft.txt"))


def read_perft_file(path: Path | str) -> list[tuple[str, str, int, int]]:
    """Parse a perft data file: ``variant ; fen ; depth ; nodes`` per line ('#' comments).

    ``path`` is a path, or a name relative to ``tests/`` (``"variants/fugue/perft.txt"``).
    """
    cases = []
    for line in (TESTS / path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        variant, fen, depth, nodes = (part.strip() for part in line.split(";"))
        cases.append((variant, fen, int(depth), int(nodes)))
    return cases


def random_walk(variant: str, rng: random.Random, plies: int, fen: str | None = None) -> Board:
    """The board after up to ``plies`` random moves (stops early when the game ends)."""
    board = Board(variant, fen=fen)
    for _ in range(plies):
        moves = board.raw_moves()
        if not moves:
            break
        board.push_raw(rng.choice(moves))
    return board


AFTER_BASELINE_TABLES = (
    "lesson_progress",
    "puzzle_plays",
    "puzzle_players",
    "puzzle_ratings",
    "tournament_byes",
    "tournament_games",
    "tournament_players",
    "tournaments",
    "game_reports",
    "api_tokens",
)
"""Tables that Alembic revisions after the baseline (0001) add (0004, 0006, 0007, 0008, 0010),
dependents first."""
AFTER_BASELINE_COLUMNS = (
    ("challenges", "poster_browser"),
    ("games", "end_white_ms"),
    ("games", "end_black_ms"),
    ("games", "imported"),
    ("games", "pgn_notes"),
    ("users", "bot"),
    ("challenges", "dest_user"),
    ("games", "berserkable"),
    ("games", "white_berserk"),
    ("games", "black_berserk"),
)
"""(table, column) that Alembic revisions after the baseline add (0003, 0005, 0009, 0010, 0011,
0012) to tables of the baseline.  A column added to a table that a later revision made is not
listed: that table is dropped whole above (0013's ``tournaments.bots_allowed``, a table of 0007;
test_web_migrations.py upgrades a database at 0012 holding an event instead)."""


def as_before_alembic(execute: Callable[[str], object]) -> None:
    """Make a database of today's schema look as a release before Alembic left it: no
    ``alembic_version``, and nothing that a revision after the baseline adds (such a database
    never had it).  ``execute`` runs one SQL statement.  A new revision that adds a table or a
    column adds it to the lists above."""
    execute("DROP TABLE alembic_version")
    for table in AFTER_BASELINE_TABLES:
        execute(f"DROP TABLE {table}")
    for table, column in AFTER_BASELINE_COLUMNS:
        execute(f"ALTER TABLE {table} DROP COLUMN {column}")


WAIT_S = 60.0
"""How long :func:`wait_until` waits at most: generous, for a machine loaded by other work
(a condition that holds returns at once, so the bound costs a passing test nothing)."""


def wait_until(
    probe: Callable[[], T], done: Callable[[T], object] = bool, timeout: float = WAIT_S, every: float = 0.05
) -> T:
    """Call ``probe`` every ``every`` seconds until ``done`` holds for what it returns, or
    ``timeout`` seconds have passed; its last value either way (the caller asserts on it, so a
    failure says what was seen)."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if done(value) or time.monotonic() >= deadline:
            return value
        time.sleep(every)
