"""Glicko-2 ratings: the algorithm, and the update of two players' ratings when a rated game ends.

The algorithm follows Mark Glickman's paper "Example of the Glicko-2 system", step by
step; the names (``mu``, ``phi``, ``sigma``, ``v``, ``delta``) are the paper's, and
``tests/web/test_web_accounts.py`` checks the paper's worked example.  Each rated game is a
rating period of its own (as lichess does), so a player's rating moves after every game.

One rating per game (Fugue, Interweave, Rebel Fury), whatever the time control: see
docs/accounts.md for why.  :func:`apply_game_result` is registered as a storage finish hook, so
the update happens inside the transaction that stores the result, exactly once.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Any, TypedDict

from sqlalchemy import Connection, Engine, func, insert, select, update

from exochess.web.domain import Color
from exochess.web.storage.store import GameRow, games, now, rating_history, ratings, users

SCALE = 173.7178
"""Glicko-2's factor between the Glicko scale (1500 +- 350) and its own."""
TAU = 0.5
"""The system constant: how much the volatility may change (the paper's example uses 0.5)."""
EPSILON = 0.000001
"""Convergence tolerance of the volatility iteration (the paper's value)."""
START_RATING = 1500.0
START_RD = 350.0
START_VOLATILITY = 0.06
PROVISIONAL_RD = 110.0
"""A rating whose deviation is above this is provisional (shown with ``?``, kept off the
leaderboards): lichess's threshold, reached after roughly ten to fifteen games."""
MIN_RD = 45.0
"""The deviation never falls below this, so that a long-standing player's rating can still move."""
PERIODS_PER_DAY = 0.21436
"""Idle rating periods counted per day without a rated game (lichess's figure): the deviation
grows with them (step 6 of the paper), so a player back after months is rated less surely."""


