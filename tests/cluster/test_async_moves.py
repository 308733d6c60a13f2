"""A move stored from the event loop (web/asyncmoves.py, ``EXOCHESS_MOVE_CONNECTIONS``) keeps
the guarantees of the database threads' store, on a real PostgreSQL server: in order with its
clocks, refused at a stale ply, exactly once when writers race, a clear "unavailable" while the
database is down and stored again once it is back."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest

from exochess.web.clock import Stamp
from exochess.web.domain import GameStatus, PlayerKind, StorageUnavailable
from exochess.web.storage import ConflictError, Storage


@pytest.fixture()
def storage(services: Any) -> Iterator[Storage]:
    store = Storage(services.postgres.url)
    yield store
    store.close()


def _new_game(storage: Storage, name: str) -> str:
    gid = f"{name}{dt.datetime.now().strftime('%H%M%S%f')}"[:32]
    storage.create_game(id=gid, variant="fugue", start_fen="start", white=PlayerKind.HUMAN,
                        black=PlayerKind.HUMAN, level=None, white_secret="w" * 20, black_secret="b" * 20)
    return gid


def test_moves_are_stored_in_order_and_a_stale_ply_is_refused(storage: Storage) -> None:
    from exochess.web.asyncmoves import AsyncMoves

    gid = _new_game(storage, "aorder")
    at = dt.datetime(2026, 11, 26, 12, 0, 0)

    async def play() -> None:
        moves = AsyncMoves(storage.url, 2)
        try:
            await moves.add_move(gid, 0, "d2-d3", Stamp(59_000, 60_000, at))
            await moves.add_move(gid, 1, "e7-e6", None)
            with pytest.raises(ConflictError, match="no longer at ply 1"):
                await moves.add_move(gid, 1, "e7-e5", None)  # another writer stored ply 1 first
            with pytest.raises(ConflictError, match="no longer at ply 5"):
                await moves.add_move(gid, 5, "c2-c3", None)
        finally:
            await moves.close()

    asyncio.run(play())
    row = storage.load_game(gid)
    assert row is not None and row.moves == ["d2-d3", "e7-e6"] and row.ply == 2
    assert row.status == GameStatus.ACTIVE
    assert (row.stamps[0].white_ms, row.stamps[0].black_ms, row.stamps[0].at) == (59_000, 60_000, at)
    assert row.stamps[1].white_ms is None


def test_racing_writers_of_the_same_ply_store_exactly_one_move(storage: Storage) -> None:
    """Eight stores of ply 0 at once from two sets of connections (two server processes): one
    wins, the others are told of the conflict, the game holds one move."""
    from exochess.web.asyncmoves import AsyncMoves

    gid = _new_game(storage, "arace")

    async def race() -> list[BaseException | None]:
        sets = [AsyncMoves(storage.url, 4), AsyncMoves(storage.url, 4)]
        try:
            return await asyncio.gather(
                *(sets[i % 2].add_move(gid, 0, f"move{i}", None) for i in range(8)),
                return_exceptions=True,
            )
        finally:
            for moves in sets:
                await moves.close()

    outcomes = asyncio.run(race())
    assert sum(o is None for o in outcomes) == 1
    assert all(isinstance(o, ConflictError) for o in outcomes if o is not None)
    row = storage.load_game(gid)
    assert row is not None and row.ply == 1 and len(row.moves) == 1


def test_a_restarted_database_is_unavailable_meanwhile_then_stores_again(
    storage: Storage, services: Any
) -> None:
    from exochess.web.asyncmoves import AsyncMoves

    gid = _new_game(storage, "arestart")

    async def play() -> None:
        moves = AsyncMoves(storage.url, 1)
        try:
            await moves.add_move(gid, 0, "d2-d3", None)  # its connection is kept
            services.postgres.stop()
            try:
                with pytest.raises(StorageUnavailable):
                    await moves.add_move(gid, 1, "e7-e6", None)
            finally:
                services.postgres.start()
            # the kept connection died with the server: the move goes through a new one
            await moves.add_move(gid, 1, "e7-e6", None)
        finally:
            await moves.close()

    asyncio.run(play())
    storage.engine.dispose()  # the pool's connections died with the server too
    row = storage.load_game(gid)
    assert row is not None and row.moves == ["d2-d3", "e7-e6"]


def test_a_kept_connection_the_database_dropped_is_replaced(storage: Storage, services: Any) -> None:
    """A restart while no move is under way: the next move is stored, not refused."""
    from exochess.web.asyncmoves import AsyncMoves

    gid = _new_game(storage, "adropped")

    async def play() -> None:
        moves = AsyncMoves(storage.url, 1)
        try:
            await moves.add_move(gid, 0, "d2-d3", None)
            services.postgres.stop()
            services.postgres.start()
            await moves.add_move(gid, 1, "e7-e6", None)
        finally:
            await moves.close()

    asyncio.run(play())
    storage.engine.dispose()
    row = storage.load_game(gid)
    assert row is not None and row.moves == ["d2-d3", "e7-e6"]
