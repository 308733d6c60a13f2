"""Issue 41, finding 1: the engine's work shared fairly.  One address could queue hundreds of
level-8 moves and thirty addresses pushed an honest level-8 reply past 300 s.  Here: the fair
order on its own, the long moves' budget on its own, and a real pool under a flood from thirty
owners, where the honest game's move has only a bounded number of jobs ahead of it (the order
is asserted, not the time)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from exochess import Board
from exochess.engine import Searcher
from exochess.web.compute.enginepool import EnginePool
from exochess.web.compute.fairshare import (
    ANALYSIS,
    MOVE,
    FairQueue,
    MoveBudget,
    Ticket,
    owner_of,
)
from exochess.web.domain import EngineBusy, TooManyEngineJobs
from tests.web.serverproc import run_async

START = Board("fugue").fen()
HANG_GUARD_S = 120.0
LEVEL8_S = 3.0


@pytest.fixture(autouse=True)
def patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """No job is stopped for overtime here: on a crowded machine a niced worker importing this
    module for its first stand-in job can take longer than a move's grace."""
    from exochess.web.compute import enginepool

    monkeypatch.setattr(enginepool, "MOVE_OVERTIME_S", 600.0)
    monkeypatch.setattr(enginepool, "OVERTIME_S", 600.0)


def ticket(owner: str, cost: float = LEVEL8_S, kind: str = MOVE, name: str = "") -> Ticket:
    return Ticket(kind, owner, cost, kind == MOVE and cost <= 0.5, name or owner)


def test_owner_is_the_account_else_the_address_else_the_game() -> None:
    assert owner_of(12, "10.0.0.1", "g") == "user:12"
    assert owner_of(None, "10.0.0.1", "g") == "addr:10.0.0.1"
    assert owner_of(None, None, "g") == "game:g"


def test_a_newcomer_is_served_within_one_round_of_a_flood() -> None:
    queue = FairQueue()
    for i in range(30):
        for _ in range(3):
            queue.push(ticket(f"flood{i}"))
    served: list[str] = []
    for _ in range(40):  # the flood has been served a while
        t = queue.pop()
        assert t is not None
        served.append(t.item)
        queue.finish(t)
    queue.push(ticket("honest"))
    before = 0
    while (t := queue.pop()) is not None and t.item != "honest":
        before += 1
        queue.finish(t)
    assert t is not None, "the honest job was never served"
    # at most one job of each other owner goes before it (round robin), never a flooder's third
    assert before <= 30, before
    # and the flood itself was served round-robin: nobody's second job before everyone's first
    assert len(set(served[:30])) == 30, served[:30]


def test_moves_go_before_analyses_and_short_before_long() -> None:
    queue = FairQueue()
    queue.push(ticket("a", 5.0, ANALYSIS, "analysis"))
    queue.push(ticket("b", LEVEL8_S, MOVE, "level 8"))
    queue.push(ticket("c", 0.2, MOVE, "level 1"))
    order = []
    while (t := queue.pop()) is not None:
        order.append(t.item)
        queue.finish(t)
    assert order == ["level 1", "level 8", "analysis"]
    # the express worker takes quick moves only; a slot without room for analyses none
    queue.push(ticket("a", 5.0, ANALYSIS, "analysis"))
    queue.push(ticket("b", LEVEL8_S, MOVE, "level 8"))
    assert queue.pop(quick_only=True) is None
    assert queue.pop(analyses=False).item == "level 8"  # type: ignore[union-attr]
    assert queue.pop(analyses=False) is None
    assert queue.held("a", ANALYSIS) == 1 and queue.held("b", MOVE) == 1


def test_the_long_moves_budget_bounds_the_waiting_work() -> None:
    budget = MoveBudget(4 * LEVEL8_S, per_owner=1, hold_s=30.0)
    now = 1000.0
    assert budget.refusal("honest-game", "honest", LEVEL8_S, now) is None
    budget.take("honest-game", "honest", LEVEL8_S)
    taken = refused = 0
    for i in range(30):
        retry = budget.refusal(f"g{i}", f"flood{i}", LEVEL8_S, now)
        if retry is None:
            budget.take(f"g{i}", f"flood{i}", LEVEL8_S)
            taken += 1
        else:
            refused += 1
            assert retry >= 1
    assert (taken, refused) == (3, 27)
    assert budget.used(now) <= 4 * LEVEL8_S
    # one owner, one long game: their second game waits for the first
    assert budget.refusal("g0-bis", "flood0", LEVEL8_S, now) is not None
    # the game holding a place keeps it while it plays, and HOLD after each reply
    budget.done("honest-game", now)
    assert budget.refusal("honest-game", "honest", LEVEL8_S, now + 29) is None
    # a flooder's game left alone lapses after the hold: its place goes to someone else
    budget.done("g0", now)
    assert budget.refusal("newcomer-game", "newcomer", LEVEL8_S, now + 31) is None
    # a game that ends frees its place at once
    budget.release("g1")
    assert "g1" in budget.holders()  # its move is still running
    budget.done("g1", now)
    assert "g1" not in budget.holders()


def nap(seconds: float, searcher: Searcher | None = None) -> str:
    """A stand-in for a search: the order of the jobs is tested here, not the engine."""
    time.sleep(seconds)
    return "move"


