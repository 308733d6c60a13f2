"""Issue 17's load target: what keeps the event loop free under an attacker's floods."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from exochess.web import service as service_module
from exochess.web.domain import PositionTooLarge
from exochess.web.hub import Hub
from exochess.web.service import GameService
from exochess.web.storage import Storage
from tests.web.serverproc import run_async


def test_a_move_is_read_and_judged_off_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a move and judging the position after it list legal moves (tens of thousands
    in a huge position): that runs in the game pool's thread, not on the loop."""
    seen: list[threading.Thread] = []
    real = service_module.played

    def watched(board: Any, text: str) -> Any:
        seen.append(threading.current_thread())
        return real(board, text)

    monkeypatch.setattr(service_module, "played", watched)

    async def run() -> None:
        svc = GameService(Storage(f"sqlite:///{tmp_path / 's.sqlite'}"), None, Hub())
        try:
            live, seats, _you = await svc.create("fugue", "friend", None, "white", None)
            await svc.play(live.row.id, seats["white"], "d2-d3", 0)
            assert seen and seen[0] is not threading.current_thread()
            assert live.board.ply() == 1 and live.row.moves == ["d2-d3"] and len(live.fens) == 2
            assert svc.state(live)["moves"][0]["text"] == "d2-d3"
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
    real = service_module.played

    def stuck(board: Any, text: str) -> Any:
        release.wait(60)
        return real(board, text)

    async def run() -> None:
        svc = GameService(Storage(f"sqlite:///{tmp_path / 's.sqlite'}"), None, Hub())
        try:
            live, seats, _you = await svc.create("fugue", "friend", None, "white", None)
            svc.cpu_games.timeout_s = 0.2
            monkeypatch.setattr(service_module, "played", stuck)
            with pytest.raises(PositionTooLarge, match="reading the move"):
                await svc.play(live.row.id, seats["white"], "d2-d3", 0)
            release.set()
            assert live.board.ply() == 0 and live.row.moves == []
            assert svc.storage.load_game(live.row.id).moves == []  # type: ignore[union-attr]
            monkeypatch.setattr(service_module, "played", real)
            await svc.play(live.row.id, seats["white"], "d2-d3", 0)
            assert live.board.ply() == 1
        finally:
            release.set()
            svc.close()
            svc.storage.close()

    run_async(run)
