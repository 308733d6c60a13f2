"""A move whose commit fails leaves no trace in memory: the phantom-move sequence of issue 17.

The database is made busy the real way: a second SQLite connection to the same file holds the
write lock (``BEGIN IMMEDIATE``) while the service tries to store a move.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from exochess.web.domain import Color, StorageUnavailable
from exochess.web.game.service import GameService
from exochess.web.live.hub import Hub
from exochess.web.storage.store import Storage
from tests.web.serverproc import run_async


def test_failed_commit_leaves_the_game_playable(tmp_path: Path) -> None:
    path = tmp_path / "busy.sqlite"

    async def run() -> None:
        url = f"sqlite:///{path}"
        first = GameService(Storage(url), None, Hub())
        try:
            live, seats, _you = await first.create("fugue", "friend", None, "white", None)
            gid = live.row.id
            await first.play(gid, seats[Color.WHITE], "d2-d3", 0)
        finally:
            first.close()
            first.storage.close()
        # after a restart (the game loaded afresh, nothing cached yet), with a short busy
        # timeout so that the blocked commit gives up quickly
        svc = GameService(Storage(url, busy_timeout=0.2), None, Hub())
        try:
            live = await svc.get(gid)
            blocker = sqlite3.connect(path, isolation_level=None)
            blocker.execute("BEGIN IMMEDIATE")  # another writer holds the write lock
            try:
                attempt = asyncio.create_task(svc.play(gid, seats[Color.BLACK], "e7-e6", 1))
                while not live.lock.locked():  # the move is being committed
                    await asyncio.sleep(0)
                # a GET while the commit waits sees the stored game, not the move in flight
                during = json.loads(svc.reader.state_text(await svc.get(gid)))
                assert during["ply"] == 1 and [m["text"] for m in during["moves"]] == ["d2-d3"]
                assert len(during["fens"]) == 2 and during["turn"] == "black"
                with pytest.raises(StorageUnavailable, match="database"):
                    await attempt
            finally:
                blocker.execute("ROLLBACK")
                blocker.close()
            after = json.loads(svc.reader.state_text(await svc.get(gid)))
            assert after["ply"] == 1 and after["turn"] == "black" and len(after["fens"]) == 2
            assert live.board.ply() == 1 and live.row.moves == ["d2-d3"]
            # the game goes on: the side to move plays (at the ply its page shows), then the other
            await svc.play(gid, seats[Color.BLACK], "e7-e6", after["ply"])
            await svc.play(gid, seats[Color.WHITE], "a2-a3", 2)
            final = json.loads(svc.reader.state_text(live))
            assert final["ply"] == 3 and [m["text"] for m in final["moves"]] == ["d2-d3", "e7-e6", "a2-a3"]
            stored = svc.storage.load_game(gid)
            assert stored is not None and stored.moves == ["d2-d3", "e7-e6", "a2-a3"] and stored.ply == 3
        finally:
            svc.close()
            svc.storage.close()

    run_async(run)
