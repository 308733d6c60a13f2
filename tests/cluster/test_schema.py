"""Servers started together on a new PostgreSQL database all start: each makes the tables it
finds missing, one at a time (``Storage._schema_lock``).  Without the lock, PostgreSQL refused
all but the first ``CREATE TABLE`` with a unique violation in its catalogue and those servers
failed to start (found by ``exochess serve --workers 2`` on a loaded machine: the failed worker
then held uvicorn's supervisor for its health-check timeout)."""

from __future__ import annotations

import threading
import uuid

import psycopg
from sqlalchemy import inspect
from sqlalchemy.engine import make_url

from exochess.web.storage.migrate import head
from exochess.web.storage.store import Storage, metadata
from tests.cluster.harness import Services
from tests.helpers import as_before_alembic

STARTS = 6


def _new_database(services: Services) -> str:
    """A new, empty database on the session's PostgreSQL; its SQLAlchemy URL."""
    name = "fresh_" + uuid.uuid4().hex[:12]
    url = make_url(services.postgres.url)
    libpq = url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(libpq, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return url.set(database=name).render_as_string(hide_password=False)


def test_servers_starting_together_on_a_new_database_all_start(services: Services) -> None:
    url = _new_database(services)
    ready = threading.Barrier(STARTS)
    failures: list[BaseException] = []
    stores: list[Storage] = []

    def start() -> None:
        ready.wait()
        try:
            stores.append(Storage(url))
        except BaseException as exc:  # the test reports every start that failed, whatever the kind
            failures.append(exc)

    threads = [threading.Thread(target=start) for _ in range(STARTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    try:
        assert failures == [] and len(stores) == STARTS
        # the tables are there, once each, and usable by every server
        assert set(metadata.tables) <= set(inspect(stores[0].engine).get_table_names())
        # one of them upgraded the new database (under the lock); the others found it done
        assert [s.upgraded_to for s in stores].count(head()) == 1
        assert all(s.upgraded_to in (None, head()) for s in stores)
    finally:
        for store in stores:
            store.close()


def test_a_postgresql_database_of_release_0_2_0_upgrades_and_keeps_its_games(services: Services) -> None:
    """What 0.2.0 left on PostgreSQL: its tables, no ``alembic_version`` (there the columns
    added since 0.1 may be missing too, and seat secrets plain)."""
    from sqlalchemy import text

    from exochess.web.domain import PlayerKind
    from exochess.web.storage.store import SECRET_PREFIX

    url = _new_database(services)
    first = Storage(url)
    try:
        first.create_game(
            id="pg1",
            variant="fugue",
            start_fen="x",
            white=PlayerKind.HUMAN,
            black=PlayerKind.HUMAN,
            level=None,
            white_secret="a",
            black_secret="b",
        )
        first.add_move("pg1", 0, "d2-d3", None)
        first.add_move("pg1", 1, "e7-e6", None)
        with first.engine.begin() as conn:
            as_before_alembic(lambda sql: conn.execute(text(sql)))
            conn.execute(text("ALTER TABLE moves DROP COLUMN white_ms"))
            conn.execute(text("ALTER TABLE games DROP COLUMN ratings_done"))
            conn.execute(text("UPDATE games SET white_secret = 'plain-w', black_secret = 'plain-b'"))
    finally:
        first.close()
    again = Storage(url)
    try:
        assert again.upgraded_to == head()
        row = again.load_game("pg1")
        assert row is not None and row.moves == ["d2-d3", "e7-e6"]
        assert row.white_secret.startswith(SECRET_PREFIX)
        columns = {c["name"] for c in inspect(again.engine).get_columns("games")}
        assert "ratings_done" in columns
    finally:
        again.close()
