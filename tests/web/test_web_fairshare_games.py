"""Issue 41's fair share reaching the live games (the gaps left when the game service was being
split): a player's move refused before it is stored when the computer's reply could not be
queued; a refused computer move asking again after its Retry-After, not every second; a game's
long-move place freed whenever the game ends; evaluations, free positions and set-up positions
charged to their owner (account, else address); a rematch against the computer reserving its
place like a new game.

The service runs on a real :class:`EnginePool`; an owner's share is held by a real job that
waits for a file the test writes (the order of events is asserted, never the time)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from http import HTTPStatus
from pathlib import Path
from typing import Any

import httpx
import pytest

from exochess.web.app import create_app
from exochess.web.compute.cpuwork import CpuWork
from exochess.web.compute.enginepool import EnginePool
from exochess.web.compute.fairshare import ANALYSIS, MOVE
from exochess.web.domain import Color, EngineBusy, GameStatus, ServerBusy, TooManyEngineJobs
from exochess.web.game.clock import Timing
from exochess.web.game.live import LiveGame
from exochess.web.game.service import GameService
from exochess.web.http.errors import STATUS
from exochess.web.live.hub import Hub
from exochess.web.storage.store import Storage
from tests.web.serverproc import run_async, served_in_thread

WAIT_S = 120.0
"""Longest wait for an event (generous: the machine is shared)."""
LEVEL8_S = 3.0
ROYAL_CAPTURE_FEN = "7p/8/8/8/8/8/8/Kq6 b"
"""Fugue, Black to move: ``b1xa1`` takes White's last royal and ends the game."""


@pytest.fixture(autouse=True)
def patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """No job is stopped for overtime (a held job waits as long as the test says)."""
    from exochess.web.compute import enginepool

    monkeypatch.setattr(enginepool, "MOVE_OVERTIME_S", 600.0)
    monkeypatch.setattr(enginepool, "OVERTIME_S", 600.0)


def wait_for_file(path: str, *_args: Any, **_kwargs: Any) -> str:
    """A job (in an engine worker or a thread) that lasts until ``path`` exists."""
    deadline = time.monotonic() + WAIT_S
    while not Path(path).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return "held"


async def until(condition: Any, what: str) -> None:
    """Wait (on the loop) until ``condition()`` holds."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        await asyncio.sleep(0.01)


async def published(svc: GameService, live: LiveGame, check: Any) -> None:
    """Wait until a published state of ``live`` passes ``check(live)``."""
    reached = asyncio.get_running_loop().create_future()

    def heard(changed: LiveGame) -> None:
        if changed.row.id == live.row.id and check(changed) and not reached.done():
            reached.set_result(None)

    svc.reader.listeners.append(heard)
    try:
        if not check(live):
            await asyncio.wait_for(reached, WAIT_S)
    finally:
        svc.reader.listeners.remove(heard)


def service(tmp_path: Path, pool: EnginePool, timing: Timing | None = None) -> GameService:
    return GameService(Storage(f"sqlite:///{tmp_path / 'games.sqlite'}"), pool, Hub(), timing)


def test_a_move_is_refused_before_it_is_stored_when_the_reply_cannot_be_queued(tmp_path: Path) -> None:
    """The owner's share of computer moves is full: the player's move is refused with the 429
    kind and a Retry-After, and nothing is stored; once the share frees, the same move is played
    and the computer replies."""
    release = tmp_path / "release"

    async def run() -> None:
        pool = EnginePool(workers=1, express=False, moves_per_owner=1)
        await asyncio.wait_for(pool.warm(), WAIT_S)
        svc = service(tmp_path, pool)
        try:
            live, seats, _you = await svc.create("fugue", "computer", 0, "white", None)
            await pool.claim(None, live.row.id, "addr:p")
            blocker = asyncio.create_task(
                pool._submit(MOVE, wait_for_file, (str(release),), 0.05, "addr:p", "other")
            )
            await until(lambda: pool._queue.held("addr:p", MOVE) == 1, "the owner's other move queued")
            with pytest.raises(TooManyEngineJobs) as exc:
                await svc.play(live.row.id, seats[Color.WHITE], "a2-a3", 0)
            assert exc.value.retry_after >= 1
            assert STATUS[TooManyEngineJobs] == HTTPStatus.TOO_MANY_REQUESTS  # with Retry-After
            assert live.board.ply() == 0
            stored = await svc.db(svc.storage.load_game, live.row.id)
            assert stored is not None and list(stored.moves) == []
            assert not svc.computer.thinking(live.row.id)
            release.touch()
            assert await asyncio.wait_for(blocker, WAIT_S) == "held"
            await svc.play(live.row.id, seats[Color.WHITE], "a2-a3", 0)
            await published(svc, live, lambda g: g.board.ply() == 2)  # the computer replied
        finally:
            release.touch()
            svc.close()
            pool.shutdown()

    run_async(run)


def test_a_refused_computer_move_waits_its_retry_after(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The computer moves first but its owner's share is full: the refusal is logged once, at
    info, and the computer asks again after the refusal's Retry-After (recorded), not every
    second; then it plays."""
    release = tmp_path / "release"
    caplog.set_level(logging.INFO, logger="exochess.web")

    async def run() -> None:
        pool = EnginePool(workers=1, express=False, moves_per_owner=1)
        await asyncio.wait_for(pool.warm(), WAIT_S)
        svc = service(tmp_path, pool)
        try:
            blocker = asyncio.create_task(
                pool._submit(MOVE, wait_for_file, (str(release),), 0.05, "addr:p", None)
            )
            await until(lambda: pool._queue.held("addr:p", MOVE) == 1, "the owner's other move queued")
            live, _seats, _you = await svc.create("fugue", "computer", 8, "black", None)
            await pool.claim(None, live.row.id, "addr:p")  # no await inside: before the turn runs
            await until(lambda: live.row.id in svc.computer.waits, "the computer's move refused")
            wait, _handle = svc.computer.waits[live.row.id]
            assert wait == 3  # ceil(level 8's 3 s x the owner's 1 move): the refusal's Retry-After
            assert not svc.computer.thinking(live.row.id)  # not asking again meanwhile
            release.touch()
            assert await asyncio.wait_for(blocker, WAIT_S) == "held"
            await published(svc, live, lambda g: g.board.ply() == 1)  # asked again, and played
        finally:
            release.touch()
            svc.close()
            pool.shutdown()

    run_async(run)
    refusals = [r for r in caplog.records if "refused" in r.getMessage()]
    assert len(refusals) == 1 and refusals[0].levelno == logging.INFO
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.name == "exochess.web"]


