"""An older database file gains the columns a newer version declares, keeping its rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, create_engine, inspect, text

from exochess.web.domain import PlayerKind
from exochess.web.storage.store import Storage


def test_missing_nullable_column_is_added_and_rows_kept(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    first = Storage(url)
    first.create_game(
        id="g1", variant="fugue", start_fen="x", white=PlayerKind.HUMAN,
        black=PlayerKind.HUMAN, level=None, white_secret="a", black_secret="b",
    )
    first.close()
    # what an older version left behind: the games table without its newest column
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE games DROP COLUMN rematch_id"))
    engine.dispose()

    reopened = Storage(url)
    columns = {c["name"] for c in inspect(reopened.engine).get_columns("games")}
    assert "rematch_id" in columns
    row = reopened.load_game("g1")
    assert row is not None and row.variant == "fugue"
    assert reopened.add_missing_columns() == []  # a second start adds nothing
    reopened.close()


def test_a_required_column_without_default_is_refused(tmp_path: Path) -> None:
    opened = Storage(f"sqlite:///{tmp_path / 'db.sqlite'}")
    newer = MetaData()
    Table("games", newer, Column("id", String(32), primary_key=True),
          Column("needed", Integer, nullable=False))
    with pytest.raises(RuntimeError, match=r"games\.needed"):
        opened.add_missing_columns(newer)
    with_default = MetaData()
    Table("games", with_default, Column("id", String(32), primary_key=True),
          Column("later", Integer, nullable=False, server_default="0"))
    assert opened.add_missing_columns(with_default) == ["games.later"]
    opened.close()


def test_moves_of_an_older_database_gain_clock_columns_and_keep_their_time(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    first = Storage(url)
    first.create_game(
        id="g1", variant="fugue", start_fen="x", white=PlayerKind.HUMAN,
        black=PlayerKind.HUMAN, level=None, white_secret="a", black_secret="b",
    )
    first.add_move("g1", 0, "e2-e3", None)
    first.close()
    engine = create_engine(url)
    with engine.begin() as conn:
        for column in ("white_ms", "black_ms", "at"):
            conn.execute(text(f"ALTER TABLE moves DROP COLUMN {column}"))
    engine.dispose()

    reopened = Storage(url)
    assert {"white_ms", "black_ms", "at"} <= {c["name"] for c in inspect(reopened.engine).get_columns("moves")}
    row = reopened.load_game("g1")
    assert row is not None and row.moves == ["e2-e3"]
    # a move stored before there were clocks arrived when its row was written
    (stamp,) = row.stamps
    assert stamp.white_ms is None and stamp.at is not None
    reopened.close()
