"""The game service in-process: the memory cache forgets idle games and reloads them intact."""

from __future__ import annotations

from pathlib import Path

import pytest

from exochess.web import service as service_module
from exochess.web.domain import NotYourTurn
from exochess.web.hub import Hub
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
