"""The game service in-process: the memory cache forgets idle games and reloads them intact."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from exochess.web.domain import Color, NotYourTurn
from exochess.web.game import cache as cache_module
from exochess.web.game import moves as moves_module
from exochess.web.game.positions import PositionTooLargeError
from exochess.web.game.service import GameService
from exochess.web.live.hub import Hub
from exochess.web.storage.store import Storage
from tests.web.serverproc import run_async


def test_cache_eviction_and_reload(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "CACHE_GAMES", 3)

    async def run() -> None:
        svc = GameService(Storage(f"sqlite:///{tmp_path / 's.sqlite'}"), None, Hub())
        try:
            made = []
            for _ in range(6):
                live, seats, _you = await svc.create("fugue", "friend", None, "white", None)
                await svc.play(live.row.id, seats[Color.WHITE], "d2-d3", 0)
                made.append((live.row.id, seats))
            assert len(svc.cache.games) <= 3
            gid, seats = made[0]
            again = await svc.get(gid)  # reloaded from the database
            assert again.board.ply() == 1 and again.row.moves == ["d2-d3"]
            await svc.play(gid, seats[Color.BLACK], "e7-e6", 1)
            with pytest.raises(NotYourTurn):
                await svc.play(gid, seats[Color.BLACK], "a7-a6", 2)
        finally:
            svc.close()
            svc.storage.close()

    run_async(run)


def test_unknown_game_ids_leave_nothing_behind(tmp_path: Path) -> None:
    """Issue 17, finding 8: every made-up id requested used to keep a lock (about 200 bytes)."""
    import asyncio

    from exochess.web.domain import GameNotFound

    async def run() -> None:
        svc = GameService(Storage(f"sqlite:///{tmp_path / 's.sqlite'}"), None, Hub())
        try:
            live, _seats, _you = await svc.create("fugue", "friend", None, "white", None)
            for i in range(2000):
                with pytest.raises(GameNotFound):
                    await svc.get(f"unknown{i}")
            # many clients asking for the same unknown id at once
            results = await asyncio.gather(
                *(svc.get("same-unknown") for _ in range(50)), return_exceptions=True
            )
            assert all(isinstance(r, GameNotFound) for r in results)
            assert set(svc.cache.loading) <= {live.row.id}
            assert list(svc.cache.games) == [live.row.id]
            assert (await svc.get(live.row.id)) is live
        finally:
            svc.close()
            svc.storage.close()

    run_async(run)


def long_game(plies: int, seed: int = 7) -> list[str]:
    """Random quiet-ish Fugue moves, never ending the game, ``plies`` long."""
    import random

    from exochess.board import Board

    rng = random.Random(seed)
    board = Board("fugue")
    texts: list[str] = []
    while len(texts) < plies:
        moves = list(board.legal_moves)
        rng.shuffle(moves)
        for move in moves:
            board.push(move)
            if not board.is_game_over():
                texts.append(str(move))
                break
            board.pop()
        else:
            raise AssertionError("no move keeps the game going")
    return texts


def test_long_game_is_replayed_off_the_event_loop(tmp_path: Path) -> None:
    """Issue 17, finding 8: loading a long game replays every move; the loop keeps running meanwhile."""
    import asyncio
    import threading

    texts = long_game(300)

    async def run() -> None:
        storage = Storage(f"sqlite:///{tmp_path / 's.sqlite'}")
        svc = GameService(storage, None, Hub())
        try:
            live, _seats, _you = await svc.create("fugue", "friend", None, "white", None)
            gid = live.row.id
            for ply, text in enumerate(texts):
                storage.add_move(gid, ply, text, None)
            svc.cache.games.clear()  # as after a restart: the next request loads it from the database
            svc.cache.loading.clear()
            loop_thread = threading.current_thread()
            ticks = 0
            seen: dict[str, Any] = {}
            build = svc.cache.build

            def watched(row: Any) -> Any:
                seen["thread"] = threading.current_thread()
                seen["ticks_before"] = ticks
                result = build(row)
                seen["ticks_after"] = ticks
                return result

            svc.cache.build = watched  # type: ignore[method-assign]
            done = False

            async def ticker() -> None:
                nonlocal ticks
                while not done:
                    await asyncio.sleep(0.001)
                    ticks += 1

            tick_task = asyncio.create_task(ticker())
            loaded = await svc.get(gid)
            done = True
            await tick_task
            assert loaded.board.ply() == 300 and loaded.row.moves == texts
            assert seen["thread"] is not loop_thread
            # the loop ran other work while the replay was going on
            assert seen["ticks_after"] > seen["ticks_before"]
        finally:
            svc.close()
            storage.close()

    run_async(run)


def test_position_too_large_to_list_leaves_the_game_resignable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live game whose position cannot be listed (too many moves, or over the time bound)
    gets an empty legal tree with the reason, not a failing request."""

    def too_large(board: Any, *_args: Any) -> dict[str, Any]:
        raise PositionTooLargeError("position too large: 99,999 legal moves")

    async def run() -> None:
        svc = GameService(Storage(f"sqlite:///{tmp_path / 's.sqlite'}"), None, Hub())
        try:
            live, seats, _you = await svc.create("fugue", "friend", None, "white", None)
            assert (
                svc.reader.state(live)["legal_count"] == 22 and svc.reader.state(live)["legal_error"] is None
            )
            monkeypatch.setattr(moves_module, "game_view", too_large)
            await svc.play(live.row.id, seats[Color.WHITE], "d2-d3", 0)
            state = svc.reader.state(live)
            assert state["legal"] == [] and state["legal_error"].startswith("position too large")
            await svc.resign(live.row.id, seats[Color.BLACK])
            assert svc.reader.state(live)["status"] == "finished"
        finally:
            svc.close()
            svc.storage.close()

    run_async(run)
