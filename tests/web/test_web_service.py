"""The game service in-process: the memory cache forgets idle games and reloads them intact."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from exochess.web import service as service_module
from exochess.web.domain import NotYourTurn
from exochess.web.hub import Hub
from exochess.web.positions import PositionTooLargeError
from exochess.web.service import GameService
from exochess.web.storage import Storage
from tests.web.serverproc import run_async


def test_cache_eviction_and_reload(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service_module, "CACHE_GAMES", 3)

    async def run() -> None:
        svc = GameService(Storage(f"sqlite:///{tmp_path / 's.sqlite'}"), None, Hub())
        try:
            made = []
            for _ in range(6):
                live, seats, _you = await svc.create("fugue", "friend", None, "white", None)
                await svc.play(live.row.id, seats["white"], "d2-d3", 0)
                made.append((live.row.id, seats))
            assert len(svc._games) <= 3
            gid, seats = made[0]
            again = await svc.get(gid)  # reloaded from the database
            assert again.board.ply() == 1 and again.row.moves == ["d2-d3"]
            await svc.play(gid, seats["black"], "e7-e6", 1)
            with pytest.raises(NotYourTurn):
                await svc.play(gid, seats["black"], "a7-a6", 2)
        finally:
            svc.close()
            svc.storage.close()

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
            assert svc.state(live)["legal_count"] == 22 and svc.state(live)["legal_error"] is None
            monkeypatch.setattr(service_module, "legal_tree", too_large)
            await svc.play(live.row.id, seats["white"], "d2-d3", 0)
            state = svc.state(live)
            assert state["legal"] == [] and state["legal_error"].startswith("position too large")
            await svc.resign(live.row.id, seats["black"])
            assert svc.state(live)["status"] == "finished"
        finally:
            svc.close()
            svc.storage.close()

    run_async(run)