@dataclass(frozen=True)
class Rating:
    """A player's rating on the Glicko scale."""

    rating: float = START_RATING
    rd: float = START_RD
    volatility: float = START_VOLATILITY

    @property
    def provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm on f(x) = 0."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        num = ex * (delta * delta - phi * phi - v - ex)
        den = 2.0 * (phi * phi + v + ex) ** 2
        return num / den - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def glicko2_update(player: Rating, results: list[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period with ``results``: (opponent, score 1/0.5/0).

    No games: only the deviation grows (step 6 of the paper).  The deviation is not bounded
    here (the paper's example must come out exactly); :func:`rated_pair` bounds it.
    """
    mu = (player.rating - START_RATING) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not results:
        return Rating(player.rating, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    v_inv = 0.0
    delta_sum = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - START_RATING) / SCALE
        phi_j = opponent.rd / SCALE
        g, e = _g(phi_j), _e(mu, mu_j, phi_j)
        v_inv += g * g * e * (1.0 - e)
        delta_sum += g * (score - e)
    v = 1.0 / v_inv
    delta = v * delta_sum
    sigma_new = _new_volatility(phi, sigma, delta, v, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return Rating(SCALE * mu_new + START_RATING, SCALE * phi_new, sigma_new)


def aged(rating: Rating, idle_days: float) -> Rating:
    """``rating`` after ``idle_days`` without a rated game: its deviation grown by the idle
    periods (never above the starting deviation)."""
    if idle_days <= 0:
        return rating
    phi = rating.rd / SCALE
    periods = idle_days * PERIODS_PER_DAY
    rd = SCALE * math.sqrt(phi * phi + periods * rating.volatility * rating.volatility)
    return Rating(rating.rating, min(rd, START_RD), rating.volatility)


def rated_pair(white: Rating, black: Rating, white_score: float) -> tuple[Rating, Rating]:
    """Both players' new ratings after one game (each against the other's rating before it)."""
    new_white = glicko2_update(white, [(black, white_score)])
    new_black = glicko2_update(black, [(white, 1.0 - white_score)])
    return _floor(new_white), _floor(new_black)


def _floor(r: Rating) -> Rating:
    return Rating(r.rating, max(r.rd, MIN_RD), r.volatility)


WHITE_SCORE = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}

BOTH_MOVED = 2
"""Plies a rated game needs before its result counts: one by each side (an abort, a claim or a
flag before that changes no rating)."""
PAIR_GAMES_PER_DAY = 3
"""Rated games between the same two accounts that move their ratings in any 24 hours: more
would let two accounts of one person farm points (issue 40 saw 1500 -> 1817 in 11 s).  Later
games of the pair that day are played and kept, unrated in effect."""
PAIR_WINDOW = dt.timedelta(days=1)


def pair_games_today(conn: Connection, a: int, b: int, at: dt.datetime) -> int:
    """How many games between accounts ``a`` and ``b`` (either colours) changed ``a``'s
    rating in the 24 hours before ``at``."""
    pair = ((games.c.white_user == a) & (games.c.black_user == b)) | (
        (games.c.white_user == b) & (games.c.black_user == a)
    )
    return int(
        conn.execute(
            select(func.count())
            .select_from(rating_history.join(games, games.c.id == rating_history.c.game_id))
            .where(rating_history.c.user_id == a, rating_history.c.created > at - PAIR_WINDOW, pair)
        ).scalar_one()
    )


# --- storage ------------------------------------------------------------------------------


def load_rating(conn: Connection, user_id: int, variant: str, at: dt.datetime | None = None) -> Rating:
    """A player's rating in ``variant`` (the starting rating if they have none yet); with
    ``at``, aged by the days since their last rated game (:func:`aged`)."""
    row = conn.execute(
        select(ratings.c.rating, ratings.c.rd, ratings.c.volatility, ratings.c.updated).where(
            ratings.c.user_id == user_id, ratings.c.variant == variant
        )
    ).first()
    if row is None:
        return Rating()
    rating = Rating(row.rating, row.rd, row.volatility)
    if at is None:
        return rating
    return aged(rating, (at - row.updated).total_seconds() / 86400)


def _store(conn: Connection, user_id: int, variant: str, game_id: str, before: Rating, after: Rating) -> None:
    values: dict[str, Any] = {
        "rating": after.rating,
        "rd": after.rd,
        "volatility": after.volatility,
        "updated": now(),
    }
    changed = conn.execute(
        update(ratings)
        .where(ratings.c.user_id == user_id, ratings.c.variant == variant)
        .values(games=ratings.c.games + 1, **values)
    ).rowcount
    if not changed:
        conn.execute(insert(ratings).values(user_id=user_id, variant=variant, games=1, **values))
    conn.execute(
        insert(rating_history).values(
            user_id=user_id,
            variant=variant,
            game_id=game_id,
            before=before.rating,
            rating=after.rating,
            rd=after.rd,
            created=now(),
        )
    )


def apply_game_result(conn: Connection, game_id: str) -> None:
    """Update both players' ratings for a rated game that has just ended, in the caller's
    transaction (a storage finish hook).

    Exactly once: the game's ``ratings_done`` flag is set by a guarded update, so a second
    server seeing the same result changes nothing (and the history's unique key
    ``(game_id, user_id)`` would refuse a second row anyway).
    """
    row = conn.execute(
        select(games.c.variant, games.c.result, games.c.white_user, games.c.black_user, games.c.ply).where(
            games.c.id == game_id, games.c.rated.is_(True)
        )
    ).first()
    if row is None or row.white_user is None or row.black_user is None or row.result not in WHITE_SCORE:
        return
    if row.white_user == row.black_user or row.ply < BOTH_MOVED:
        # one account on both seats, or a game over before both sides moved: nothing to rate
        return
    claimed = conn.execute(
        update(games).where(games.c.id == game_id, games.c.ratings_done.is_(False)).values(ratings_done=True)
    ).rowcount
    if claimed != 1:
        return
    stamp = now()
    if pair_games_today(conn, row.white_user, row.black_user, stamp) >= PAIR_GAMES_PER_DAY:
        return  # the pair has had its rated games of the day: the result stands, the ratings do not move
    white = load_rating(conn, row.white_user, row.variant, stamp)
    black = load_rating(conn, row.black_user, row.variant, stamp)
    new_white, new_black = rated_pair(white, black, WHITE_SCORE[row.result])
    _store(conn, row.white_user, row.variant, game_id, white, new_white)
    _store(conn, row.black_user, row.variant, game_id, black, new_black)


class PlayerInfo(TypedDict):
    """What a game (or a lobby row) shows of a seat's account."""

    name: str | None
    """None: the account was deleted ("deleted player")."""
    rating: int
    provisional: bool
    """Shown as ``1500?``."""
    diff: int | None
    """The change the game made to the rating (a finished rated game), else None."""
    title: str | None
    """``"BOT"`` for a bot account (shown before its name everywhere), else None."""


DELETED_NAME = "deleted player"
BOT_TITLE = "BOT"
"""The title of a bot account (lichess's word), shown before its name."""


def player_info(conn: Connection, user_id: int, variant: str, game_id: str | None = None) -> PlayerInfo:
    """An account's name and current rating in ``variant`` (and what ``game_id`` changed)."""
    user = conn.execute(
        select(users.c.name, users.c.deleted, users.c.bot).where(users.c.id == user_id)
    ).first()
    rating = load_rating(conn, user_id, variant)
    diff = None
    if game_id is not None:
        hist = conn.execute(
            select(rating_history.c.before, rating_history.c.rating).where(
                rating_history.c.game_id == game_id, rating_history.c.user_id == user_id
            )
        ).first()
        if hist is not None:
            diff = round(hist.rating) - round(hist.before)
    return {
        "name": None if user is None or user.deleted is not None else user.name,
        "rating": round(rating.rating),
        "provisional": rating.provisional,
        "diff": diff,
        "title": BOT_TITLE if user is not None and user.bot else None,
    }


def ratings_before(engine: Engine, row: GameRow) -> dict[Color, int]:
    """The ratings the seats' accounts had when the game began (its PGN's ``WhiteElo`` and
    ``BlackElo``): those the game's rating update started from, or, for a game that changed no
    rating (yet), the current ones."""
    out: dict[Color, int] = {}
    with engine.connect() as conn:
        for color in Color:
            user_id = row.user_of(color)
            if user_id is None:
                continue
            before = conn.execute(
                select(rating_history.c.before).where(
                    rating_history.c.game_id == row.id, rating_history.c.user_id == user_id
                )
            ).scalar_one_or_none()
            if before is None:
                before = load_rating(conn, user_id, row.variant).rating
            out[color] = round(before)
    return out


def players_by_id(engine: Engine, user_ids: set[int], variant: str) -> dict[int, PlayerInfo]:
    """:class:`PlayerInfo` of several accounts in ``variant`` at once, in two queries whatever
    their number (a tournament's standings read 200 players' at every change: two queries per
    player made a view take seconds, see docs/tournaments.md)."""
    found = ratings_of(engine, {(user_id, variant) for user_id in user_ids})
    return {user_id: found[(user_id, variant)] for user_id in user_ids}


def ratings_of(engine: Engine, seats: set[tuple[int, str]]) -> dict[tuple[int, str], PlayerInfo]:
    """:class:`PlayerInfo` of several (account, game) pairs in two queries, whatever their
    number (the lobby lists up to a hundred challenges and twenty games at every change)."""
    if not seats:
        return {}
    ids = {user_id for user_id, _ in seats}
    with engine.connect() as conn:
        found = list(
            conn.execute(
                select(users.c.id, users.c.name, users.c.deleted, users.c.bot).where(users.c.id.in_(ids))
            )
        )
        names = {r.id: None if r.deleted is not None else r.name for r in found}
        bots = {r.id for r in found if r.bot}
        stored = {
            (r.user_id, r.variant): Rating(r.rating, r.rd, r.volatility)
            for r in conn.execute(
                select(
                    ratings.c.user_id, ratings.c.variant, ratings.c.rating, ratings.c.rd, ratings.c.volatility
                ).where(ratings.c.user_id.in_(ids))
            )
        }
    out: dict[tuple[int, str], PlayerInfo] = {}
    for seat in seats:
        rating = stored.get(seat, Rating())
        out[seat] = {
            "name": names.get(seat[0]),
            "rating": round(rating.rating),
            "provisional": rating.provisional,
            "diff": None,
            "title": BOT_TITLE if seat[0] in bots else None,
        }
    return out


def player_infos(engine: Engine, row: GameRow) -> dict[Color, PlayerInfo | None]:
    """The :class:`PlayerInfo` of each seat of a game (None: no account holds it)."""
    with engine.connect() as conn:
        return {
            color: player_info(conn, user_id, row.variant, row.id) if user_id is not None else None
            for color in Color
            for user_id in [row.user_of(color)]
        }


@dataclass(frozen=True)
class RatingLine:
    """One game's rating of a player, with its history (oldest first: (when, rating))."""

    variant: str
    rating: Rating
    games: int
    history: list[tuple[dt.datetime, float]]


def user_ratings(engine: Engine, user_id: int) -> list[RatingLine]:
    """The player's rating in each game they have played rated, with its history."""
    with engine.connect() as conn:
        q = select(ratings).where(ratings.c.user_id == user_id).order_by(ratings.c.variant)
        rows = list(conn.execute(q))
        lines = []
        for r in rows:
            hist = conn.execute(
                select(rating_history.c.created, rating_history.c.rating)
                .where(rating_history.c.user_id == user_id, rating_history.c.variant == r.variant)
                .order_by(rating_history.c.id)
            )
            lines.append(
                RatingLine(
                    r.variant,
                    Rating(r.rating, r.rd, r.volatility),
                    r.games,
                    [(h.created, h.rating) for h in hist],
                )
            )
    return lines


@dataclass(frozen=True)
class Leader:
    """A line of a leaderboard."""

    name: str
    rating: int
    games: int
    bot: bool = False
    """A bot account: marked BOT on the leaderboard (bots share the pools with people)."""


def leaderboard(engine: Engine, variant: str, limit: int = 50) -> list[Leader]:
    """The best non-provisional players of ``variant`` (live accounts only)."""
    with engine.connect() as conn:
        q = (
            select(users.c.name, ratings.c.rating, ratings.c.games, users.c.bot)
            .join(users, users.c.id == ratings.c.user_id)
            .where(ratings.c.variant == variant, ratings.c.rd <= PROVISIONAL_RD, users.c.deleted.is_(None))
            .order_by(ratings.c.rating.desc(), users.c.name_key)
            .limit(limit)
        )
        return [Leader(r.name, round(r.rating), r.games, bool(r.bot)) for r in conn.execute(q)]


@dataclass(frozen=True)
class Chart:
    """A rating history as an SVG polyline in a ``width`` x ``height`` box (y grows downward)."""

    width: int
    height: int
    points: str
    low: int
    high: int


def history_chart(history: list[tuple[dt.datetime, float]], width: int = 320, height: int = 80) -> Chart:
    """The polyline of ``history`` (one point per game, evenly spaced: a player's games are
    what matters, not the calendar), starting from the starting rating."""
    values = [START_RATING] + [r for _, r in history]
    low, high = min(values), max(values)
    span = max(high - low, 50.0)  # a flat line of a few points stays in the middle
    mid = (high + low) / 2
    step = width / max(len(values) - 1, 1)
    pad = 4
    points = " ".join(
        f"{i * step:.1f},{pad + (height - 2 * pad) * (0.5 - (v - mid) / span):.1f}"
        for i, v in enumerate(values)
    )
    return Chart(width, height, points, round(low), round(high))
