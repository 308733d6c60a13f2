"""The bounded pools of CPU work: a time bound that really stops a worker process, a queue
bound answered at once with "busy", threads for live boards."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from exochess.web.compute.cpuwork import CpuWork
from exochess.web.domain import InvalidRequest, PositionTooLarge, ServerBusy
from tests.web.serverproc import run_async


def test_process_job_over_its_bound_is_stopped_and_the_worker_serves_on() -> None:
    async def run() -> None:
        work = CpuWork("test", workers=1, max_jobs=2, timeout_s=0.5, processes=True)
        try:
            with pytest.raises(PositionTooLarge, match=r"sleeping takes more than 0\.5 s"):
                await work.run("sleeping", time.sleep, 60)  # interrupted in the worker
            assert await work.run("adding", sum, [1, 2, 3]) == 6
            with pytest.raises(InvalidRequest, match="bad"):  # service errors cross the process
                await work.run("failing", _fail, "bad")
            assert work.jobs == 0
        finally:
            work.close()

    run_async(run)


def _fail(message: str) -> None:
    raise InvalidRequest(message)


def test_queue_bound_answers_busy_at_once() -> None:
    release = threading.Event()

    async def run() -> None:
        work = CpuWork("test", workers=1, max_jobs=1, timeout_s=30, processes=False)
        first = asyncio.create_task(work.run("waiting", release.wait, 30))
        await asyncio.sleep(0)
        assert work.jobs == 1
        with pytest.raises(ServerBusy, match="busy"):
            await work.run("more", sum, [1])
        release.set()
        assert await first is True
        assert await work.run("more", sum, [1]) == 1
        work.close()

    run_async(run)


def test_thread_job_over_its_bound_answers_and_still_counts_until_it_ends() -> None:
    release = threading.Event()

    async def run() -> None:
        work = CpuWork("test", workers=1, max_jobs=1, timeout_s=0.2)
        with pytest.raises(PositionTooLarge):
            await work.run("waiting", release.wait, 30)
        assert work.jobs == 1  # a thread cannot be stopped: it still holds its place
        release.set()
        for _ in range(100):
            if work.jobs == 0:
                break
            await asyncio.sleep(0.05)
        assert work.jobs == 0
        work.close()

    run_async(run)


# --- issue 41, finding 3 ----------------------------------------------------------------------


def _ignore_the_timer(seconds: float) -> str:
    """A job the time bound cannot interrupt (like one stuck in compiled code): SIGALRM blocked."""
    import signal

    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    time.sleep(seconds)
    return "late"


def test_the_process_pool_survives_gh_115634s_trigger(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``max_tasks_per_child`` a retiring worker left jobs waiting forever (CPython
    gh-115634): several rounds of jobs queued past the per-worker task count all get answered."""
    from exochess.web.compute import cpuwork

    monkeypatch.setattr(cpuwork, "TASKS_PER_PROCESS", 2)

    async def run() -> list[int]:
        work = CpuWork("test", workers=1, max_jobs=8, timeout_s=30, processes=True)
        try:
            answers: list[int] = []
            for _round in range(3):
                jobs = [work.run("adding", sum, [i, 1]) for i in range(8)]
                answers += await asyncio.wait_for(asyncio.gather(*jobs), 120)
            return answers
        finally:
            work.close()

    assert run_async(run) == [i + 1 for i in range(8)] * 3


def test_a_stuck_process_worker_is_replaced_by_the_watchdog(monkeypatch: pytest.MonkeyPatch) -> None:
    from exochess.web.compute import cpuwork

    monkeypatch.setattr(cpuwork, "WATCHDOG_GRACE_S", 0.5)

    async def run() -> None:
        work = CpuWork("test", workers=1, max_jobs=1, timeout_s=0.5, processes=True)
        try:
            await asyncio.wait_for(work.run("warming", sum, [0]), 120)  # the worker is up
            monkeypatch.setattr(cpuwork, "WORKER_START_S", 0.5)
            with pytest.raises(PositionTooLarge):
                await asyncio.wait_for(work.run("sleeping", _ignore_the_timer, 600), 120)
            assert work.replaced == 1
            monkeypatch.setattr(cpuwork, "WORKER_START_S", 60.0)  # the new worker starts
            assert await asyncio.wait_for(work.run("adding", sum, [1, 2]), 120) == 3
            assert work.jobs == 0
        finally:
            work.close()

    run_async(run)


def test_one_owner_takes_at_most_its_share_of_the_places() -> None:
    release = threading.Event()

    async def run() -> None:
        from exochess.web.domain import TooManyAttempts

        work = CpuWork("test", workers=4, max_jobs=4, timeout_s=30)
        try:
            mine = [
                asyncio.create_task(work.run("waiting", release.wait, 30, owner="addr:a")) for _ in range(2)
            ]
            await asyncio.sleep(0)
            with pytest.raises(TooManyAttempts) as exc:
                await work.run("more", sum, [1], owner="addr:a")
            assert exc.value.retry_after >= 1
            # another user still finds a place
            assert await work.run("other", sum, [2], owner="addr:b") == 2
            release.set()
            assert await asyncio.gather(*mine) == [True, True]
            assert await work.run("again", sum, [3], owner="addr:a") == 3
        finally:
            work.close()

    run_async(run)
