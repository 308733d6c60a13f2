"""A move is read and stored in one database-thread job (``MoveJob`` in web/storage/movestore.py, the
way with PostgreSQL): its queue bound, its time bound, and a caller that gives up before the
store, on a real SQLite file with the service's real threads."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from exochess.web.domain import Color, PositionTooLarge, ServerBusy
from exochess.web.game.service import GameService
from exochess.web.live.hub import Hub
from exochess.web.storage import movestore as movestore_module
from exochess.web.storage.movestore import OneJobMoveStore
from exochess.web.storage.store import Storage
from tests.web.serverproc import run_async


def stored_moves(storage: Storage, game_id: str) -> list[str]:
    """The moves the database holds for ``game_id``."""
    row = storage.load_game(game_id)
    assert row is not None
    return row.moves


@contextlib.asynccontextmanager
async def sqlite_service(
    tmp_path: Path, release: threading.Event
) -> AsyncIterator[tuple[Storage, GameService]]:
    """A game service on a real SQLite file; on the way out ``release`` is set (no thread is
    left held) and the service and its storage are closed."""
    storage = Storage(f"sqlite:///{tmp_path / 's.sqlite'}")
    svc = GameService(storage, None, Hub())
    svc.moves.store = OneJobMoveStore(storage, svc._db)  # PostgreSQL's way, here on SQLite's one thread
    try:
        yield storage, svc
    finally:
        release.set()
        svc.close()
        storage.close()


def _waiting(svc: GameService) -> int:
    """Moves read and stored in the database threads now."""
    store = svc.moves.store
    assert isinstance(store, OneJobMoveStore)
    return store.waiting


async def _blocked(svc: GameService, release: threading.Event) -> asyncio.Task[bool]:
    """Hold the service's one SQLite thread until ``release`` is set."""
    task = asyncio.create_task(svc.db(release.wait, 30))
    await asyncio.sleep(0.05)
    return task


async def _settled(svc: GameService) -> None:
    """Wait until the service has no background task and no move in a thread (bounded at 60 s
    for a loaded machine: the callers assert what they find then)."""
    for _ in range(3000):
        if not svc.reader._background and _waiting(svc) == 0:
            return
        await asyncio.sleep(0.02)


def test_a_move_past_its_time_bound_is_not_stored_and_the_game_plays_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database thread is held past the move's time bound: the player is told, the job
    later finds nobody waiting and stores nothing, the cached game is read again and takes
    the same move afterwards."""
    normal_limit = movestore_module.MOVE_TIME_LIMIT_S
    monkeypatch.setattr(movestore_module, "MOVE_TIME_LIMIT_S", 0.2)
    release = threading.Event()

    async def run() -> None:
        async with sqlite_service(tmp_path, release) as (storage, svc):
            live, seats, _you = await svc.create("fugue", "friend", None, "white", None)
            gid = live.row.id
            blocker = await _blocked(svc, release)
            with pytest.raises(PositionTooLarge, match="reading the move"):
                await svc.play(gid, seats[Color.WHITE], "d2-d3", 0)
            release.set()
            await blocker
            await _settled(svc)  # the job ran, and the game was read again after it
            assert _waiting(svc) == 0
            assert stored_moves(storage, gid) == []
            assert (await svc.get(gid)).board.ply() == 0
            # the same move again, with the usual bound: 0.2 s is a bound that a loaded
            # machine's unblocked thread can miss too (CI's run of 29 Nov 2026 did)
            monkeypatch.setattr(movestore_module, "MOVE_TIME_LIMIT_S", normal_limit)
            await svc.play(gid, seats[Color.WHITE], "d2-d3", 0)
            assert stored_moves(storage, gid) == ["d2-d3"]

    run_async(run)


def test_moves_past_the_queue_bound_are_refused_as_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one move already waiting for the (held) database thread and a bound of one, a
    move of another game is refused as busy at once; the waiting one is stored after."""
    monkeypatch.setattr(movestore_module, "MAX_MOVES_WAITING", 1)
    release = threading.Event()

    async def run() -> None:
        async with sqlite_service(tmp_path, release) as (storage, svc):
            first, seats1, _ = await svc.create("fugue", "friend", None, "white", None)
            second, seats2, _ = await svc.create("fugue", "friend", None, "white", None)
            blocker = await _blocked(svc, release)
            waiting = asyncio.create_task(svc.play(first.row.id, seats1[Color.WHITE], "d2-d3", 0))
            await asyncio.sleep(0.05)
            with pytest.raises(ServerBusy, match="busy"):
                await svc.play(second.row.id, seats2[Color.WHITE], "d2-d3", 0)
            release.set()
            await blocker
            await waiting
            assert stored_moves(storage, first.row.id) == ["d2-d3"]
            assert stored_moves(storage, second.row.id) == []
            assert _waiting(svc) == 0
            await svc.play(second.row.id, seats2[Color.WHITE], "d2-d3", 0)  # room again

    run_async(run)


def test_a_move_cancelled_before_its_store_is_not_stored(tmp_path: Path) -> None:
    """A client that leaves while its move waits for the database thread: the move is not
    stored later, and the game stays at its ply in memory and in the database."""
    release = threading.Event()

    async def run() -> None:
        async with sqlite_service(tmp_path, release) as (storage, svc):
            live, seats, _you = await svc.create("fugue", "friend", None, "white", None)
            gid = live.row.id
            blocker = await _blocked(svc, release)
            move = asyncio.create_task(svc.play(gid, seats[Color.WHITE], "d2-d3", 0))
            await asyncio.sleep(0.05)
            move.cancel()
            with pytest.raises(asyncio.CancelledError):
                await move
            release.set()
            await blocker
            await _settled(svc)
            assert stored_moves(storage, gid) == []
            assert (await svc.get(gid)).board.ply() == 0

    run_async(run)
