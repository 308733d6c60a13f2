"""A move on PostgreSQL is stored by one statement outside a transaction block (the guarded
update of its game and the insert of its row, ``_STORE_MOVE`` in web/storage.py): the same
guarantees as the two-statement transaction SQLite keeps, on a real PostgreSQL server."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from exochess.web.clock import Stamp
from exochess.web.domain import GameStatus, PlayerKind
from exochess.web.storage import ConflictError, Storage


@pytest.fixture()
def storage(services: Any) -> Iterator[Storage]:
    store = Storage(services.postgres.url)
    yield store
    store.close()


def _new_game(storage: Storage, gid: str) -> None:
    storage.create_game(id=gid, variant="fugue", start_fen="start", white=PlayerKind.HUMAN,
                        black=PlayerKind.HUMAN, level=None, white_secret="w" * 20, black_secret="b" * 20)


def _game_id(name: str) -> str:
    return f"{name}{threading.get_ident() % 100_000:05d}{dt.datetime.now().microsecond:06d}"[:32]


def test_moves_are_stored_in_order_with_their_clocks(storage: Storage) -> None:
    gid = _game_id("pgorder")
    _new_game(storage, gid)
    at = dt.datetime(2026, 11, 26, 12, 0, 0)
    storage.add_move(gid, 0, "d2-d3", None, Stamp(59_000, 60_000, at))
    storage.add_move(gid, 1, "e7-e6", None, Stamp(59_000, 58_500, at + dt.timedelta(seconds=2)))
    storage.add_move(gid, 2, "c2-c3", None, None)
    row = storage.load_game(gid)
    assert row is not None
    assert row.moves == ["d2-d3", "e7-e6", "c2-c3"] and row.ply == 3 and row.status == GameStatus.ACTIVE
    assert (row.stamps[0].white_ms, row.stamps[0].black_ms, row.stamps[0].at) == (59_000, 60_000, at)
    assert row.stamps[1].black_ms == 58_500
    assert row.stamps[2].white_ms is None and row.stamps[2].black_ms is None


def test_a_move_at_a_stale_ply_or_on_an_ended_game_is_refused_and_changes_nothing(storage: Storage) -> None:
    gid = _game_id("pgstale")
    _new_game(storage, gid)
    storage.add_move(gid, 0, "d2-d3", None, None)
    with pytest.raises(ConflictError, match="no longer at ply 0"):
        storage.add_move(gid, 0, "d2-d4", None, None)  # another writer stored ply 0 first
    with pytest.raises(ConflictError, match="no longer at ply 5"):
        storage.add_move(gid, 5, "e7-e6", None, None)  # ahead of the stored game
    storage.finish(gid, 1, {"result": "1-0", "termination": "resignation", "reason": "Black resigned"})
    with pytest.raises(ConflictError):
        storage.add_move(gid, 1, "e7-e6", None, None)
    row = storage.load_game(gid)
    assert row is not None and row.moves == ["d2-d3"] and row.ply == 1 and row.status == GameStatus.FINISHED


def test_racing_writers_of_the_same_ply_store_exactly_one_move(storage: Storage, services: Any) -> None:
    """Eight threads (two storages, as two server processes) store ply 0 of the same game at
    once: one wins, the others are told of the conflict, the game holds one move."""
    other = Storage(services.postgres.url)
    gid = _game_id("pgrace")
    _new_game(storage, gid)
    start = threading.Barrier(8)
    won: list[str] = []
    lost: list[str] = []

    def write(i: int) -> None:
        store = storage if i % 2 else other
        start.wait(10)
        try:
            store.add_move(gid, 0, f"move{i}", None, None)
            won.append(f"move{i}")
        except ConflictError:
            lost.append(f"move{i}")

    try:
        threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    finally:
        other.close()
    assert len(won) == 1 and len(lost) == 7
    row = storage.load_game(gid)
    assert row is not None and row.moves == won and row.ply == 1


def test_the_pool_keeps_a_connection_for_each_database_thread(services: Any, monkeypatch: Any) -> None:
    """With fewer kept connections than threads, the threads' surplus connections were closed
    after each job and opened again for the next (hundreds a minute under load)."""
    from exochess.web.dbthreads import DB_THREADS, thread_count

    assert thread_count(sqlite=True) == 1 and thread_count(sqlite=False) == DB_THREADS
    monkeypatch.setenv("EXOCHESS_DB_THREADS", "nonsense")
    assert thread_count(sqlite=False) == DB_THREADS
    monkeypatch.setenv("EXOCHESS_DB_THREADS", "3")
    assert thread_count(sqlite=True) == 1
    store = Storage(services.postgres.url)
    try:
        assert store.engine.pool.size() == 3  # type: ignore[attr-defined]
    finally:
        store.close()
