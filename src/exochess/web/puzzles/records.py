"""Puzzle ratings and history in the database: each account's puzzle rating per game (apart from
its game rating) and best streak, each puzzle's rating, and the account's finished attempts.

Ratings are Glicko-2 (:mod:`exochess.web.accounts.ratings`), each attempt a game between the
player and the puzzle, as lichess rates its puzzles: solving is a win against the puzzle.  Only
an account's first play of a puzzle is rated; replays and streaks are kept in the history
unrated.  A guest's rating lives in the browser: :func:`guest_result` computes its change
against the puzzle's rating without storing anything, and guests' results do not move the
puzzles' ratings (anyone could send any number of them).

The functions take an SQLAlchemy engine and run in a database thread (``GameService.db``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from exochess.puzzles import Puzzle
from exochess.web.accounts.ratings import Rating, aged, rated_pair
from exochess.web.storage.store import now, puzzle_players, puzzle_plays, puzzle_ratings

PUZZLE_RD = 200.0
"""The deviation a puzzle starts with: its file's rating is an estimate of the generator, surer
than a new player's (350) but meant to move with the first plays."""
RATED, STREAK = "rated", "streak"
"""Modes of a play: rated (a puzzle served near the player's rating, a daily puzzle...) or
part of a streak (never rated)."""
HISTORY = 20
"""Plays a profile lists."""
RECENT = 500
"""An account's latest plays whose puzzles are not served again."""


@dataclass(frozen=True)
class PlayerPuzzles:
    """An account's (or a guest's) puzzle standing in one game."""

    rating: Rating
    plays: int = 0
    best_streak: int = 0


@dataclass(frozen=True)
class PlayResult:
    """What recording a finished attempt changed."""

    rated: bool
    before: Rating
    after: Rating
    puzzle_before: float
    puzzle_after: float
    best_streak: int


def puzzle_start(puzzle: Puzzle) -> Rating:
    """A puzzle's rating before any play on the site: its file's estimate."""
    return Rating(float(puzzle.rating), PUZZLE_RD)


def _puzzle_rating(conn: Connection, puzzle: Puzzle) -> tuple[Rating, bool]:
    row = conn.execute(
        select(puzzle_ratings.c.rating, puzzle_ratings.c.rd, puzzle_ratings.c.volatility).where(
            puzzle_ratings.c.variant == puzzle.variant, puzzle_ratings.c.puzzle_id == puzzle.id
        )
    ).first()
    return (
        (puzzle_start(puzzle), False) if row is None else (Rating(row.rating, row.rd, row.volatility), True)
    )


def puzzle_rating(engine: Engine, puzzle: Puzzle) -> Rating:
    """A puzzle's current rating on the site."""
    with engine.connect() as conn:
        return _puzzle_rating(conn, puzzle)[0]


def puzzle_ratings_of(engine: Engine, variant: str) -> dict[str, float]:
    """The site's rating of every puzzle of ``variant`` that has been rated (id -> rating)."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(puzzle_ratings.c.puzzle_id, puzzle_ratings.c.rating).where(
                puzzle_ratings.c.variant == variant
            )
        )
        return {r.puzzle_id: r.rating for r in rows}


def _player(
    conn: Connection, user_id: int, variant: str, at: dt.datetime | None = None
) -> PlayerPuzzles | None:
    row = conn.execute(
        select(puzzle_players).where(puzzle_players.c.user_id == user_id, puzzle_players.c.variant == variant)
    ).first()
    if row is None:
        return None
    rating = Rating(row.rating, row.rd, row.volatility)
    if at is not None:
        rating = aged(rating, (at - row.updated).total_seconds() / 86400)
    return PlayerPuzzles(rating, row.plays, row.best_streak)


def player_puzzles(engine: Engine, user_id: int, variant: str) -> PlayerPuzzles:
    """An account's puzzle rating and best streak in ``variant`` (the starting rating if none)."""
    with engine.connect() as conn:
        return _player(conn, user_id, variant) or PlayerPuzzles(Rating())


def recent_puzzles(engine: Engine, user_id: int, variant: str) -> set[str]:
    """The puzzles of ``variant`` among the account's latest :data:`RECENT` plays."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(puzzle_plays.c.puzzle_id)
            .where(puzzle_plays.c.user_id == user_id, puzzle_plays.c.variant == variant)
            .order_by(puzzle_plays.c.id.desc())
            .limit(RECENT)
        )
        return {r.puzzle_id for r in rows}


def guest_result(guest: Rating, puzzle: Rating, solved: bool) -> Rating:
    """A guest's new puzzle rating after an attempt (nothing is stored)."""
    return rated_pair(guest, puzzle, 1.0 if solved else 0.0)[0]