async def _long_game(
    svc: GameService, pool: EnginePool, owner: str, fen: str | None = None, color: str = "white"
) -> tuple[LiveGame, dict[Color, str]]:
    """A level-8 game against the computer holding its place, as the API creates one."""
    key = await pool.reserve(owner, 8)
    live, seats, _you = await svc.create("fugue", "computer", 8, color, fen, owner=owner)
    await pool.claim(key, live.row.id, owner)
    assert live.row.id in pool._budget.holders()
    return live, seats


def test_a_game_ended_by_royal_capture_frees_its_place_at_once(tmp_path: Path) -> None:
    async def run() -> None:
        pool = EnginePool(workers=1, express=False, long_budget_s=LEVEL8_S)
        await asyncio.wait_for(pool.warm(), WAIT_S)
        svc = service(tmp_path, pool)
        try:
            live, seats = await _long_game(svc, pool, "addr:p", ROYAL_CAPTURE_FEN, "black")
            with pytest.raises(EngineBusy):
                await pool.reserve("addr:q", 8)  # the only place is the game's
            await svc.play(live.row.id, seats[Color.BLACK], "b1xa1", 0)
            assert live.row.status == GameStatus.FINISHED
            assert live.row.id not in pool._budget.holders()
            assert await pool.reserve("addr:q", 8) is not None
        finally:
            svc.close()
            pool.shutdown()

    run_async(run)


def test_a_game_ended_by_the_clock_frees_its_place_at_once(tmp_path: Path) -> None:
    """The player never makes a first move: the clock ends the game (no request involved), and
    its place is free then, not one hold later."""

    async def run() -> None:
        pool = EnginePool(workers=1, express=False, long_budget_s=LEVEL8_S, hold_s=600.0)
        await asyncio.wait_for(pool.warm(), WAIT_S)
        svc = service(tmp_path, pool, Timing(first_move_ms=50))
        try:
            from exochess.web.game.timecontrol import TimeControl

            key = await pool.reserve("addr:p", 8)
            live, _seats, _you = await svc.create(
                "fugue", "computer", 8, "white", None, TimeControl.parse("1+0"), owner="addr:p"
            )
            await pool.claim(key, live.row.id, "addr:p")
            await published(svc, live, lambda g: not g.active)
            assert live.row.id not in pool._budget.holders()
        finally:
            svc.close()
            pool.shutdown()

    run_async(run)


