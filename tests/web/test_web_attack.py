"""Issue 17's load target: what keeps the event loop free under an attacker's floods."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from exochess.web.domain import Color, PositionTooLarge
from exochess.web.game import computer as computer_module
from exochess.web.game import moves as moves_module
from exochess.web.game.service import GameService
from exochess.web.live.hub import Hub
from exochess.web.storage.store import Storage
from tests.web.serverproc import run_async


def test_a_move_is_read_and_judged_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a move and judging the position after it list legal moves (tens of thousands
    in a huge position): that runs in the game pool's thread, not on the loop."""
    seen: list[threading.Thread] = []
    real = moves_module.played

    def watched(board: Any, text: str) -> Any:
        seen.append(threading.current_thread())
        return real(board, text)

    monkeypatch.setattr(moves_module, "played", watched)

    async def run() -> None:
        svc = GameService(Storage(f"sqlite:///{tmp_path / 's.sqlite'}"), None, Hub())
        try:
            live, seats, _you = await svc.create("fugue", "friend", None, "white", None)
            await svc.play(live.row.id, seats[Color.WHITE], "d2-d3", 0)
            assert seen and seen[0] is not threading.current_thread()
            assert live.board.ply() == 1 and live.row.moves == ["d2-d3"] and len(live.fens) == 2
            assert svc.reader.state(live)["moves"][0]["text"] == "d2-d3"
        finally:
            svc.close()
            svc.storage.close()

    run_async(run)


def test_a_move_past_the_time_bound_is_refused_and_the_game_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move whose position takes longer than the bound to judge gets a clear error (422);
    nothing is stored or changed, and the game stays playable."""
    release = threading.Event()
    real = moves_module.played

    def stuck(board: Any, text: str) -> Any:
        release.wait(60)
        return real(board, text)

    async def run() -> None:
        svc = GameService(Storage(f"sqlite:///{tmp_path / 's.sqlite'}"), None, Hub())
        try:
            live, seats, _you = await svc.create("fugue", "friend", None, "white", None)
            svc.cpu_games.timeout_s = 0.2
            monkeypatch.setattr(moves_module, "played", stuck)
            with pytest.raises(PositionTooLarge, match="reading the move"):
                await svc.play(live.row.id, seats[Color.WHITE], "d2-d3", 0)
            release.set()
            assert live.board.ply() == 0 and live.row.moves == []
            assert svc.storage.load_game(live.row.id).moves == []  # type: ignore[union-attr]
            monkeypatch.setattr(moves_module, "played", real)
            await svc.play(live.row.id, seats[Color.WHITE], "d2-d3", 0)
            assert live.board.ply() == 1
        finally:
            release.set()
            svc.close()
            svc.storage.close()

    run_async(run)


def test_the_move_path_statements_keep_the_optimistic_check(tmp_path: Path) -> None:
    """``add_move`` runs statements built once (the move path's Python time halved): the ply
    guard still refuses a second writer of a ply and a move in a finished game, and the clock
    columns are stored."""
    import datetime as dt

    from exochess.web.domain import PlayerKind, Stamp
    from exochess.web.storage.store import ConflictError, Finish

    storage = Storage(f"sqlite:///{tmp_path / 's.sqlite'}")
    try:
        storage.create_game(
            id="g",
            variant="fugue",
            start_fen="x w",
            white=PlayerKind.HUMAN,
            black=PlayerKind.HUMAN,
            level=None,
            white_secret="a",
            black_secret="b",
        )
        at = dt.datetime(2026, 11, 25, 12, 0, 0)
        storage.add_move("g", 0, "d2-d3", None, Stamp(60_000, 59_000, at))
        with pytest.raises(ConflictError):
            storage.add_move("g", 0, "e2-e3", None)
        finish: Finish = {"result": "1-0", "termination": "resignation", "reason": "test"}
        storage.add_move("g", 1, "d7-d6", finish)
        with pytest.raises(ConflictError):
            storage.add_move("g", 2, "e2-e3", None)
        row = storage.load_game("g")
        assert row is not None and row.moves == ["d2-d3", "d7-d6"] and row.ply == 2
        assert row.status == "finished" and row.result == "1-0"
        assert (row.stamps[0].white_ms, row.stamps[0].black_ms, row.stamps[0].at) == (60_000, 59_000, at)
    finally:
        storage.close()


def test_the_computer_tries_again_when_the_move_pool_is_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer's move is read in the same bounded pool as the players': refused there as
    busy (503), it is not lost but tried again, as after a busy database."""
    import asyncio

    from exochess.web.compute.enginepool import EnginePool
    from exochess.web.domain import ServerBusy

    monkeypatch.setattr(computer_module, "ENGINE_RETRY_S", 0.05)
    real = moves_module.played
    refused: list[str] = []

    def busy_once(board: Any, text: str) -> Any:
        if not refused:
            refused.append(text)
            raise ServerBusy("the server is busy (game views); try again in a moment")
        return real(board, text)

    async def run() -> None:
        pool = EnginePool(1)
        svc = GameService(Storage(f"sqlite:///{tmp_path / 's.sqlite'}"), pool, Hub())
        try:
            monkeypatch.setattr(moves_module, "played", busy_once)
            moved = asyncio.Event()  # set when the computer's move is published

            def heard(changed: Any) -> None:
                if changed.board.ply() >= 1:
                    moved.set()

            svc.reader.listeners.append(heard)
            live, _seats, _you = await svc.create("fugue", "computer", 0, "black", None)
            await asyncio.wait_for(moved.wait(), 60)  # the computer (level 0: a random move)
            assert refused and live.board.ply() == 1 and len(live.row.moves) == 1
        finally:
            svc.close()
            pool.shutdown()
            svc.storage.close()

    run_async(run)
