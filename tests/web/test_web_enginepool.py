"""The engine pool on its own: real worker processes, stopped, killed and replaced."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from exochess import Board
from exochess.engine import Searcher
from exochess.web.compute import enginepool
from exochess.web.compute.cpuwork import WORKER_NICENESS
from exochess.web.compute.enginepool import MOVE, EnginePool
from exochess.web.domain import EngineBusy, EngineFailed, TooManyEngineJobs
from tests.web.serverproc import run_async

START = Board("fugue").fen()
HANG_GUARD_S = 60.0


def stubborn(started: str, seconds: float, searcher: Searcher | None = None) -> str:
    """A job that never looks at the stop flag (like one still generating a huge move list);
    it creates the file ``started`` when it begins."""
    Path(started).touch()
    time.sleep(seconds)
    return "done"


async def begun(path: Path) -> None:
    deadline = time.monotonic() + HANG_GUARD_S
    while not path.exists():
        assert time.monotonic() < deadline, "the job never started"
        await asyncio.sleep(0.01)


def run(scenario: Callable[[EnginePool], Awaitable[Any]], **options: Any) -> Any:
    async def main() -> Any:
        pool = EnginePool(**options)
        try:
            await asyncio.wait_for(pool.warm(), HANG_GUARD_S)
            return await scenario(pool)
        finally:
            pool.shutdown()

    return run_async(main)  # a thread of its own: Playwright may hold this thread's event loop


async def until(pool: EnginePool, check: Callable[[enginepool.PoolStats], bool]) -> enginepool.PoolStats:
    deadline = time.monotonic() + HANG_GUARD_S
    while not check(stats := pool.stats()):
        assert time.monotonic() < deadline, stats
        await asyncio.sleep(0.01)
    return stats


def pids(pool: EnginePool) -> set[int | None]:
    return {w.process.pid for w in pool._live}


def test_a_cancelled_search_stops_and_its_worker_is_kept() -> None:
    async def scenario(pool: EnginePool) -> None:
        workers = pids(pool)
        task = asyncio.create_task(pool.analyse("fugue", START, [], 60_000, "a"))
        await until(pool, lambda s: s.running == 1)
        await asyncio.sleep(1.0)  # let the search begin (if it has not, the stop comes first: also fine)
        task.cancel()
        stats = await until(pool, lambda s: s.running == 0)
        assert stats.cancelled == 1 and stats.completed == 0 and stats.killed == 0
        assert pids(pool) == workers  # stopped cooperatively: the same processes go on
        assert await pool.move("fugue", START, [], 1, 0)

    run(scenario, workers=1, analysis_cap_ms=60_000)


def test_a_job_that_ignores_the_stop_loses_its_worker(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(enginepool, "STOP_GRACE_S", 0.2)
    started = tmp_path / "started"

    async def scenario(pool: EnginePool) -> None:
        workers = pids(pool)
        task = asyncio.create_task(pool._submit(MOVE, stubborn, (str(started), 600.0), 0.0, None))
        await begun(started)
        task.cancel()
        stats = await until(pool, lambda s: s.running == 0 and s.killed == 1)
        assert stats.completed == 0
        assert await pool.move("fugue", START, [], 1, 0)  # a new worker serves the next job
        assert pids(pool).isdisjoint(workers)

    run(scenario, workers=1, express=False)


def test_a_job_far_past_its_time_fails_clearly(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(enginepool, "STOP_GRACE_S", 0.2)
    monkeypatch.setattr(enginepool, "MOVE_OVERTIME_S", 0.2)

    started = tmp_path / "started"

    async def scenario(pool: EnginePool) -> None:
        with pytest.raises(EngineFailed) as failed:
            await pool._submit(MOVE, stubborn, (str(started), 600.0), 0.0, None)
        message, killed = failed.value.message, pool.stats().killed
        # it ran and ignored the stop: only killing its worker ended it; on a loaded machine the
        # stop may also come before the worker began the job (then it is skipped, or the worker
        # is killed before it could answer)
        assert ("too long" in message and killed == 1) or ("stopped" in message and killed == 0)
        if started.exists():
            assert "too long" in message
        assert await pool.move("fugue", START, [], 1, 0)

    run(scenario, workers=1, express=False)


def test_analyses_are_capped_bounded_and_shared_out() -> None:
    async def scenario(pool: EnginePool) -> None:
        reply = await pool.analyse("fugue", START, [], 10_000, "a")
        assert reply["movetime_ms"] == 150 and reply["pv"]
        held = [asyncio.create_task(pool.analyse("fugue", START, [], 150, "b")) for _ in range(2)]
        await asyncio.sleep(0)
        with pytest.raises(TooManyEngineJobs):
            await pool.analyse("fugue", START, [], 150, "b")
        # one runs, two may wait (queue_limit), the next is refused whoever asks
        others = [asyncio.create_task(pool.analyse("fugue", START, [], 150, f"c{i}")) for i in range(3)]
        await asyncio.sleep(0)
        with pytest.raises(EngineBusy) as busy:
            await pool.analyse("fugue", START, [], 150, "d")
        assert not isinstance(busy.value, TooManyEngineJobs) and busy.value.retry_after >= 1
        results = await asyncio.gather(*held, *others, return_exceptions=True)
        refused = [r for r in results if isinstance(r, EngineBusy)]
        assert len(refused) == 1 and all(isinstance(r, dict) for r in results if r not in refused)
        assert pool.stats().refused == 3

    run(scenario, workers=2, queue_limit=3, analysis_cap_ms=150)


def finishing_order(order: list[str]) -> Callable[[str, Awaitable[Any]], Coroutine[Any, Any, None]]:
    """A job runner that appends each job's name to ``order`` when its work is done."""

    async def job(name: str, work: Awaitable[Any]) -> None:
        await work
        order.append(name)

    return job