def test_an_honest_game_under_a_flood_of_thirty_owners() -> None:
    """Thirty owners keep asking for level-8 moves (a refused one asks again); the honest game,
    started first, plays ten moves: each is answered with at most the other places' jobs
    ahead of it, the flood's refusals carry a Retry-After, and no owner ever has more than
    its share queued."""

    async def scenario() -> tuple[list[int], int, int]:
        pool = EnginePool(workers=2, express=False, long_budget_s=4 * LEVEL8_S)
        await asyncio.wait_for(pool.warm(), HANG_GUARD_S)
        started: list[str] = []
        refusals = 0
        stop = asyncio.Event()

        async def job(owner: str, game: str) -> None:
            await pool._submit(MOVE, nap, (0.05,), LEVEL8_S, owner, game)
            started.append(owner)

        async def flooder(i: int) -> None:
            nonlocal refusals
            n = 0
            while not stop.is_set():
                n += 1
                try:
                    # a fresh game each time, like the attack (a game per creation)
                    await job(f"addr:10.0.0.{i}", f"flood{i}-{n}")
                except EngineBusy as exc:
                    assert exc.retry_after >= 1
                    refusals += 1
                    await asyncio.sleep(0.01)  # hammering, not waiting the Retry-After

        try:
            await job("addr:honest", "honest-game")  # the honest game starts in the quiet
            flood = [asyncio.create_task(flooder(i)) for i in range(30)]
            ahead: list[int] = []
            for _ in range(10):
                await asyncio.sleep(0.1)  # the player thinks; the flood goes on
                mark = len(started)
                await asyncio.wait_for(job("addr:honest", "honest-game"), HANG_GUARD_S)
                ahead.append(len(started) - mark - 1)
                assert pool.stats().long_games <= 4
            stop.set()
            await asyncio.gather(*flood, return_exceptions=True)
            return ahead, refusals, pool.stats().completed
        finally:
            pool.shutdown()

    ahead, refusals, completed = run_async(scenario)
    # three other places, two workers: at most three other jobs end before the honest one
    assert max(ahead) <= 3, ahead
    assert refusals > 0 and completed > 10


def test_an_owner_has_a_bounded_number_of_moves_waiting() -> None:
    async def scenario() -> None:
        pool = EnginePool(workers=1, express=False, moves_per_owner=2)
        await asyncio.wait_for(pool.warm(), HANG_GUARD_S)
        try:
            held = [
                asyncio.create_task(pool._submit(MOVE, nap, (0.3,), 0.2, "addr:x", f"g{i}")) for i in range(2)
            ]
            await asyncio.sleep(0)
            with pytest.raises(TooManyEngineJobs) as exc:
                await pool._submit(MOVE, nap, (0.01,), 0.2, "addr:x", "g3")
            assert exc.value.retry_after >= 1
            # someone else is not held up by x's bound
            assert await pool._submit(MOVE, nap, (0.01,), 0.2, "addr:y", "g4") == "move"
            await asyncio.gather(*held)
            # and x may ask again once its moves are answered
            assert await pool._submit(MOVE, nap, (0.01,), 0.2, "addr:x", "g3") == "move"
        finally:
            pool.shutdown()

    run_async(scenario)


def test_admit_refuses_a_long_game_without_a_place_and_says_when() -> None:
    async def scenario() -> Any:
        pool = EnginePool(workers=1, express=False, long_budget_s=LEVEL8_S, hold_s=20.0)
        await asyncio.wait_for(pool.warm(), HANG_GUARD_S)
        try:
            await pool.admit("addr:a", 8)
            await pool._submit(MOVE, nap, (0.01,), LEVEL8_S, "addr:a", "ga")
            await pool.admit("addr:b", 1)  # quick levels always start
            with pytest.raises(EngineBusy) as exc:
                await pool.admit("addr:b", 8)
            assert 1 <= exc.value.retry_after <= 20
            await pool.drop_game("ga")  # the game ended
            await pool.admit("addr:b", 8)
        finally:
            pool.shutdown()

    run_async(scenario)


def test_a_new_long_game_reserves_its_place_before_it_exists() -> None:
    """Thirty creations at once pass no check the others have not counted: each reserves its
    place, and the game created takes it over (its moves charged to its creator)."""

    async def scenario() -> None:
        pool = EnginePool(workers=1, express=False, long_budget_s=2 * LEVEL8_S)
        await asyncio.wait_for(pool.warm(), HANG_GUARD_S)
        try:
            keys = []
            refused = 0
            for i in range(30):
                try:
                    keys.append((i, await pool.reserve(f"addr:{i}", 8)))
                except EngineBusy as exc:
                    assert exc.retry_after >= 1
                    refused += 1
            assert len(keys) == 2 and refused == 28
            assert await pool.reserve("addr:quick", 1) is None  # a quick level needs no place
            (i0, k0), (i1, k1) = keys
            await pool.claim(k0, "game0", f"addr:{i0}")
            await pool.claim(k1, "", f"addr:{i1}")  # that creation failed: its place is free
            assert set(pool._budget.holders()) == {"game0"}
            assert await pool._submit(MOVE, nap, (0.01,), LEVEL8_S, None, "game0") == "move"
            assert pool._game_owners["game0"] == f"addr:{i0}"
            assert await pool.reserve("addr:late", 8) is not None  # the freed place
        finally:
            pool.shutdown()

    run_async(scenario)
