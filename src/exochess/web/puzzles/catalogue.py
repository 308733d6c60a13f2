"""The games' puzzle collections as the site serves them: a puzzle near a rating (with a theme,
leaving out those played lately), the puzzle of the day, the ladder of a streak, and each
theme's name in words (translated by whoever shows it).

The collections are the games' own files, read by :func:`exochess.puzzles.load_puzzles` (cached
there): nothing here knows a game by name.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections import Counter
from collections.abc import Collection, Mapping

from exochess.errors import UnknownVariantError
from exochess.puzzles import THEMES, Puzzle, load_puzzles
from exochess.variants import all_variants, find_variant
from exochess.web.domain import N_, PuzzleNotFound

THEME_NAMES: dict[str, str] = {
    "royal-capture-in-1": N_("Royal capture in one"),
    "royal-capture-in-2": N_("Royal capture in two"),
    "royal-capture-in-3": N_("Royal capture in three"),
    "royal-capture-long": N_("Long royal hunt"),
    "no-move": N_("No move left"),
    "advantage": N_("Winning material"),
    "one-move": N_("One move"),
    "short": N_("Short"),
    "long": N_("Long"),
    "quiet-move": N_("Quiet move"),
    "defence": N_("Defence"),
    "long-leap": N_("Long leap"),
    "approach-withdrawal": N_("Approach or withdrawal"),
    "multi-capture": N_("Several captures"),
    "chain": N_("Chain"),
    "shot": N_("Shot"),
    "swap": N_("Swap"),
    "mutual-destruction": N_("Mutual destruction"),
    "immobilization": N_("Immobilization"),
    "petrification": N_("Petrification"),
    "promotion": N_("Promotion"),
    "sacrifice": N_("Sacrifice"),
}
"""Each theme of :data:`exochess.puzzles.THEMES` as the pages name it (English message ids; a
test checks that every theme has one)."""

NEAREST = 8
"""A puzzle is drawn at random among this many nearest the target rating (not always the same
one after a reload)."""
STREAK_START = 600
"""The rating a streak's first puzzle is near."""
STREAK_STEP = 100
"""How much harder each next puzzle of a streak is (its target rating rises by this)."""
MAX_STREAK = 1000
"""The longest streak the site counts (far beyond any collection's size)."""


def theme_name(theme: str) -> str:
    """The English name of a theme (its id when the site has no name for it)."""
    return THEME_NAMES.get(theme, theme)


def collection(game: str) -> tuple[str, list[Puzzle]]:
    """(the game's registry name, its puzzles); :class:`PuzzleNotFound` for an unknown game or
    one without puzzles."""
    try:
        variant = find_variant(game)
    except UnknownVariantError as exc:
        raise PuzzleNotFound(N_("There is no game of that name.")) from exc
    puzzles = load_puzzles(variant)
    if not puzzles:
        raise PuzzleNotFound(N_("This game has no puzzles yet."))
    return variant.name, puzzles


def games_with_puzzles() -> list[str]:
    """The registry names of the games that have puzzles, in menu order."""
    return [v.name for v in all_variants() if load_puzzles(v)]


def find(game: str, puzzle_id: str) -> Puzzle:
    """The puzzle ``puzzle_id`` of ``game``; :class:`PuzzleNotFound` when there is none."""
    _name, puzzles = collection(game)
    for puzzle in puzzles:
        if puzzle.id == puzzle_id:
            return puzzle
    raise PuzzleNotFound(N_("There is no such puzzle."))


def theme_counts(puzzles: list[Puzzle]) -> dict[str, int]:
    """How many puzzles have each theme, in :data:`THEMES` order (themes without any left out)."""
    counts = Counter(t for p in puzzles for t in p.themes)
    return {t: counts[t] for t in THEMES if counts[t]}


def pick(
    puzzles: list[Puzzle],
    ratings: Mapping[str, float],
    target: float,
    *,
    exclude: Collection[str] = (),
    theme: str | None = None,
    rng: random.Random | None = None,
    nearest: int = NEAREST,
) -> Puzzle:
    """A puzzle near ``target``: one of the ``nearest`` puzzles (with ``theme``, not among
    ``exclude``) whose rating (``ratings``, else the file's) is closest to it.

    When every puzzle of the theme was played lately, the exclusion is dropped rather than
    serving nothing; a theme no puzzle has is :class:`PuzzleNotFound`.
    """
    themed = [p for p in puzzles if theme is None or theme in p.themes]
    if not themed:
        raise PuzzleNotFound(N_("No puzzle has this theme."))
    fresh = [p for p in themed if p.id not in exclude] or themed

    def distance(p: Puzzle) -> tuple[float, str]:
        return abs(ratings.get(p.id, p.rating) - target), p.id

    close = sorted(fresh, key=distance)[: max(1, nearest)]
    return (rng or random.Random()).choice(close)


def streak_target(solved: int) -> int:
    """The target rating of a streak's next puzzle after ``solved`` puzzles."""
    return STREAK_START + STREAK_STEP * max(0, solved)


def daily(puzzles: list[Puzzle], game: str, day: dt.date) -> Puzzle:
    """The puzzle of ``day`` (a UTC date) for ``game``: the same all day, for everyone, drawn
    by a hash of the day and the game among the puzzles of middling difficulty (all of them
    when there are none)."""
    middling = [p for p in puzzles if 1000 <= p.rating <= 2000] or list(puzzles)
    ordered = sorted(middling, key=lambda p: p.id)
    digest = hashlib.sha256(f"{game}|{day.isoformat()}".encode()).digest()
    return ordered[int.from_bytes(digest[:8], "big") % len(ordered)]


def daily_puzzles(day: dt.date | None = None) -> list[dict[str, str]]:
    """Today's puzzle of each game that has puzzles (the home page's diagrams): its game, id
    and position."""
    day = day or today()
    out = []
    for variant in all_variants():
        puzzles = load_puzzles(variant)
        if puzzles:
            puzzle = daily(puzzles, variant.name, day)
            out.append({"variant": variant.name, "title": variant.title, "id": puzzle.id, "fen": puzzle.fen})
    return out


def today() -> dt.date:
    """The current UTC date (the daily puzzle changes at midnight UTC)."""
    return dt.datetime.now(dt.UTC).date()