def test_moves_go_first_and_short_ones_before_long_ones() -> None:
    async def scenario(pool: EnginePool) -> list[str]:
        order: list[str] = []
        job = finishing_order(order)

        blocker = asyncio.create_task(job("blocker", pool.analyse("fugue", START, [], 300, "x")))
        await until(pool, lambda s: s.running == 1)
        queued = [
            asyncio.create_task(job("analysis", pool.analyse("fugue", START, [], 100, "y"))),
            # two games (owners): one owner's own moves are served in the order asked
            asyncio.create_task(job("level 8", pool.move("fugue", START, [], 8, 1, game_id="g8"))),
            asyncio.create_task(job("level 1", pool.move("fugue", START, [], 1, 1, game_id="g1"))),
        ]
        await until(pool, lambda s: s.queued_moves + s.queued_analyses == 3 or s.completed >= 1)
        await asyncio.gather(blocker, *queued)
        return order

    assert run(scenario, workers=1, express=False) == ["blocker", "level 1", "level 8", "analysis"]


def test_the_express_worker_serves_quick_moves_while_the_others_are_busy() -> None:
    async def scenario(pool: EnginePool) -> list[str]:
        order: list[str] = []
        job = finishing_order(order)

        long = asyncio.create_task(job("level 8", pool.move("fugue", START, [], 8, 1)))
        await until(pool, lambda s: s.running == 1)
        waiting = asyncio.create_task(job("analysis", pool.analyse("fugue", START, [], 500, "a")))
        quick = asyncio.create_task(job("level 1", pool.move("fugue", START, [], 1, 1)))
        await asyncio.gather(long, waiting, quick)
        return order

    # the level-8 search (3 s) holds the one general worker; the analysis waits for it
    assert run(scenario, workers=1) == ["level 1", "level 8", "analysis"]


def test_engine_workers_run_below_the_servers_priority() -> None:
    """A search takes a core for seconds: the workers are niced, so that on a busy machine the
    event loop (every live game's moves) is scheduled first (issue 17: game-creation floods)."""

    async def scenario(pool: EnginePool) -> None:
        own = os.getpriority(os.PRIO_PROCESS, 0)
        niceness = {os.getpriority(os.PRIO_PROCESS, pid) for pid in pids(pool) if pid is not None}
        assert niceness == {min(19, own + WORKER_NICENESS)}

    run(scenario, workers=1)
