"""Durable storage of games and moves with SQLAlchemy 2 (SQLite by default, PostgreSQL too).

Every write is one transaction.  A move row is inserted together with an
optimistic update of the game's ply counter (``UPDATE games SET ply = n + 1
WHERE id = ? AND ply = n``) and the table ``moves`` has a unique
``(game_id, ply)`` key, so two writers racing for the same ply cannot both win,
even across processes.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    Column,
    DateTime,
    Engine,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

metadata = MetaData()

games = Table(
    "games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("variant", String(32), nullable=False),
    Column("start_fen", Text, nullable=False),
    Column("white", String(16), nullable=False),  # "human" or "engine"
    Column("black", String(16), nullable=False),
    Column("level", Integer, nullable=True),
    Column("white_secret", String(64), nullable=False),
    Column("black_secret", String(64), nullable=False),
    Column("ply", Integer, nullable=False, default=0),
    Column("status", String(16), nullable=False, default="active"),  # active / finished
    Column("result", String(8), nullable=True),
    Column("termination", String(32), nullable=True),
    Column("reason", Text, nullable=True),
    Column("takeback_offer", String(8), nullable=True),
    Column("rematch_id", String(32), nullable=True),
    Column("created", DateTime, nullable=False),
    Column("updated", DateTime, nullable=False),
)

moves = Table(
    "moves",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", String(32), ForeignKey("games.id"), nullable=False),
    Column("ply", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("created", DateTime, nullable=False),
    UniqueConstraint("game_id", "ply", name="uq_moves_game_ply"),
)


def now() -> dt.datetime:
    """The current UTC time without tzinfo (portable across databases)."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


@dataclass
class GameRow:
    """A stored game with its moves in order."""

    id: str
    variant: str
    start_fen: str
    white: str
    black: str
    level: int | None
    white_secret: str
    black_secret: str
    ply: int
    status: str
    result: str | None
    termination: str | None
    reason: str | None
    takeback_offer: str | None
    rematch_id: str | None
    created: dt.datetime
    updated: dt.datetime
    moves: list[str] = field(default_factory=list)


class ConflictError(Exception):
    """The game changed under us (another move was stored first)."""


def _row_to_game(row: Any, move_texts: list[str]) -> GameRow:
    m = row._mapping
    return GameRow(
        id=m["id"], variant=m["variant"], start_fen=m["start_fen"], white=m["white"],
        black=m["black"], level=m["level"], white_secret=m["white_secret"],
        black_secret=m["black_secret"], ply=m["ply"], status=m["status"], result=m["result"],
        termination=m["termination"], reason=m["reason"], takeback_offer=m["takeback_offer"],
        rematch_id=m["rematch_id"], created=m["created"], updated=m["updated"], moves=move_texts,
    )


class Storage:
    """Synchronous storage; the web service calls it from one worker thread."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        kwargs: dict[str, Any] = {}
        if self.is_sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        self.engine: Engine = create_engine(url, **kwargs)
        if self.is_sqlite:
            @event.listens_for(self.engine, "connect")
            def _pragmas(dbapi_conn: Any, _record: Any) -> None:
                cur = dbapi_conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=NORMAL")
                cur.execute("PRAGMA foreign_keys=ON")
                cur.execute("PRAGMA busy_timeout=30000")
                cur.close()
        metadata.create_all(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    # --- games -------------------------------------------------------------------

    def create_game(self, **values: Any) -> None:
        stamp = now()
        values.setdefault("ply", 0)
        values.setdefault("status", "active")
        with self.engine.begin() as conn:
            conn.execute(insert(games).values(created=stamp, updated=stamp, **values))

    def load_game(self, game_id: str) -> GameRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(games).where(games.c.id == game_id)).first()
            if row is None:
                return None
            texts = [
                r[0]
                for r in conn.execute(
                    select(moves.c.text).where(moves.c.game_id == game_id).order_by(moves.c.ply)
                )
            ]
        return _row_to_game(row, texts)

    def add_move(self, game_id: str, ply: int, text: str, finish: dict[str, Any] | None) -> None:
        """Store move number ``ply`` (0-based) of a game whose stored ply must be ``ply``.

        ``finish`` holds the result columns when the move ends the game.
        Raises :class:`ConflictError` if another move was stored first.
        """
        stamp = now()
        values: dict[str, Any] = {"ply": ply + 1, "updated": stamp, "takeback_offer": None}
        if finish:
            values.update(finish)
            values["status"] = "finished"
        try:
            with self.engine.begin() as conn:
                res = conn.execute(
                    update(games)
                    .where(games.c.id == game_id, games.c.ply == ply, games.c.status == "active")
                    .values(**values)
                )
                if res.rowcount != 1:
                    raise ConflictError(f"game {game_id} is no longer at ply {ply}")
                conn.execute(insert(moves).values(game_id=game_id, ply=ply, text=text, created=stamp))
        except IntegrityError as exc:
            raise ConflictError(f"move {ply} of game {game_id} is already stored") from exc

    def finish(self, game_id: str, ply: int, values: dict[str, Any]) -> None:
        """Mark an active game at ``ply`` finished (resignation)."""
        with self.engine.begin() as conn:
            res = conn.execute(
                update(games)
                .where(games.c.id == game_id, games.c.ply == ply, games.c.status == "active")
                .values(status="finished", updated=now(), takeback_offer=None, **values)
            )
            if res.rowcount != 1:
                raise ConflictError(f"game {game_id} changed")

    def set_takeback_offer(self, game_id: str, ply: int, color: str | None) -> None:
        with self.engine.begin() as conn:
            res = conn.execute(
                update(games)
                .where(games.c.id == game_id, games.c.ply == ply, games.c.status == "active")
                .values(takeback_offer=color, updated=now())
            )
            if res.rowcount != 1:
                raise ConflictError(f"game {game_id} changed")

    def take_back(self, game_id: str, ply: int, new_ply: int) -> None:
        """Delete the moves from ``new_ply`` on, in one transaction with the ply check."""
        with self.engine.begin() as conn:
            res = conn.execute(
                update(games)
                .where(games.c.id == game_id, games.c.ply == ply, games.c.status == "active")
                .values(ply=new_ply, takeback_offer=None, updated=now())
            )
            if res.rowcount != 1:
                raise ConflictError(f"game {game_id} changed")
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
        with self.engine.connect() as conn:
            q = select(games).order_by(games.c.updated.desc()).limit(limit)
            if ids is not None:
                q = q.where(games.c.id.in_(ids))
            rows = list(conn.execute(q))
        return [_row_to_game(r, []) for r in rows]

    def active_engine_games(self) -> list[str]:
        """Ids of unfinished games with a computer player (to resume after a restart)."""
        with self.engine.connect() as conn:
            q = select(games.c.id).where(
                games.c.status == "active", (games.c.white == "engine") | (games.c.black == "engine")
            )
            return [r[0] for r in conn.execute(q)]

    def count_games(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(games)).scalar_one())
