"""A move on PostgreSQL is stored by one statement outside a transaction block (the guarded
update of its game and the insert of its row, ``_STORE_MOVE`` in web/storage/store.py): the same
guarantees as the two-statement transaction SQLite keeps, on a real PostgreSQL server."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from exochess.web.domain import GameStatus, PlayerKind, Stamp
from exochess.web.storage.store import ConflictError, Storage


@pytest.fixture()
def storage(services: Any) -> Iterator[Storage]:
    store = Storage(services.postgres.url)
    yield store
    store.close()


def _new_game(storage: Storage, gid: str) -> None:
    storage.create_game(
        id=gid,
        variant="fugue",
        start_fen="start",
        white=PlayerKind.HUMAN,
        black=PlayerKind.HUMAN,
        level=None,
        white_secret="w" * 20,
        black_secret="b" * 20,
    )


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
    from exochess.web.settings import SettingsError, load_settings
    from exochess.web.storage.threads import DB_THREADS, thread_count

    assert thread_count(sqlite=True) == 1 and thread_count(sqlite=False) == DB_THREADS
    monkeypatch.setenv("EXOCHESS_DB_THREADS", "nonsense")
    with pytest.raises(SettingsError, match="EXOCHESS_DB_THREADS"):
        load_settings()
    monkeypatch.setenv("EXOCHESS_DB_THREADS", "3")
    threads = load_settings().db_threads
    assert thread_count(sqlite=True, configured=threads) == 1
    assert thread_count(sqlite=False, configured=threads) == 3
    store = Storage(services.postgres.url, db_threads=threads)
    try:
        assert store.engine.pool.size() == 3  # type: ignore[attr-defined]
    finally:
        store.close()


def test_moves_ready_at_once_are_stored_by_one_statement_each_with_its_own_answer(storage: Storage) -> None:
    """While one move's statement waits (its game's row locked by another transaction), moves of
    four other games arrive: the next statement stores them together, with their clocks; a
    stale one among them is refused alone; a second move of one of those games waits for the
    statement after, and is stored after its first."""
    from sqlalchemy import text

    first, *others = gids = [_game_id(f"pggroup{i}") for i in range(5)]
    for gid in gids:
        _new_game(storage, gid)
    sizes: list[int] = []
    storage.move_groups.observer = sizes.append
    storage.move_groups.patience = 60  # none goes alone, however slowly the threads start
    at = dt.datetime(2026, 11, 27, 16, 0, 0)
    moves = [
        (others[0], 0, "d2-d3", Stamp(59_000, 60_000, at)),
        (others[1], 0, "c2-c3", None),
        (others[0], 1, "e7-e6", Stamp(59_000, 58_000, at)),
        (others[2], 3, "a2-a3", None),
        (others[3], 0, "b2-b3", Stamp(1, 2, at)),
    ]
    answers: dict[int, object] = {}

    def store(k: int, gid: str, ply: int, text_: str, stamp: Stamp | None) -> None:
        try:
            storage.add_move(gid, ply, text_, None, stamp)
            answers[k] = True
        except ConflictError as exc:
            answers[k] = exc

    blocker = storage.engine.connect()
    try:
        with blocker.begin():
            blocker.execute(text("SELECT id FROM games WHERE id = :g FOR UPDATE"), {"g": first})
            threads = [threading.Thread(target=store, args=(-1, first, 0, "h2-h3", None))]
            threads[0].start()
            deadline = dt.datetime.now() + dt.timedelta(seconds=10)
            for k, move in enumerate(moves):
                threads.append(threading.Thread(target=store, args=(k, *move)))
                threads[-1].start()
                while storage.move_groups.waiting() != k + 1:
                    assert dt.datetime.now() < deadline, "the moves did not queue behind the first"
        for thread in threads:
            thread.join(30)
    finally:
        blocker.close()
        storage.move_groups.observer = None
    assert sizes == [1, 4, 1]
    assert answers[-1] is True and answers[0] is True and answers[1] is True and answers[2] is True
    assert answers[4] is True and isinstance(answers[3], ConflictError)
    rows = {gid: storage.load_game(gid) for gid in gids}
    loaded = {gid: row for gid, row in rows.items() if row is not None}
    assert len(loaded) == 5
    assert loaded[first].moves == ["h2-h3"]
    assert loaded[others[0]].moves == ["d2-d3", "e7-e6"] and loaded[others[0]].ply == 2
    clocks = [(s.white_ms, s.black_ms) for s in loaded[others[0]].stamps]
    assert clocks == [(59_000, 60_000), (59_000, 58_000)]
    assert loaded[others[1]].moves == ["c2-c3"] and loaded[others[1]].stamps[0].white_ms is None
    assert loaded[others[2]].moves == [] and loaded[others[2]].ply == 0
    assert loaded[others[3]].stamps[0].at == at


def test_a_move_queued_behind_a_statement_that_waits_for_a_lock_goes_alone(storage: Storage) -> None:
    """A statement held by another transaction's lock on its game's row does not hold the
    moves of other games queued behind it for longer than the group's patience."""
    from sqlalchemy import text

    held, free = _game_id("pgheld"), _game_id("pgfree")
    for gid in (held, free):
        _new_game(storage, gid)
    storage.move_groups.patience = 0.2
    done: list[str] = []
    blocker = storage.engine.connect()
    try:
        with blocker.begin():
            blocker.execute(text("SELECT id FROM games WHERE id = :g FOR UPDATE"), {"g": held})

            def store_held() -> None:
                storage.add_move(held, 0, "a2-a3", None, None)
                done.append(held)

            waiting = threading.Thread(target=store_held)
            waiting.start()
            deadline = dt.datetime.now() + dt.timedelta(seconds=10)
            while not storage.move_groups.storing():
                assert dt.datetime.now() < deadline
            storage.add_move(free, 0, "b2-b3", None, None)  # returns while the lock is held
            done.append(free)
        waiting.join(30)
    finally:
        blocker.close()
    assert done == [free, held]
    rows = [storage.load_game(gid) for gid in (held, free)]
    assert [row.moves for row in rows if row is not None] == [["a2-a3"], ["b2-b3"]]
