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