def test_an_evaluation_is_charged_to_the_account(tmp_path: Path) -> None:
    """A signed-in player's evaluation counts against the account's share, whatever address it
    comes from; without an account, against the address."""
    release = tmp_path / "release"

    async def run() -> None:
        pool = EnginePool(workers=1, express=False, per_client=1)
        await asyncio.wait_for(pool.warm(), WAIT_S)
        svc = service(tmp_path, pool)
        try:
            live, seats, _you = await svc.create("fugue", "computer", 0, "white", None)
            blocker = asyncio.create_task(
                pool._submit(ANALYSIS, wait_for_file, (str(release),), 1.0, "user:7")
            )
            await until(lambda: pool._queue.held("user:7", ANALYSIS) == 1, "the account's analysis queued")
            with pytest.raises(TooManyEngineJobs):
                await svc.computer.evaluate_game(live, seats[Color.WHITE], 7, 100, "10.0.0.9")
            # the same request signed out is the address's, which has its share
            pending = asyncio.create_task(
                svc.computer.evaluate_game(live, seats[Color.WHITE], None, 100, "10.0.0.9")
            )
            await until(lambda: pool._queue.held("addr:10.0.0.9", ANALYSIS) == 1, "the address's evaluation")
            release.touch()
            assert await asyncio.wait_for(blocker, WAIT_S) == "held"
            assert isinstance(await asyncio.wait_for(pending, WAIT_S), dict)
        finally:
            release.touch()
            svc.close()
            pool.shutdown()

    run_async(run)


def test_a_rematch_against_the_computer_reserves_its_place(tmp_path: Path) -> None:
    """A rematch is a new long game: refused (Retry-After, no rematch made) while the places are
    taken, created holding its own place, charged to its owner, once there is one."""

    async def run() -> None:
        pool = EnginePool(workers=1, express=False, long_budget_s=LEVEL8_S)
        await asyncio.wait_for(pool.warm(), WAIT_S)
        svc = service(tmp_path, pool)
        try:
            live, seats = await _long_game(svc, pool, "addr:p")
            await svc.resign(live.row.id, seats[Color.WHITE])
            assert live.row.id not in pool._budget.holders()  # ended: its place is free
            other = await pool.reserve("addr:q", 8)  # someone else takes it
            with pytest.raises(EngineBusy) as exc:
                await svc.rematch(live.row.id, seats[Color.WHITE], owner="addr:p")
            assert exc.value.retry_after >= 1
            assert live.row.rematch_id is None
            await pool.claim(other, "", "addr:q")  # that creation failed: the place is free again
            new, color, _secret = await svc.rematch(live.row.id, seats[Color.WHITE], owner="addr:p")
            assert color == Color.BLACK
            assert pool._budget.holders() == {new.row.id: "addr:p"}
            assert pool._game_owners[new.row.id] == "addr:p"
            # asking again returns the same rematch, reserving nothing more
            again, _c, _s = await svc.rematch(live.row.id, seats[Color.WHITE], owner="addr:p")
            assert again.row.id == new.row.id and set(pool._budget.holders()) == {new.row.id}
        finally:
            svc.close()
            pool.shutdown()

    run_async(run)


def test_free_positions_and_set_up_games_have_an_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over HTTP: while one of an address's position views is being worked out (held), its
    next ``/api/position`` and a new game from a FEN are refused 429 with Retry-After (its
    share of the places is one here); once it is done both pass."""
    from exochess.web.routes import api

    release = tmp_path / "release"
    monkeypatch.setattr(api, "analysis_position", lambda *args: wait_for_file(str(release)) and "{}")
    app = create_app(f"sqlite:///{tmp_path / 'site.sqlite'}", use_engine_pool=False)
    with served_in_thread(app) as url, httpx.Client(base_url=url, timeout=WAIT_S) as client:
        svc: GameService = app.state.service
        work = CpuWork(
            "position views", workers=2, max_jobs=4, timeout_s=WAIT_S, processes=False, per_owner=1
        )
        old, svc.cpu_free, svc.new_games.cpu = svc.cpu_free, work, work
        old.close()
        body: dict[str, Any] = {"variant": "fugue", "fen": None, "moves": [], "prefix": []}
        first: dict[str, Any] = {}
        held = threading.Thread(target=lambda: first.update(res=client.post("/api/position", json=body)))
        held.start()
        try:
            deadline = time.monotonic() + WAIT_S
            while not work._owners and time.monotonic() < deadline:
                time.sleep(0.01)
            assert dict(work._owners) == {"addr:127.0.0.1": 1}
            res = client.post("/api/position", json=body)
            assert res.status_code == HTTPStatus.TOO_MANY_REQUESTS, res.text
            assert int(res.headers["Retry-After"]) >= 1
            res = client.post(
                "/api/games",
                json={"variant": "fugue", "opponent": "friend", "color": "white", "fen": ROYAL_CAPTURE_FEN},
            )
            assert res.status_code == HTTPStatus.TOO_MANY_REQUESTS, res.text
            assert int(res.headers["Retry-After"]) >= 1
        finally:
            release.touch()
            held.join(WAIT_S)
        assert first["res"].status_code == 200, first["res"].text
        res = client.post(
            "/api/games",
            json={"variant": "fugue", "opponent": "friend", "color": "white", "fen": ROYAL_CAPTURE_FEN},
        )
        assert res.status_code == 201, res.text
    assert issubclass(TooManyEngineJobs, ServerBusy)
