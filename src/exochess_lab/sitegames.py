"""The site's finished games, read from its database for the puzzle generator.

``exochess puzzles generate <game> --database URL`` mines the games that players finished on the
site: the ``games`` and ``moves`` tables of :mod:`exochess.web.storage.store`, read with
SQLAlchemy (any URL the site accepts: SQLite, PostgreSQL).  Games come in the order they
finished (then by id), so a later run finds the games finished since at the end and a resumed
run skips the ones already mined.  Needs the ``web`` extra (SQLAlchemy).
"""

from __future__ import annotations

from dataclasses import dataclass

from exochess.errors import ExochessError


class SiteGamesError(ExochessError):
    """The database cannot be read (a bad URL, no such tables)."""


@dataclass(frozen=True)
class SiteGame:
    """A finished game of the site: its id, starting position and moves."""

    id: str
    fen: str
    moves: tuple[str, ...]


def masked(url: str) -> str:
    """``url`` with its password hidden, for files and messages."""
    if not url:
        return url
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # an unparsable URL: show only its scheme
        return url.split(":", 1)[0] + ":***"


def finished_games(url: str, game: str) -> list[SiteGame]:
    """The finished games of ``game`` (registry name) in the database at ``url``.

    Raises :class:`SiteGamesError` naming the problem (the URL's password hidden)."""
    from sqlalchemy import create_engine, select
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from exochess.web.domain import GameStatus
    from exochess.web.storage.store import games, moves

    try:
        engine = create_engine(url)
    except (ArgumentError, SQLAlchemyError, ValueError, ImportError) as exc:
        raise SiteGamesError(f"cannot open the database {masked(url)}: {exc}") from exc
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                select(games.c.id, games.c.start_fen)
                .where(games.c.variant == game, games.c.status == GameStatus.FINISHED)
                .order_by(games.c.updated, games.c.id)
            ).all()
            texts: dict[str, list[str]] = {row.id: [] for row in rows}
            if texts:
                for move in conn.execute(
                    select(moves.c.game_id, moves.c.text)
                    .join(games, games.c.id == moves.c.game_id)
                    .where(games.c.variant == game, games.c.status == GameStatus.FINISHED)
                    .order_by(moves.c.game_id, moves.c.ply)
                ):
                    texts[move.game_id].append(move.text)
    except SQLAlchemyError as exc:
        raise SiteGamesError(f"cannot read the games of {masked(url)}: {type(exc).__name__}") from exc
    finally:
        engine.dispose()
    return [SiteGame(row.id, row.start_fen, tuple(texts[row.id])) for row in rows]
