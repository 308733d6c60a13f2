"""Durable storage of games and moves with SQLAlchemy 2 (SQLite by default, PostgreSQL too).

Every write is one transaction.  A move row is inserted together with an
optimistic update of the game's ply counter (``UPDATE games SET ply = n + 1
WHERE id = ? AND ply = n``) and the table ``moves`` has a unique
``(game_id, ply)`` key, so two writers racing for the same ply cannot both win,
even across processes.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import hashlib
import hmac
import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NotRequired, TypedDict

from sqlalchemy import (
    ARRAY,
    JSON,
    Boolean,
    Column,
    ColumnElement,
    Connection,
    CursorResult,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    Row,
    String,
    Table,
    Text,
    UniqueConstraint,
    and_,
    bindparam,
    cast,
    column,
    create_engine,
    delete,
    event,
    false,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy import Enum as SAEnum
from sqlalchemy import text as sql_text
from sqlalchemy.exc import IntegrityError

from exochess.web.domain import N_, ChallengeStatus, Color, GameStatus, PlayerKind, SeatChoice, Stamp
from exochess.web.storage.groupcommit import GroupCommit
from exochess.web.storage.migrate import upgrade
from exochess.web.storage.threads import DB_THREADS, thread_count

log = logging.getLogger("exochess.web")
metadata = MetaData()
NAME_LENGTH = 40
"""Room for a display name (the lobby accepts up to 24 characters; an account's may differ)."""

SECRET_PREFIX = "sha256:"
"""Marks a stored seat secret as a digest (a plain token from ``secrets.token_urlsafe`` never
contains ``:``), so rows written before secrets were hashed are told apart."""

SCHEMA_LOCK_KEY = 0x65786F6368657373
"""PostgreSQL advisory-lock key held while a server upgrades the schema ("exochess")."""


def hash_secret(secret: str) -> str:
    """The stored form of a seat secret: ``sha256:`` and the digest in unpadded base64url.

    A plain, unsalted SHA-256 is enough because a seat secret is a random 128-bit token, not a
    password: there is no dictionary to try (docs/decisions/0005-seat-secrets-hashed.md).
    """
    digest = hashlib.sha256(secret.encode("ascii")).digest()
    return SECRET_PREFIX + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def stored_secret(value: str) -> str:
    """``value`` as it is stored: hashed, unless it already is a stored digest."""
    return value if value.startswith(SECRET_PREFIX) else hash_secret(value)


def secret_matches(secret: str, stored: str) -> bool:
    """Whether ``secret`` opens the seat whose stored secret is ``stored``, in constant time.

    A stored value without the digest prefix is a plain secret of an older row (one another
    server process wrote before it was migrated): it is compared as it is.
    """
    if not secret.isascii():  # seat secrets are ASCII tokens (and a lone surrogate cannot be encoded)
        return False
    if stored.startswith(SECRET_PREFIX):
        return hmac.compare_digest(hash_secret(secret), stored)
    return hmac.compare_digest(secret.encode("ascii"), stored.encode("utf-8", "replace"))


def _enum(kind: type[StrEnum], length: int = 16) -> SAEnum:
    """A text column holding a :class:`StrEnum`'s values (read back as members).

    Plain VARCHAR without a CHECK constraint, as the columns were before they were typed.
    """
    return SAEnum(
        kind,
        native_enum=False,
        create_constraint=False,
        length=length,
        values_callable=lambda members: [m.value for m in members],
    )


users = Table(
    "users",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(32), nullable=False),
    Column("name_key", String(32), nullable=False, unique=True),
    # The name case-folded: names are unique without regard to case.
    Column("skeleton", String(64), nullable=False, unique=True),
    # The name with look-alike characters mapped to one (see accounts.skeleton).
    Column("password_hash", String(256), nullable=True),
    # argon2id (PHC string); None once the account is deleted.
    Column("created", DateTime, nullable=False),
    Column("deleted", DateTime, nullable=True),
    # A BOT account (issue 47): plays through the API only; set once, never unset.
    Column("bot", Boolean, nullable=False, server_default=false()),
)
"""Accounts.  A deleted account keeps its row (games point at it, shown as "deleted player")
and its name stays taken, so that nobody can later appear to have played its games."""

sessions = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    # The digest of the cookie's token (see :func:`hash_secret`), never the token.
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("created", DateTime, nullable=False),
    Column("expires", DateTime, nullable=False),
)

