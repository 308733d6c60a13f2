"""The computer's seat and the clock (issue 39, item 11): a computer is never aborted or flagged
because the server was slow to get its move; it is charged its think time, within what its
search may take.  The engine is the real pool, held back by a gate the test opens; the waits
are on events (the service's listeners), never on the engine's speed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from exochess.web.compute.enginepool import EngineClock, EnginePool
from exochess.web.domain import Color, GameStatus
from exochess.web.game.clock import Timing
from exochess.web.game.live import LiveGame
from exochess.web.game.service import GameService
from exochess.web.game.timecontrol import TimeControl
from exochess.web.live.hub import Hub
from exochess.web.storage.store import Storage
from exochess.web.storage.store import now as storage_now
from tests.web.serverproc import run_async

WAIT_S = 60.0
"""Longest wait for an event (generous: the machine is shared)."""


class HeldPool(EnginePool):
    """The real engine pool, whose answers wait until :attr:`gate` is open: a server too busy
    to get the computer's move in time, on demand."""

    def __init__(self) -> None:
        super().__init__(1)
        self.gate = asyncio.Event()
        self.asked = asyncio.Event()

    async def move(
        self,
        variant: str,
        start_fen: str,
        texts: list[str],
        level: int,
        seed: int,
        clock: EngineClock | None = None,
        *,
        game_id: str = "",
        owner: str | None = None,
    ) -> str:
        self.asked.set()
        await self.gate.wait()
        return await super().move(variant, start_fen, texts, level, seed, clock, game_id=game_id, owner=owner)


async def _past(svc: GameService, live: LiveGame) -> None:
    """Wait until the side to move's deadline has passed (a condition on the clock, not a guess)."""
    clock = live.clock(svc.timing)
    assert clock is not None
    while storage_now() <= clock.deadline:
        await asyncio.sleep(0.02)


async def _published(svc: GameService, live: LiveGame, ply: int) -> dict[str, Any]:
    """The state published when the game reached ``ply`` (waited for; taken as it was sent, so
    that what the clocks did afterwards does not matter)."""
    reached: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

    def heard(changed: LiveGame) -> None:
        if changed is live and live.board.ply() >= ply and not reached.done():
            reached.set_result(svc.reader.state(live))

    svc.reader.listeners.append(heard)
    try:
        return await asyncio.wait_for(reached, WAIT_S)
    finally:
        svc.reader.listeners.remove(heard)


def test_the_computer_is_not_aborted_when_its_first_move_comes_late(tmp_path: Path) -> None:
    """The computer moves first; the first-move limit (here 50 ms) passes while its answer is
    held: the game is judged (a request reads it) and stays active; the move is then played."""

    async def run() -> None:
        pool = HeldPool()
        svc = GameService(
            Storage(f"sqlite:///{tmp_path / 's.sqlite'}"), pool, Hub(), Timing(first_move_ms=50)
        )
        try:
            live, _seats, _you = await svc.create(
                "fugue", "computer", 0, "black", None, TimeControl.parse("1+0")
            )
            await asyncio.wait_for(pool.asked.wait(), WAIT_S)
            await _past(svc, live)
            judged = await svc.get(live.row.id)  # judges the game's time
            assert judged.row.status == GameStatus.ACTIVE and judged.board.ply() == 0
            waiting = asyncio.create_task(_published(svc, live, 1))
            pool.gate.set()
            state = await waiting
            assert state["status"] == GameStatus.ACTIVE and len(state["moves"]) == 1
        finally:
            pool.gate.set()
            svc.close()
            pool.shutdown()
            svc.storage.close()

    run_async(run)


def test_the_computer_is_not_flagged_for_the_servers_delay_and_is_charged_its_think_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 3-second clock (tiny clocks, tests only): the computer's answer is held past its whole
    clock; it is not flagged, and its move costs what its search may take (the random level
    does not search: nothing), not the seconds the server held it."""
    monkeypatch.setenv("EXOCHESS_TEST_TINY_CLOCKS", "1")

    async def run() -> None:
        pool = HeldPool()
        svc = GameService(Storage(f"sqlite:///{tmp_path / 's.sqlite'}"), pool, Hub())
        try:
            control = TimeControl.parse("0.05+0", any_minutes=True)
            live, seats, _you = await svc.create("fugue", "computer", 0, "white", None, control)
            gid = live.row.id
            pool.gate.set()
            first = asyncio.create_task(_published(svc, live, 2))
            await svc.play(gid, seats[Color.WHITE], "d2-d3", 0)
            await first
            pool.gate.clear()
            pool.asked.clear()
            await svc.play(gid, seats[Color.WHITE], "c2-c3", 2)  # both clocks run from here
            await asyncio.wait_for(pool.asked.wait(), WAIT_S)
            await _past(svc, live)  # Black's whole clock has gone by
            judged = await svc.get(gid)
            assert judged.row.status == GameStatus.ACTIVE and judged.board.ply() == 3
            waiting = asyncio.create_task(_published(svc, live, 4))
            pool.gate.set()
            state = await waiting
            assert state["status"] == GameStatus.ACTIVE
            assert state["clock"]["black_ms"] == control.base_ms and state["clock"]["running"] == "white"
        finally:
            pool.gate.set()
            svc.close()
            pool.shutdown()
            svc.storage.close()

    run_async(run)
