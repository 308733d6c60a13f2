"""The schema's Alembic migrations: a database file written by exochess 0.2.0 upgrades and
keeps every game; an older one gains its columns and hashed secrets; a new one matches the
code's tables; ``exochess db`` upgrades and reports."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from exochess.web.domain import PlayerKind
from exochess.web.storage.migrate import head, upgrade, upgrade_database
from exochess.web.storage.store import SECRET_PREFIX, Storage, metadata
from exochess.web.storage.tournaments import load_tournament
from tests.helpers import as_before_alembic

V0_2_0 = Path(__file__).parent / "data" / "v0_2_0.sqlite"
"""Written by exochess 0.2.0 (recipe: data/make_v0_2_0_db.py)."""


def _rows(path: Path, query: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return sorted(conn.execute(query).fetchall(), key=repr)


def test_a_database_of_release_0_2_0_upgrades_and_keeps_every_game(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite"
    shutil.copy(V0_2_0, db)
    assert "alembic_version" not in {r[0] for r in _rows(db, "SELECT name FROM sqlite_master")}
    games = _rows(db, "SELECT id, variant, ply, status, result, white_user, black_user, rated FROM games")
    moves = _rows(db, "SELECT game_id, ply, text, white_ms, black_ms FROM moves")
    kept = {
        table: _rows(db, f"SELECT * FROM {table}")
        for table in ("users", "ratings", "rating_history", "chat", "challenges", "sessions")
    }
    assert len(games) >= 5 and len(moves) >= 15 and len(kept["users"]) == 2 and kept["rating_history"]

    assert upgrade_database(f"sqlite:///{db}") == head()

    assert _rows(db, "SELECT version_num FROM alembic_version") == [(head(),)]
    assert (
        _rows(db, "SELECT id, variant, ply, status, result, white_user, black_user, rated FROM games")
        == games
    )
    assert _rows(db, "SELECT game_id, ply, text, white_ms, black_ms FROM moves") == moves
    for table, rows in kept.items():
        # columns added by later revisions come after 0.2.0's, each row keeping its values
        assert [row[: len(rows[0])] for row in _rows(db, f"SELECT * FROM {table}")] == rows, table
    storage = Storage(f"sqlite:///{db}")
    try:
        assert storage.upgraded_to is None  # the second opening finds it at the newest revision
        for game_id, _variant, ply, *_ in games:
            row = storage.load_game(str(game_id))
            assert row is not None and len(row.moves) == ply
            assert row.moves == [m[2] for m in sorted(moves, key=lambda m: int(str(m[1]))) if m[0] == game_id]
    finally:
        storage.close()


def test_an_older_database_gains_its_columns_and_hashed_secrets(tmp_path: Path) -> None:
    """What a release before 0.2 left: no Alembic, columns missing, seat secrets in plain."""
    url = f"sqlite:///{tmp_path / 'older.sqlite'}"
    first = Storage(url)
    first.create_game(
        id="g1",
        variant="fugue",
        start_fen="x",
        white=PlayerKind.HUMAN,
        black=PlayerKind.HUMAN,
        level=None,
        white_secret="a",
        black_secret="b",
    )
    first.add_move("g1", 0, "e2-e3", None)
    first.close()
    engine = create_engine(url)
    with engine.begin() as conn:
        as_before_alembic(lambda sql: conn.execute(text(sql)))
        conn.execute(text("DROP INDEX ix_chat_game_id"))
        for column in ("white_ms", "black_ms", "at"):
            conn.execute(text(f"ALTER TABLE moves DROP COLUMN {column}"))
        conn.execute(text("ALTER TABLE games DROP COLUMN rematch_id"))
        conn.execute(text("UPDATE games SET white_secret = 'plain-white', black_secret = 'plain-black'"))
    engine.dispose()

    reopened = Storage(url)
    try:
        assert reopened.upgraded_to == head()
        found = inspect(reopened.engine)
        assert {"white_ms", "black_ms", "at"} <= {c["name"] for c in found.get_columns("moves")}
        assert "rematch_id" in {c["name"] for c in found.get_columns("games")}
        assert "ix_chat_game_id" in {i["name"] for i in found.get_indexes("chat")}
        row = reopened.load_game("g1")
        assert row is not None and row.moves == ["e2-e3"]
        assert row.white_secret.startswith(SECRET_PREFIX) and row.black_secret.startswith(SECRET_PREFIX)
        (stamp,) = row.stamps  # a move stored before there were clocks arrived when its row was written
        assert stamp.white_ms is None and stamp.at is not None
    finally:
        reopened.close()


def test_a_new_database_is_exactly_the_codes_schema(tmp_path: Path) -> None:
    storage = Storage(f"sqlite:///{tmp_path / 'new.sqlite'}")
    try:
        assert storage.upgraded_to == head()
        with storage.engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    finally:
        storage.close()


def test_tournaments_of_revision_0012_upgrade_closed_to_bots(tmp_path: Path) -> None:
    """Revision 0013 adds ``tournaments.bots_allowed``: an event made before it stays people's
    only, and keeps everything else."""
    url = f"sqlite:///{tmp_path / 'at0012.sqlite'}"
    engine = create_engine(url)
    try:
        assert upgrade(engine, "0012") == "0012"
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO tournaments (id, kind, variant, name, time_control, rated, starts_at,"
                    " duration_s, round, status, private, created) VALUES ('t1', 'arena', 'fugue',"
                    " 'Old arena', '3+2', 1, '2026-11-01 10:00:00', 3600, 0, 'created', 0,"
                    " '2026-11-01 09:00:00')"
                )
            )
    finally:
        engine.dispose()
    storage = Storage(url)
    try:
        assert storage.upgraded_to == head() and head() >= "0013"
        row = load_tournament(storage.engine, "t1")
        assert row is not None and row.bots_allowed is False and row.name == "Old arena"
        assert row.duration_s == 3600
    finally:
        storage.close()


def test_exochess_db_upgrades_and_reports(tmp_path: Path) -> None:
    db = tmp_path / "cli.sqlite"
    shutil.copy(V0_2_0, db)

    def exochess(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "exochess.cli.main", "db", *args, "--database-url", f"sqlite:///{db}"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    assert exochess("current").stdout.startswith("none")
    res = exochess("upgrade")
    assert res.returncode == 0 and res.stdout.strip() == f"upgraded to {head()}", res.stderr
    assert exochess("upgrade").stdout.strip() == f"already at {head()}"
    assert exochess("current").stdout.startswith(head())
    broken = subprocess.run(
        [sys.executable, "-m", "exochess.cli.main", "db", "upgrade", "--database-url", "nonsense://"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert broken.returncode != 0 and "Traceback" not in broken.stderr and "nonsense" in broken.stderr