ratings = Table(
    "ratings",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("variant", String(32), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated", DateTime, nullable=False),
)
"""A player's Glicko-2 rating in one game (a missing row is the starting rating)."""

rating_history = Table(
    "rating_history",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("variant", String(32), nullable=False),
    Column("game_id", String(32), ForeignKey("games.id"), nullable=False),
    Column("before", Float, nullable=False),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("created", DateTime, nullable=False),
    UniqueConstraint("game_id", "user_id", name="uq_rating_history_game_user"),
)
"""One row per player per rated game: the second update of a game's ratings cannot be stored."""

games = Table(
    "games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("variant", String(32), nullable=False),
    Column("start_fen", Text, nullable=False),
    Column("white", _enum(PlayerKind), nullable=False),
    Column("black", _enum(PlayerKind), nullable=False),
    Column("level", Integer, nullable=True),
    Column("white_secret", String(64), nullable=False),
    Column("black_secret", String(64), nullable=False),
    Column("ply", Integer, nullable=False, default=0),
    Column("status", _enum(GameStatus), nullable=False, default=GameStatus.ACTIVE),
    Column("result", String(8), nullable=True),
    Column("termination", String(32), nullable=True),
    Column("reason", Text, nullable=True),
    Column("takeback_offer", _enum(Color, 8), nullable=True),
    Column("rematch_id", String(32), nullable=True),
    Column("created", DateTime, nullable=False),
    Column("updated", DateTime, nullable=False),
    Column("time_control", String(16), nullable=True),
    Column("white_user", Integer, ForeignKey("users.id"), nullable=True, index=True),
    Column("black_user", Integer, ForeignKey("users.id"), nullable=True, index=True),
    Column("rated", Boolean, nullable=False, server_default=false()),
    # set in the transaction that applied the result to the ratings (exactly once)
    Column("ratings_done", Boolean, nullable=False, server_default=false()),
    # the players' display names (a guest's chosen name now, an account's username later)
    Column("white_name", String(NAME_LENGTH), nullable=True),
    Column("black_name", String(NAME_LENGTH), nullable=True),
    # the clocks when the game ended without a move (a flag, a resignation, an abort, a claim:
    # issue 40); NULL while it is on, without real-time clocks, and when a move ended it (that
    # move's stamp holds its final clocks)
    Column("end_white_ms", Integer, nullable=True),
    Column("end_black_ms", Integer, nullable=True),
    # a game read from a PGN someone pasted (issue 45): finished when stored, never rated, its
    # seats held by nobody; shown like a finished game, marked imported
    Column("imported", Boolean, nullable=False, server_default=false()),
    # berserk (issue 46): an arena tournament's game lets each player halve their own clock and
    # give up their increment before their first move, for a bonus point if they win
    Column("berserkable", Boolean, nullable=False, server_default=false()),
    Column("white_berserk", Boolean, nullable=False, server_default=false()),
    Column("black_berserk", Boolean, nullable=False, server_default=false()),
    # an imported game's PGN comments and clocks, {"comments": {ply: text}, "clocks": {ply: ms}}
    # (keys are text: JSON's); read and written whole with the game, never queried; NULL for a
    # game played here, whose clocks are its moves' and whose chat is not PGN
    Column("pgn_notes", JSON, nullable=True),
)

_LISTED = [column for column in games.columns if column.name != "pgn_notes"]
"""The columns of ``games`` a list of games reads: all but an imported game's notes (up to a PGN's
size each, needed on its own page only)."""

moves = Table(
    "moves",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", String(32), ForeignKey("games.id"), nullable=False),
    Column("ply", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("created", DateTime, nullable=False),
    # the clocks after the move and the time it arrived (web/game/clock.py): NULL in rows stored
    # before there were clocks, and the clocks NULL in games without real-time clocks
    Column("white_ms", Integer, nullable=True),
    Column("black_ms", Integer, nullable=True),
    Column("at", DateTime, nullable=True),
    UniqueConstraint("game_id", "ply", name="uq_moves_game_ply"),
)


challenges = Table(
    "challenges",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("variant", String(32), nullable=False),
    Column("time_control", String(16), nullable=False),
    # The poster's colour as asked for: white, black or random (drawn when accepted).
    Column("color", _enum(SeatChoice, 8), nullable=False),
    Column("poster_name", String(NAME_LENGTH), nullable=False),
    # The digest of the poster's player token (what an account id replaces later).
    Column("poster_key", String(64), nullable=False, index=True),
    # The digest of the seat secret the poster received when posting.
    Column("poster_secret", String(64), nullable=False),
    # The poster's client address while the challenge is open (for the cap per address).
    Column("poster_address", String(64), nullable=True),
    Column("status", _enum(ChallengeStatus, 16), nullable=False),
    Column("game_id", String(32), nullable=True),
    Column("poster_color", _enum(Color, 8), nullable=True),
    Column("created", DateTime, nullable=False),
    # The poster's account (None: a guest); a rated challenge has one, and so does its acceptor.
    Column("poster_user", Integer, ForeignKey("users.id"), nullable=True),
    Column("rated", Boolean, nullable=False, server_default=false()),
    # The digest of the poster's browser token (sent by a signed-in poster too): an acceptor
    # from the same browser is refused (two accounts of one browser cannot meet).
    Column("poster_browser", String(64), nullable=True),
    # The challenged account of a direct challenge (``POST /api/challenge/{user}``, issue 47);
    # None for the lobby's open challenges, which anyone may accept.  No index nor foreign key:
    # the table holds the open challenges only, and SQLite cannot drop an indexed column.
    Column("dest_user", Integer, nullable=True),
)

api_tokens = Table(
    "api_tokens",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    # The SHA-256 digest of the token (the token itself is shown once, never stored).
    Column("digest", String(64), nullable=False, unique=True),
    Column("description", String(64), nullable=False),
    # The scopes, space-separated ("bot:play challenge:write").
    Column("scopes", String(256), nullable=False),
    Column("created", DateTime, nullable=False),
    Column("last_used", DateTime, nullable=True),
    # Kept after revocation, so that a revoked token is told apart from a wrong one.
    Column("revoked", DateTime, nullable=True),
)
"""Personal API tokens (issue 47): ``Authorization: Bearer`` for programs acting as an account."""

lesson_progress = Table(
    # the stars of each lesson stage an account has completed (its best score): see docs/lessons.md
    "lesson_progress",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("variant", String(32), primary_key=True),
    Column("stage", String(64), primary_key=True),
    Column("stars", Integer, nullable=False),
    Column("updated", DateTime, nullable=False),
)

tournaments = Table(
    # an arena or a Swiss event (issue 46; docs/tournaments.md, "On the site"): its settings and
    # where it stands; the players and games are in the two tables below
    "tournaments",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("variant", String(32), nullable=False),
    Column("name", String(80), nullable=False),
    Column("time_control", String(16), nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("starts_at", DateTime, nullable=False),
    # an arena's length; a Swiss event has none (it ends with its last round)
    Column("duration_s", Integer, nullable=True),
    # a Swiss event's number of rounds, and the round being played (0: not started)
    Column("rounds", Integer, nullable=True),
    Column("round", Integer, nullable=False, server_default="0"),
    Column("status", String(12), nullable=False),
    Column("creator", Integer, ForeignKey("users.id"), nullable=True),
    # unlisted: reached by its link only
    Column("private", Boolean, nullable=False, server_default=false()),
    # the schedule entry that made it (one event per entry and start time)
    Column("schedule_key", String(96), nullable=True, unique=True),
    # the pairing lease: the one process that pairs (across servers) holds it until then
    Column("lease_until", DateTime, nullable=True),
    Column("created", DateTime, nullable=False),
    Column("finished", DateTime, nullable=True),
    # bot accounts may join (lichess's "conditions.bots"; Alembic revision 0013)
    Column("bots_allowed", Boolean, nullable=False, server_default=false()),
)

tournament_players = Table(
    "tournament_players",
    metadata,
    Column("tournament_id", String(16), ForeignKey("tournaments.id"), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("joined", DateTime, nullable=False),
    # a Swiss late joiner's first round
    Column("joined_round", Integer, nullable=False, server_default="1"),
    # False: withdrawn (or paused after missing a game); not paired until they join again
    Column("active", Boolean, nullable=False),
    # the Swiss round after which they withdrew
    Column("withdrawn_after", Integer, nullable=True),
)

tournament_games = Table(
    "tournament_games",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("tournament_id", String(16), ForeignKey("tournaments.id"), nullable=False, index=True),
    Column("round", Integer, nullable=False, server_default="0"),
    Column("white_user", Integer, ForeignKey("users.id"), nullable=False),
    Column("black_user", Integer, ForeignKey("users.id"), nullable=False),
    Column("created", DateTime, nullable=False),
)

tournament_byes = Table(
    # a Swiss round's bye (a point without a game)
    "tournament_byes",
    metadata,
    Column("tournament_id", String(16), ForeignKey("tournaments.id"), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False),
)

puzzle_ratings = Table(
    # each puzzle's Glicko-2 rating on the site, moved by accounts' rated plays (docs/puzzles.md
    # and docs/web.md); a missing row is the rating its collection's file gives
    "puzzle_ratings",
    metadata,
    Column("variant", String(32), primary_key=True),
    Column("puzzle_id", String(64), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("plays", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    # wins: plays the player solved
    Column("updated", DateTime, nullable=False),
)

puzzle_players = Table(
    # an account's puzzle rating in one game (apart from its game rating) and its best streak;
    # a missing row is the starting rating
    "puzzle_players",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("variant", String(32), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("plays", Integer, nullable=False),
    Column("best_streak", Integer, nullable=False),
    Column("updated", DateTime, nullable=False),
)

puzzle_plays = Table(
    # one row per finished puzzle attempt of an account (its history): only the first play of a
    # puzzle is rated (rating_before/rating_after set), later ones and streak plays are not
    "puzzle_plays",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("variant", String(32), nullable=False),
    Column("puzzle_id", String(64), nullable=False),
    Column("solved", Boolean, nullable=False),
    Column("mode", String(8), nullable=False),
    Column("rating_before", Float, nullable=True),
    Column("rating_after", Float, nullable=True),
    Column("puzzle_rating", Float, nullable=False),
    Column("created", DateTime, nullable=False),
)

game_reports = Table(
    # a finished game's computer report (docs/analysis.md): one row per game, shared by everyone
    "game_reports",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("status", String(16), nullable=False),
    # queued -> running -> done (or failed); what web/game/reports.py runs and shows
    Column("auto", Boolean, nullable=False, server_default=false()),
    # queued by the server for a rated game (runs only while the engine is idle)
    Column("owner", String(64), nullable=False),
    # who asked (the account, else the address; the server for an automatic one)
    Column("nodes", Integer, nullable=False),
    # the engine's budget per position
    Column("total", Integer, nullable=False),
    # positions to search (the game's moves and its start)
    Column("positions", Text, nullable=False),
    # JSON list, one entry per position searched so far, in order (resumed from there)
    Column("requested", DateTime, nullable=False),
    Column("updated", DateTime, nullable=False),
    Column("lease_until", DateTime, nullable=True),
    # a server runs the report until then (renewed after each position): after a crash the
    # report is resumed by whichever server finds the lease lapsed
    Column("error", Text, nullable=True),
)

chat = Table(
    "chat",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", String(32), ForeignKey("games.id"), nullable=False, index=True),
    # The game's ply when the line was written (where it goes in the PGN).
    Column("ply", Integer, nullable=False),
    Column("color", _enum(Color, 8), nullable=False),
    Column("name", String(NAME_LENGTH), nullable=True),
    Column("text", Text, nullable=False),
    Column("created", DateTime, nullable=False),
)


class MoveRow(TypedDict):
    """A move's row in ``moves`` (its ``id`` aside), as :meth:`Storage.add_move` stores it."""

    game_id: str
    ply: int
    text: str
    created: dt.datetime
    white_ms: int | None
    black_ms: int | None
    at: dt.datetime | None


_MOVE_COLUMNS = tuple(MoveRow.__annotations__)
"""The columns of a move's row that the move path fills (all but ``id``), in :class:`MoveRow`'s
order."""


BOTH_MOVED = 2
"""Plies after which both sides of a game have moved (both seats are taken)."""


def _at_ply(game_id: ColumnElement[Any], ply: ColumnElement[Any]) -> ColumnElement[bool]:
    """The optimistic check of every change to a game: it is still active and at ``ply``."""
    return and_(games.c.id == game_id, games.c.ply == ply, games.c.status == GameStatus.ACTIVE)


def _next_ply(ply: ColumnElement[Any], at_time: ColumnElement[Any]) -> dict[str, Any]:
    """What a move that does not end its game changes in its game's row: ``ply`` (the one
    after the move), no takeback offer, ``at_time`` (when it was stored)."""
    return {"ply": ply, "takeback_offer": None, "updated": at_time}


_AT_PLY = _at_ply(bindparam("at_game"), bindparam("at_ply"))
"""The optimistic check as parameters ``at_game`` and ``at_ply``."""
_NEXT_PLY = update(games).where(_AT_PLY).values(_next_ply(bindparam("next_ply"), bindparam("at_time")))
"""A move's optimistic update of its game, built once: the statements of the move path are
the storage's most frequent, and building them per call (``update().values()``) cost more
Python time than SQLite's work (issue 17's profile)."""
_INSERT_MOVE = insert(moves)
"""A move's row; its values are passed at execution (the statement is built and compiled once)."""
_MOVED = _NEXT_PLY.returning(games.c.id).cte("moved")
_STORE_MOVE = (
    insert(moves)
    .from_select(
        list(_MOVE_COLUMNS),
        select(
            *(
                _MOVED.c.id if name == "game_id" else cast(bindparam(f"move_{name}"), moves.c[name].type)
                for name in _MOVE_COLUMNS
            )
        ),
    )
    .returning(moves.c.id)
)
"""A move that does not end its game, on PostgreSQL: the guarded update of its game and the
insert of its row as one statement (``WITH moved AS (UPDATE ... RETURNING id) INSERT ...
SELECT ... FROM moved``), run outside a transaction block.  One statement is atomic on its own,
so the move costs one round trip to the database instead of four (begin, update, insert,
commit): each round trip is a wait for a core and then for the server's interpreter lock,
which made a transaction of 0.4 ms of CPU hold its thread 20-25 ms under load.  When the guard
fails, the update returns no row and nothing is inserted (nor returned).  SQLite cannot update in a
``WITH`` clause: there the move keeps its transaction of two statements.  The casts tell
PostgreSQL the parameters' types, which a select list does not."""

_EACH_MOVE = (
    func.unnest(*(cast(bindparam(f"each_{name}"), ARRAY(moves.c[name].type)) for name in _MOVE_COLUMNS))
    .table_valued(*(column(name, moves.c[name].type) for name in _MOVE_COLUMNS))
    .render_derived("each_move")
)
"""The moves of :data:`_STORE_MOVES` as rows: one array parameter a column (``each_game_id``,
``each_ply``...), taken side by side by ``unnest``."""
_MOVED_EACH = (
    update(games)
    .where(_at_ply(_EACH_MOVE.c.game_id, _EACH_MOVE.c.ply))
    .values(_next_ply(_EACH_MOVE.c.ply + 1, _EACH_MOVE.c.created))
    .returning(*(_EACH_MOVE.c[name] for name in _MOVE_COLUMNS))
    .cte("moved_each")
)
_STORE_MOVES = (
    insert(moves)
    .from_select(
        list(_MOVE_COLUMNS),
        select(*(_MOVED_EACH.c[name] for name in _MOVE_COLUMNS)),
    )
    .returning(moves.c.game_id)
)
"""Several moves of different games that do not end them, on PostgreSQL, as one statement
(:class:`~exochess.web.storage.groupcommit.GroupCommit`): :data:`_STORE_MOVE` over the rows of
:data:`_EACH_MOVE` (``UPDATE games ... FROM unnest(...) ... RETURNING`` the moves whose guard
held, inserted by the ``INSERT``); each game's guard is its own, and the games returned are
those whose move was stored.  The statement's text does not depend on how many moves it
carries, so PostgreSQL plans it once per connection."""


_CHAT_LINES = (
    select(chat)
    .where(chat.c.game_id == bindparam("of_game"))
    .order_by(chat.c.id.desc())
    .limit(bindparam("at_most", type_=Integer))
)
"""A game's last chat lines, built once: every websocket join reads them (a flood of joins
queues these reads in the database thread, ahead of the moves)."""


def _one_changed(result: CursorResult[Any], guard: Mapping[str, Any]) -> None:
    """Raise :class:`ConflictError` unless the guarded update (:data:`_AT_PLY`) changed its game."""
    if result.rowcount != 1:
        raise ConflictError(f"game {guard['at_game']} is no longer at ply {guard['at_ply']}")


def now() -> dt.datetime:
    """The current UTC time without tzinfo (portable across databases)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


@dataclass
class GameRow:
    """A stored game with its moves in order: one field per column of ``games``, then ``moves``."""

    id: str
    variant: str
    start_fen: str
    white: PlayerKind
    black: PlayerKind
    level: int | None
    white_secret: str
    """The stored form of White's seat secret (see :func:`hash_secret`), never the secret itself."""
    black_secret: str
    """Likewise for Black."""
    ply: int
    status: GameStatus
    result: str | None
    termination: str | None
    reason: str | None
    takeback_offer: Color | None
    rematch_id: str | None
    created: dt.datetime
    updated: dt.datetime
    time_control: str | None
    """The text form of the game's time control (:mod:`exochess.web.game.timecontrol`); ``None``
    for no clock (and for every game stored before there were clocks)."""
    white_user: int | None = None
    """The account holding White's seat (None: anonymous, or the computer)."""
    black_user: int | None = None
    rated: bool = False
    ratings_done: bool = False
    white_name: str | None = None
    """White's display name; ``None`` when none was given (and for games made before names)."""
    black_name: str | None = None
    end_white_ms: int | None = None
    """White's time left when the game ended without a move (None: see ``games.end_white_ms``)."""
    end_black_ms: int | None = None
    """Likewise for Black."""
    imported: bool = False
    """Read from a PGN (``POST /api/import``), not played here."""
    berserkable: bool = False
    """An arena tournament's game: its players may berserk (:mod:`exochess.web.game.berserk`)."""
    white_berserk: bool = False
    """White berserked: half its initial time, no increment."""
    black_berserk: bool = False
    """Likewise for Black."""
    pgn_notes: dict[str, dict[str, Any]] | None = None
    """An imported game's PGN comments and clocks (``games.pgn_notes``; None in a list's rows)."""
    moves: list[str] = field(default_factory=list)
    stamps: list[Stamp] = field(default_factory=list)
    """The clock columns of each move (:class:`~exochess.web.game.clock.Stamp`), in order; for a
    row of a list, only the last move's (or none)."""

    def kind_of(self, color: Color) -> PlayerKind:
        """Who plays ``color``."""
        return self.white if color == Color.WHITE else self.black

    def user_of(self, color: Color) -> int | None:
        """The account holding ``color``'s seat, if any."""
        return self.white_user if color == Color.WHITE else self.black_user

    def name_of(self, color: Color) -> str | None:
        """The display name of ``color``'s player, if one was given."""
        return self.white_name if color == Color.WHITE else self.black_name

    @property
    def berserked(self) -> frozenset[Color]:
        """The seats that berserked (their clocks are halved, without increment)."""
        seats = ((Color.WHITE, self.white_berserk), (Color.BLACK, self.black_berserk))
        return frozenset(color for color, on in seats if on)


@dataclass
class ChallengeRow:
    """A stored challenge: one field per column of ``challenges``."""

    id: str
    variant: str
    time_control: str
    color: SeatChoice
    poster_name: str
    poster_key: str
    poster_secret: str
    poster_address: str | None
    status: ChallengeStatus
    game_id: str | None
    poster_color: Color | None
    created: dt.datetime
    poster_user: int | None = None
    """The poster's account, if they were signed in."""
    rated: bool = False
    poster_browser: str | None = None
    """The digest of the poster's browser token, if it sent one."""
    dest_user: int | None = None
    """The challenged account of a direct challenge (None: an open challenge of the lobby)."""


@dataclass
class ChatRow:
    """A stored chat line."""

    id: int
    game_id: str
    ply: int
    color: Color
    name: str | None
    text: str
    created: dt.datetime


class Finish(TypedDict):
    """The columns written when a game ends."""

    result: str
    termination: str
    reason: str
    end_white_ms: NotRequired[int | None]
    """The clocks when the game ended without a move (real time only; see ``games``)."""
    end_black_ms: NotRequired[int | None]


FinishHook = Callable[[Connection, str], None]
"""Called with the open transaction and the game's id when a game ends (see
:attr:`Storage.finish_hooks`)."""


class ConflictError(Exception):
    """The game changed under us (another move was stored first)."""


class ChallengeLimitError(Exception):
    """A poster (or their address) already has as many open challenges as allowed: an English
    ``template`` with ``{fields}`` from ``params``, so the lobby can answer it in the player's
    language."""

    def __init__(self, template: str, **params: object) -> None:
        super().__init__(template.format(**params))
        self.template = template
        self.params = params


def _row_to_game(row: Row[Any], move_texts: list[str], stamps: list[Stamp] | None = None) -> GameRow:
    # the dataclass fields are the table's columns plus the moves
    return GameRow(**row._mapping, moves=move_texts, stamps=stamps or [])


def _stamp(white_ms: int | None, black_ms: int | None, at: dt.datetime | None, created: dt.datetime) -> Stamp:
    # a move stored before there were clocks arrived when its row was written
    return Stamp(white_ms, black_ms, at if at is not None else created)


class Storage:
    """Synchronous storage; the web service calls it from one worker thread."""

    def __init__(self, url: str, *, busy_timeout: float = 30.0, db_threads: int = DB_THREADS) -> None:
        """Open the database at ``url``, upgraded to the code's schema first (its Alembic
        migrations, :mod:`exochess.web.storage.migrate`; an empty database gets every table).

        ``busy_timeout`` (seconds, SQLite only) is how long a write waits for another writer's
        lock before it fails.
        """
        self.url = url
        self.finish_hooks: list[FinishHook] = []
        """Run inside the transaction that stores a game's result (the ratings update): if one
        raises, the result is not stored either."""
        self.is_sqlite = url.startswith("sqlite")
        self.db_threads = thread_count(self.is_sqlite, db_threads)
        """The database threads a server on this storage runs (the setting ``EXOCHESS_DB_THREADS``
        on PostgreSQL, one on SQLite); the pool keeps a connection for each."""
        kwargs: dict[str, Any] = {}
        if self.is_sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": busy_timeout}
        else:
            # a server database may have restarted (or dropped idle connections) since a pooled
            # connection was last used: test each one as it is checked out, reconnect if dead
            kwargs["pool_pre_ping"] = True
            # a connection kept for each database thread: with SQLAlchemy's default of 5, three
            # of the 8 threads' connections were overflow, closed when given back and opened
            # again for the next job (bench/cluster.py, 2 processes: 491-704 connections opened
            # in 30 s, PostgreSQL 1.39-1.58 ms of CPU a move against 0.41-0.53 ms without)
            kwargs["pool_size"] = self.db_threads
        self.engine: Engine = create_engine(url, **kwargs)
        self._autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        """The same pool, each statement its own transaction (a move's single statement)."""
        self.move_groups: GroupCommit[MoveRow] = GroupCommit(
            self._store_move, self._store_moves, key=lambda row: row["game_id"]
        )
        """Moves (on PostgreSQL, those that do not end their game) stored one statement for all
        the database threads holding one at the same moment."""
        if self.is_sqlite:

            @event.listens_for(self.engine, "connect")
            def _pragmas(dbapi_conn: Any, _record: Any) -> None:
                cur = dbapi_conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=NORMAL")
                cur.execute("PRAGMA foreign_keys=ON")
                cur.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
                cur.close()

        with self._schema_lock():
            self.upgraded_to = upgrade(self.engine)
            """The revision this opening upgraded the database to (None: it was there already)."""
        if self.upgraded_to is not None:
            log.info("database upgraded to revision %s", self.upgraded_to)

    @contextlib.contextmanager
    def _schema_lock(self) -> Iterator[None]:
        """Hold PostgreSQL's advisory lock ``SCHEMA_LOCK_KEY`` while the tables are made or
        upgraded: servers started together on a new database (``serve --workers N``, or several
        machines) each create the tables, and PostgreSQL refused all but the first with a unique
        violation in its catalogue, so those servers failed to start.  One at a time, the later
        ones find the tables made.  SQLite's site is one process: no lock."""
        if self.is_sqlite:
            yield
            return
        with self.engine.connect() as conn:
            conn.execute(sql_text("SELECT pg_advisory_lock(:key)"), {"key": SCHEMA_LOCK_KEY})
            try:
                yield
            finally:
                conn.execute(sql_text("SELECT pg_advisory_unlock(:key)"), {"key": SCHEMA_LOCK_KEY})
                conn.commit()

    def close(self) -> None:
        self.engine.dispose()

    # --- games -------------------------------------------------------------------

    def create_game(
        self,
        *,
        id: str,
        variant: str,
        start_fen: str,
        white: PlayerKind,
        black: PlayerKind,
        level: int | None,
        white_secret: str,
        black_secret: str,
        time_control: str | None = None,
        white_user: int | None = None,
        black_user: int | None = None,
        rated: bool = False,
        white_name: str | None = None,
        black_name: str | None = None,
        berserkable: bool = False,
    ) -> None:
        """Store a new game, active at ply 0 (``white_user``/``black_user``: the accounts holding
        the seats; ``rated``: the result changes their ratings; ``berserkable``: an arena game,
        whose players may berserk).

        The seat secrets are stored hashed (a value that already is a stored digest, such as a
        seat's secret carried over to a rematch, is kept as it is).
        """
        stamp = now()
        with self.engine.begin() as conn:
            conn.execute(
                insert(games).values(
                    id=id,
                    variant=variant,
                    start_fen=start_fen,
                    white=white,
                    black=black,
                    level=level,
                    white_secret=stored_secret(white_secret),
                    black_secret=stored_secret(black_secret),
                    ply=0,
                    status=GameStatus.ACTIVE,
                    time_control=time_control,
                    created=stamp,
                    updated=stamp,
                    white_user=white_user,
                    black_user=black_user,
                    rated=rated,
                    white_name=white_name,
                    black_name=black_name,
                    berserkable=berserkable,
                )
            )

    def import_game(
        self,
        *,
        id: str,
        variant: str,
        start_fen: str,
        texts: list[str],
        result: str,
        termination: str | None,
        white_name: str | None,
        black_name: str | None,
        white_secret: str,
        black_secret: str,
        pgn_notes: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        """Store a game read from a PGN, finished with its ``result``, and its moves, in one
        transaction (``imported``, unrated; the seat secrets are random and never given out);
        ``pgn_notes``: its comments and clocks by ply (``games.pgn_notes``)."""
        stamp = now()
        with self.engine.begin() as conn:
            conn.execute(
                insert(games).values(
                    id=id,
                    variant=variant,
                    start_fen=start_fen,
                    white=PlayerKind.HUMAN,
                    black=PlayerKind.HUMAN,
                    level=None,
                    white_secret=stored_secret(white_secret),
                    black_secret=stored_secret(black_secret),
                    ply=len(texts),
                    status=GameStatus.FINISHED,
                    result=result,
                    termination=termination,
                    created=stamp,
                    updated=stamp,
                    rated=False,
                    white_name=white_name,
                    black_name=black_name,
                    imported=True,
                    pgn_notes=pgn_notes,
                )
            )
            if texts:
                conn.execute(
                    insert(moves),
                    [
                        {"game_id": id, "ply": ply, "text": text, "created": stamp}
                        for ply, text in enumerate(texts)
                    ],
                )

    def load_game(self, game_id: str) -> GameRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(games).where(games.c.id == game_id)).first()
            if row is None:
                return None
            query = (
                select(moves.c.text, moves.c.white_ms, moves.c.black_ms, moves.c.at, moves.c.created)
                .where(moves.c.game_id == game_id)
                .order_by(moves.c.ply)
            )
            rows = conn.execute(query).all()
        texts = [r[0] for r in rows]
        stamps = [_stamp(*r[1:]) for r in rows]
        return _row_to_game(row, texts, stamps)

    def game_mark(self, game_id: str) -> tuple[int, str] | None:
        """The game's stored ply and status (None if there is no such game): one indexed row,
        for a server to tell whether its cached copy is behind (Redis mode)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(games.c.ply, games.c.status).where(games.c.id == game_id)).first()
        return None if row is None else (int(row[0]), str(row[1]))

    def game_marks(self, game_ids: list[str]) -> dict[str, tuple[int, str]]:
        """:meth:`game_mark` of many games at once (those that exist), in one statement."""
        marks: dict[str, tuple[int, str]] = {}
        with self.engine.connect() as conn:
            for start in range(0, len(game_ids), 500):  # bounded IN lists
                chunk = game_ids[start : start + 500]
                query = select(games.c.id, games.c.ply, games.c.status).where(games.c.id.in_(chunk))
                for game_id, ply, status in conn.execute(query):
                    marks[str(game_id)] = (int(ply), str(status))
        return marks

    @staticmethod
    def _guarded_update(conn: Connection, game_id: str, at_ply: int, **values: Any) -> None:
        """Update an active game only if it is still at ``at_ply`` (the optimistic check).

        Raises :class:`ConflictError` when another writer changed the game first.
        """
        guard = {"at_game": game_id, "at_ply": at_ply}
        _one_changed(conn.execute(update(games).where(_AT_PLY).values(updated=now(), **values), guard), guard)

    def _store_move(self, row: MoveRow) -> bool:
        """One move by :data:`_STORE_MOVE`; whether its guard let it in."""
        params = {
            "at_game": row["game_id"],
            "at_ply": row["ply"],
            "next_ply": row["ply"] + 1,
            "at_time": row["created"],
            **{f"move_{key}": value for key, value in row.items() if key != "game_id"},
        }
        with self._autocommit.connect() as conn:
            return conn.execute(_STORE_MOVE, params).first() is not None

    def _store_moves(self, rows: list[MoveRow]) -> list[bool]:
        """Moves of different games by :data:`_STORE_MOVES`; whether each guard let its move in."""
        by_name: list[Mapping[str, object]] = list(rows)
        params = {f"each_{name}": [r[name] for r in by_name] for name in _MOVE_COLUMNS}
        with self._autocommit.connect() as conn:
            stored = {game_id for (game_id,) in conn.execute(_STORE_MOVES, params)}
        return [r["game_id"] in stored for r in rows]

    def add_move(
        self, game_id: str, ply: int, text: str, finish: Finish | None, stamp: Stamp | None = None
    ) -> None:
        """Store move number ``ply`` (0-based) of a game whose stored ply must be ``ply``.

        ``finish`` holds the result columns when the move ends the game; ``stamp`` the clocks
        after the move and its arrival time.
        Raises :class:`ConflictError` if another move was stored first.
        """
        stored = now()
        row: MoveRow = {
            "game_id": game_id,
            "ply": ply,
            "text": text,
            "created": stored,
            "white_ms": stamp.white_ms if stamp else None,
            "black_ms": stamp.black_ms if stamp else None,
            "at": stamp.at if stamp else None,
        }
        try:
            if not finish and not self.is_sqlite:
                if not self.move_groups.store(row):
                    raise ConflictError(f"game {game_id} is no longer at ply {ply}")
                return
            with self.engine.begin() as conn:
                if finish:
                    self._guarded_update(
                        conn,
                        game_id,
                        ply,
                        ply=ply + 1,
                        takeback_offer=None,
                        status=GameStatus.FINISHED,
                        **finish,
                    )
                else:
                    params = {"at_game": game_id, "at_ply": ply, "next_ply": ply + 1, "at_time": stored}
                    _one_changed(conn.execute(_NEXT_PLY, params), params)
                conn.execute(_INSERT_MOVE, row)
                if finish:
                    self._finished(conn, game_id)
        except IntegrityError as exc:
            raise ConflictError(f"move {ply} of game {game_id} is already stored") from exc

    def finish(
        self, game_id: str, ply: int, values: Finish, status: GameStatus = GameStatus.FINISHED
    ) -> None:
        """Mark an active game at ``ply`` finished (resignation, time forfeit, a claim) or
        aborted."""
        with self.engine.begin() as conn:
            self._guarded_update(conn, game_id, ply, status=status, takeback_offer=None, **values)
            self._finished(conn, game_id)

    def _finished(self, conn: Connection, game_id: str) -> None:
        for hook in self.finish_hooks:
            hook(conn, game_id)

    def set_takeback_offer(self, game_id: str, ply: int, color: Color | None) -> None:
        """Record (or, with None, withdraw) a takeback offer by ``color`` at ``ply``."""
        with self.engine.begin() as conn:
            self._guarded_update(conn, game_id, ply, takeback_offer=color)

    def set_berserk(self, game_id: str, ply: int, color: Color) -> None:
        """Record that ``color`` berserked, the game being at ``ply`` (:class:`ConflictError`
        when it moved on first)."""
        column = "white_berserk" if color == Color.WHITE else "black_berserk"
        with self.engine.begin() as conn:
            self._guarded_update(conn, game_id, ply, **{column: True})

    def take_back(self, game_id: str, ply: int, new_ply: int) -> None:
        """Delete the moves from ``new_ply`` on, in one transaction with the ply check."""
        with self.engine.begin() as conn:
            self._guarded_update(conn, game_id, ply, ply=new_ply, takeback_offer=None)
            conn.execute(delete(moves).where(moves.c.game_id == game_id, moves.c.ply >= new_ply))

    def set_rematch(self, game_id: str, rematch_id: str) -> bool:
        """Link a rematch; False if the game already has one."""
        with self.engine.begin() as conn:
            res = conn.execute(
                update(games)
                .where(games.c.id == game_id, games.c.rematch_id.is_(None))
                .values(rematch_id=rematch_id)
            )
            return res.rowcount == 1

    def recent_games(self, limit: int = 30, ids: list[str] | None = None) -> list[GameRow]:
        """The most recently changed games, or those among ``ids``, each with the stamp of its
        last move (if any) and no move texts.  Aborted games are left out of the list of
        everybody's games: only their players (who name them in ``ids``) see them."""
        last = moves.alias("last_move")
        with self.engine.connect() as conn:
            q = (
                select(*_LISTED, last.c.white_ms, last.c.black_ms, last.c.at, last.c.created)
                .outerjoin(last, (last.c.game_id == games.c.id) & (last.c.ply == games.c.ply - 1))
                .order_by(games.c.updated.desc())
                .limit(limit)
            )
            if ids is not None:
                q = q.where(games.c.id.in_(ids))
            else:
                q = q.where(games.c.status != GameStatus.ABORTED)
            rows = list(conn.execute(q))
        result = []
        for r in rows:
            values = r._mapping
            row = GameRow(**{c.name: values[c] for c in _LISTED})
            created = values[last.c.created]
            if created is not None:
                clocks = (values[last.c.white_ms], values[last.c.black_ms], values[last.c.at])
                row.stamps = [_stamp(*clocks, created)]
            result.append(row)
        return result

    def active_timed_games(self) -> list[str]:
        """Ids of unfinished games with a clock (their deadlines are watched after a restart)."""
        with self.engine.connect() as conn:
            q = select(games.c.id).where(
                games.c.status == GameStatus.ACTIVE,
                games.c.time_control.is_not(None),
                games.c.time_control != "-",
            )
            return [r[0] for r in conn.execute(q)]

    def user_games(
        self,
        user_id: int,
        limit: int,
        before: tuple[dt.datetime, str] | None = None,
        with_moves: bool = False,
    ) -> list[GameRow]:
        """The games whose seats ``user_id`` holds, newest first (created before ``before``,
        a (created, id) pair, to page through them); with their moves if ``with_moves``."""
        mine = (games.c.white_user == user_id) | (games.c.black_user == user_id)
        with self.engine.connect() as conn:
            q = select(*_LISTED).where(mine).order_by(games.c.created.desc(), games.c.id.desc()).limit(limit)
            if before is not None:
                at, last_id = before
                q = q.where((games.c.created < at) | ((games.c.created == at) & (games.c.id < last_id)))
            rows = list(conn.execute(q))
            found: dict[str, list[str]] = {r.id: [] for r in rows}
            if with_moves and found:
                q_moves = select(moves.c.game_id, moves.c.text).where(moves.c.game_id.in_(list(found)))
                for game_id, text in conn.execute(q_moves.order_by(moves.c.game_id, moves.c.ply)):
                    found[game_id].append(text)
        return [_row_to_game(r, found[r.id]) for r in rows]

    def user_results(self, user_id: int) -> dict[str, int]:
        """How many finished games ``user_id`` won, lost and drew (``win``/``loss``/``draw``)."""
        counts = {"win": 0, "loss": 0, "draw": 0}
        with self.engine.connect() as conn:
            for seat, won in ((games.c.white_user, "1-0"), (games.c.black_user, "0-1")):
                q = (
                    select(games.c.result, func.count())
                    .where(seat == user_id, games.c.result.is_not(None))
                    .group_by(games.c.result)
                )
                for result, n in conn.execute(q):
                    kind = "draw" if result == "1/2-1/2" else "win" if result == won else "loss"
                    counts[kind] += int(n)
        return counts

    def active_engine_games(self) -> list[str]:
        """Ids of unfinished games with a computer player (to resume after a restart)."""
        with self.engine.connect() as conn:
            q = select(games.c.id).where(
                games.c.status == GameStatus.ACTIVE,
                (games.c.white == PlayerKind.ENGINE) | (games.c.black == PlayerKind.ENGINE),
            )
            return [r[0] for r in conn.execute(q)]

    def idle_engine_games(
        self, before: dt.datetime
    ) -> list[tuple[str, str, str, int, PlayerKind, PlayerKind]]:
        """Unfinished games with a computer player unchanged since ``before``, as (id, variant,
        start FEN, ply, white, black): where the computer may wait for a move nobody queued."""
        with self.engine.connect() as conn:
            q = select(
                games.c.id, games.c.variant, games.c.start_fen, games.c.ply, games.c.white, games.c.black
            ).where(
                games.c.status == GameStatus.ACTIVE,
                (games.c.white == PlayerKind.ENGINE) | (games.c.black == PlayerKind.ENGINE),
                games.c.updated < before,
            )
            rows = conn.execute(q)
            return [(r[0], r[1], r[2], int(r[3]), PlayerKind(r[4]), PlayerKind(r[5])) for r in rows]

    def count_games(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(games)).scalar_one())

    def live_games(
        self, since: dt.datetime, limit: int, lasting_since: dt.datetime | None = None
    ) -> list[GameRow]:
        """Active games between two people whose seats are both taken (both sides have moved,
        or the lobby seated them), the last change since ``since`` (a correspondence game: since
        ``lasting_since``), the most recently changed first: the lobby's games to watch."""
        lasting = games.c.time_control.like("%d")
        with self.engine.connect() as conn:
            q = (
                select(*_LISTED)
                .where(
                    games.c.status == GameStatus.ACTIVE,
                    games.c.white == PlayerKind.HUMAN,
                    games.c.black == PlayerKind.HUMAN,
                    # both seats taken: both sides have moved, or the lobby seated both players
                    or_(
                        games.c.ply >= BOTH_MOVED,
                        games.c.id.in_(select(challenges.c.game_id).where(challenges.c.game_id.is_not(None))),
                    ),
                    or_(
                        and_(~lasting, games.c.updated >= since),
                        and_(lasting, games.c.updated >= (lasting_since or since)),
                    ),
                )
                .order_by(games.c.updated.desc())
                .limit(limit)
            )
            return [_row_to_game(r, []) for r in conn.execute(q)]

    def abort_dead_games(
        self,
        *,
        at: dt.datetime,
        invitation_ttl: dt.timedelta,
        idle_ttl: dt.timedelta,
        limit: int = 500,
    ) -> list[str]:
        """Call off the dead games between people (no result, status aborted), as of ``at``:
        those nobody moved in since ``invitation_ttl`` after they were made (an invitation
        nobody joined), and those without a real-time clock with no move for ``idle_ttl``
        (real-time games end by their clocks).  Returns the ids called off."""
        people = and_(
            games.c.status == GameStatus.ACTIVE,
            games.c.white == PlayerKind.HUMAN,
            games.c.black == PlayerKind.HUMAN,
        )
        untimed = or_(
            games.c.time_control.is_(None), games.c.time_control == "-", games.c.time_control.like("%d")
        )
        unjoined = and_(games.c.ply == 0, games.c.created < at - invitation_ttl)
        idle = and_(untimed, games.c.updated < at - idle_ttl)
        with self.engine.begin() as conn:
            found = [
                (r.id, r.ply)
                for r in conn.execute(
                    select(games.c.id, games.c.ply).where(people, or_(unjoined, idle)).limit(limit)
                )
            ]
            done = []
            for game_id, ply in found:
                reason = (
                    N_("Aborted: the invitation expired, nobody joined")
                    if ply == 0
                    else N_("Aborted: no move for a long time")
                )
                changed = conn.execute(
                    update(games)
                    .where(games.c.id == game_id, games.c.ply == ply, games.c.status == GameStatus.ACTIVE)
                    .values(
                        status=GameStatus.ABORTED,
                        result="*",
                        termination="aborted",
                        reason=reason,
                        takeback_offer=None,
                        updated=at,
                    )
                ).rowcount
                if changed == 1:
                    done.append(game_id)
            return done

    # --- challenges ----------------------------------------------------------------------

    def add_challenge(self, row: ChallengeRow, *, per_key: int, per_address: int) -> None:
        """Store an open challenge unless its poster already has ``per_key`` open ones (or their
        address ``per_address``): :class:`ChallengeLimitError` then, nothing stored.

        Counted and inserted in one transaction (SQLite's writes are serialised; on another
        database two racing posts may both pass, which at worst lets one extra through).
        """
        with self.engine.begin() as conn:
            open_ = challenges.c.status == ChallengeStatus.OPEN
            mine = conn.execute(
                select(func.count())
                .select_from(challenges)
                .where(open_, challenges.c.poster_key == row.poster_key)
            ).scalar_one()
            if mine >= per_key:
                raise ChallengeLimitError(
                    N_("you already have {count} open challenges (at most {limit}): cancel one first"),
                    count=mine,
                    limit=per_key,
                )
            if row.poster_address is not None:
                here = conn.execute(
                    select(func.count())
                    .select_from(challenges)
                    .where(open_, challenges.c.poster_address == row.poster_address)
                ).scalar_one()
                if here >= per_address:
                    raise ChallengeLimitError(
                        N_(
                            "{count} challenges are already open from your address (at most {limit}):"
                            " cancel one first"
                        ),
                        count=here,
                        limit=per_address,
                    )
            conn.execute(insert(challenges).values(**row.__dict__))

    def load_challenge(self, challenge_id: str) -> ChallengeRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(challenges).where(challenges.c.id == challenge_id)).first()
        return None if row is None else ChallengeRow(**row._mapping)

    def open_challenges(self, limit: int) -> list[ChallengeRow]:
        """The ``limit`` newest open challenges, newest first."""
        with self.engine.connect() as conn:
            q = (
                select(challenges)
                .where(challenges.c.status == ChallengeStatus.OPEN, challenges.c.dest_user.is_(None))
                .order_by(challenges.c.created.desc(), challenges.c.id.desc())
                .limit(limit)
            )
            return [ChallengeRow(**r._mapping) for r in conn.execute(q)]

    def take_challenge(self, challenge_id: str, poster_color: Color) -> bool:
        """Mark an open challenge accepted: True for exactly one caller (the update is guarded
        by the open status, so of two acceptors racing, even in two processes, one wins)."""
        with self.engine.begin() as conn:
            res = conn.execute(
                update(challenges)
                .where(challenges.c.id == challenge_id, challenges.c.status == ChallengeStatus.OPEN)
                .values(status=ChallengeStatus.ACCEPTED, poster_color=poster_color, poster_address=None)
            )
            return res.rowcount == 1

    def set_challenge_game(self, challenge_id: str, game_id: str) -> None:
        """Record the game an accepted challenge became."""
        with self.engine.begin() as conn:
            conn.execute(update(challenges).where(challenges.c.id == challenge_id).values(game_id=game_id))

    def reopen_challenge(self, challenge_id: str) -> None:
        """Undo :meth:`take_challenge` (the game could not be created)."""
        with self.engine.begin() as conn:
            conn.execute(
                update(challenges)
                .where(
                    challenges.c.id == challenge_id,
                    challenges.c.status == ChallengeStatus.ACCEPTED,
                    challenges.c.game_id.is_(None),
                )
                .values(status=ChallengeStatus.OPEN, poster_color=None)
            )

    def remove_challenges(self, ids: list[str], poster_key: str | None = None) -> list[str]:
        """Delete the open challenges among ``ids`` (those of ``poster_key`` only, if given);
        returns the ids deleted."""
        if not ids:
            return []
        with self.engine.begin() as conn:
            where = [challenges.c.id.in_(ids), challenges.c.status == ChallengeStatus.OPEN]
            if poster_key is not None:
                where.append(challenges.c.poster_key == poster_key)
            found = [r[0] for r in conn.execute(select(challenges.c.id).where(*where))]
            if found:
                conn.execute(delete(challenges).where(challenges.c.id.in_(found), *where[1:]))
            return found

    def open_realtime_challenges(self) -> list[ChallengeRow]:
        """Open challenges with a real-time clock or none (all but correspondence ones)."""
        with self.engine.connect() as conn:
            q = select(challenges).where(
                challenges.c.status == ChallengeStatus.OPEN,
                challenges.c.time_control.not_like("%d"),
                challenges.c.dest_user.is_(None),  # a direct challenge has no lobby socket to outlive
            )
            return [ChallengeRow(**r._mapping) for r in conn.execute(q)]

    # --- chat ----------------------------------------------------------------------------

    def add_chat(self, game_id: str, ply: int, color: Color, name: str | None, text: str) -> ChatRow:
        """Store a chat line of a game; returns it with its id and time."""
        stamp = now()
        with self.engine.begin() as conn:
            res = conn.execute(
                insert(chat).values(
                    game_id=game_id,
                    ply=ply,
                    color=color,
                    name=name,
                    text=text,
                    created=stamp,
                )
            )
            line_id = res.inserted_primary_key[0] if res.inserted_primary_key else 0
        return ChatRow(int(line_id), game_id, ply, color, name, text, stamp)

    def chat_lines(self, game_id: str, limit: int) -> list[ChatRow]:
        """The last ``limit`` chat lines of a game, in the order they were written."""
        with self.engine.connect() as conn:
            params = {"of_game": game_id, "at_most": limit}
            rows = [ChatRow(**r._mapping) for r in conn.execute(_CHAT_LINES, params)]
        rows.reverse()
        return rows