def _store_player(conn: Connection, user_id: int, variant: str, values: dict[str, Any], exists: bool) -> None:
    if exists:
        conn.execute(
            update(puzzle_players)
            .where(puzzle_players.c.user_id == user_id, puzzle_players.c.variant == variant)
            .values(**values)
        )
    else:
        conn.execute(insert(puzzle_players).values(user_id=user_id, variant=variant, **values))


def _record(
    conn: Connection, user_id: int, puzzle: Puzzle, solved: bool, mode: str, streak: int
) -> PlayResult:
    stamp = now()
    variant = puzzle.variant
    stored = _player(conn, user_id, variant, stamp)
    player = stored or PlayerPuzzles(Rating())
    puzzle_before, puzzle_exists = _puzzle_rating(conn, puzzle)
    played = conn.execute(
        select(puzzle_plays.c.id).where(
            puzzle_plays.c.user_id == user_id,
            puzzle_plays.c.variant == variant,
            puzzle_plays.c.puzzle_id == puzzle.id,
        )
    ).first()
    rated = mode == RATED and played is None
    after, puzzle_after = player.rating, puzzle_before
    if rated:
        after, puzzle_after = rated_pair(player.rating, puzzle_before, 1.0 if solved else 0.0)
    best = max(player.best_streak, streak + 1) if mode == STREAK and solved else player.best_streak
    values: dict[str, Any] = {"plays": player.plays + 1, "best_streak": best}
    if rated or stored is None:
        # an unrated play leaves a stored rating (and when it last moved, which ages it) alone
        values.update(rating=after.rating, rd=after.rd, volatility=after.volatility, updated=stamp)
    _store_player(conn, user_id, variant, values, stored is not None)
    puzzle_values = {
        "rating": puzzle_after.rating,
        "rd": puzzle_after.rd,
        "volatility": puzzle_after.volatility,
        "updated": stamp,
    }
    if puzzle_exists:
        conn.execute(
            update(puzzle_ratings)
            .where(puzzle_ratings.c.variant == variant, puzzle_ratings.c.puzzle_id == puzzle.id)
            .values(
                plays=puzzle_ratings.c.plays + 1,
                wins=puzzle_ratings.c.wins + (1 if solved else 0),
                **puzzle_values,
            )
        )
    else:
        conn.execute(
            insert(puzzle_ratings).values(
                variant=variant, puzzle_id=puzzle.id, plays=1, wins=1 if solved else 0, **puzzle_values
            )
        )
    conn.execute(
        insert(puzzle_plays).values(
            user_id=user_id,
            variant=variant,
            puzzle_id=puzzle.id,
            solved=solved,
            mode=mode,
            rating_before=player.rating.rating if rated else None,
            rating_after=after.rating if rated else None,
            puzzle_rating=puzzle_before.rating,
            created=stamp,
        )
    )
    return PlayResult(rated, player.rating, after, puzzle_before.rating, puzzle_after.rating, best)


def record_play(
    engine: Engine, user_id: int, puzzle: Puzzle, solved: bool, mode: str, streak: int = 0
) -> PlayResult:
    """Keep an account's finished attempt, in one transaction: the play in its history, and,
    when it is the account's first play of the puzzle in a rated mode, both ratings moved; a
    solved streak puzzle (``streak`` solved before it) may raise the best streak."""
    for _attempt in range(2):  # a concurrent first row (player or puzzle): read it again, then update
        try:
            with engine.begin() as conn:
                return _record(conn, user_id, puzzle, solved, mode, streak)
        except IntegrityError:
            continue
    with engine.begin() as conn:
        return _record(conn, user_id, puzzle, solved, mode, streak)


@dataclass(frozen=True)
class PuzzleLine:
    """An account's puzzle rating in one game, for its profile."""

    variant: str
    rating: Rating
    plays: int
    best_streak: int


def user_puzzles(engine: Engine, user_id: int) -> list[PuzzleLine]:
    """The account's puzzle rating in each game it has played puzzles of."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(puzzle_players)
            .where(puzzle_players.c.user_id == user_id)
            .order_by(puzzle_players.c.variant)
        )
        return [
            PuzzleLine(r.variant, Rating(r.rating, r.rd, r.volatility), r.plays, r.best_streak) for r in rows
        ]


def puzzle_history(engine: Engine, user_id: int, limit: int = HISTORY) -> list[dict[str, Any]]:
    """The account's latest finished attempts, newest first."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(puzzle_plays)
            .where(puzzle_plays.c.user_id == user_id)
            .order_by(puzzle_plays.c.id.desc())
            .limit(limit)
        )
        return [
            {
                "variant": r.variant,
                "puzzle_id": r.puzzle_id,
                "solved": r.solved,
                "mode": r.mode,
                "rating_before": None if r.rating_before is None else round(r.rating_before),
                "rating_after": None if r.rating_after is None else round(r.rating_after),
                "puzzle_rating": round(r.puzzle_rating),
                "created": r.created.isoformat() + "Z",
            }
            for r in rows
        ]
