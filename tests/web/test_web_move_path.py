"""A player's move under load (issue 17's load target): it does not wait behind other storage
calls, it takes one trip to a worker thread, and where its time goes is measured."""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from exochess.web.app import GC_YOUNG_OBJECTS, create_app
from exochess.web.compute.cpuwork import CpuWork
from exochess.web.domain import Color, InvalidRequest, Stamp
from exochess.web.game.positions import legal_tree
from exochess.web.game.service import GameService
from exochess.web.live.hub import Hub
from exochess.web.storage.movestore import OneJobMoveStore, TwoStepMoveStore
from exochess.web.storage.store import Finish, Storage
from exochess.web.storage.threads import DbThreads
from tests.web.serverproc import Server, run_async, served_in_thread


def test_a_move_is_stored_before_the_reads_queued_ahead_of_it(tmp_path: Path) -> None:
    """The single SQLite thread is held by a slow call while chat reads and unknown-id lookups
    queue up; the move that arrives after them is stored first, and the reads all answer."""
    order: list[str] = []
    release = threading.Event()

    async def run() -> None:
        storage = Storage(f"sqlite:///{tmp_path / 's.sqlite'}")
        svc = GameService(storage, None, Hub())
        try:
            live, seats, _you = await svc.create("fugue", "friend", None, "white", None)
            gid = live.row.id

            def slow() -> None:
                release.wait(30)
                order.append("slow")

            def read(i: int) -> int:
                order.append(f"read {i}")
                return len(storage.chat_lines(gid, 200)) + (storage.load_game(f"unknown{i}") is not None)

            add_move = storage.add_move

            def stored_move(
                game_id: str, ply: int, text: str, finish: Finish | None, stamp: Stamp | None = None
            ) -> None:
                order.append("move")
                add_move(game_id, ply, text, finish, stamp)

            storage.add_move = stored_move  # type: ignore[method-assign]
            blocker = asyncio.create_task(svc.db(slow))
            reads = [asyncio.create_task(svc.db(read, i)) for i in range(20)]
            await asyncio.sleep(0.05)  # all queued behind the slow call
            move = asyncio.create_task(svc.play(gid, seats[Color.WHITE], "d2-d3", 0))
            await asyncio.sleep(0.05)
            assert svc._db.waiting() == 21  # the reads and the move
            release.set()
            await move
            assert await asyncio.gather(*reads) == [0] * 20
            await blocker
            assert order[:2] == ["slow", "move"]
            assert order[2:] == [f"read {i}" for i in range(20)]  # the others keep their order
            assert (await svc.get(gid)).row.moves == ["d2-d3"]
        finally:
            release.set()
            svc.close()
            storage.close()

    run_async(run)


def test_database_threads_finish_their_queue_on_shutdown_and_refuse_more() -> None:
    done: list[int] = []
    threads = DbThreads(1)
    gate = threading.Event()
    threads.submit(lambda: gate.wait(10))
    for i in range(5):
        threads.submit(functools.partial(done.append, i), urgent=i == 3)
    gate.set()
    threads.shutdown(wait=True)
    assert done == [3, 0, 1, 2, 4]
    with pytest.raises(RuntimeError, match="shut down"):
        threads.submit(lambda: None)


@pytest.mark.parametrize(
    ("one_job", "each_move"),
    [
        # PostgreSQL's way (8 database threads): read, listed and stored in one job
        (True, ["database thread: move (urgent)"]),
        # SQLite's way (its one thread must not wait for a long read): read and listed in a
        # game-views thread, then stored
        (False, ["reading the move", "database thread: db (urgent)"]),
    ],
)
def test_a_move_takes_its_jobs_and_its_state_lists_the_next_moves(
    tmp_path: Path, one_job: bool, each_move: list[str]
) -> None:
    """Reading the move and listing the moves after it are one job, which stores the move too
    where the database has threads to spare: publishing the move finds the legal-move view
    ready (before, a second job waited in the pool's queue for it)."""

    async def run() -> None:
        storage = Storage(f"sqlite:///{tmp_path / 's.sqlite'}")
        svc = GameService(storage, None, Hub())
        assert isinstance(svc.moves.store, TwoStepMoveStore)  # SQLite's default
        if one_job:
            svc.moves.store = OneJobMoveStore(storage, svc._db)
        jobs: list[str] = []
        real_run = svc.cpu_games.run
        real_submit = svc._db.submit

        async def counted(what: str, fn: Any, *args: Any, owner: str | None = None) -> Any:
            jobs.append(what)
            return await real_run(what, fn, *args, owner=owner)

        def submitted(call: Any, *, urgent: bool = False) -> None:
            jobs.append(f"database thread: {call.pool}{' (urgent)' if urgent else ''}")
            real_submit(call, urgent=urgent)

        svc.cpu_games.run = counted  # type: ignore[method-assign]
        svc._db.submit = submitted  # type: ignore[method-assign]
        try:
            live, seats, _you = await svc.create("fugue", "friend", None, "white", None)
            gid = live.row.id
            await svc.get(gid)
            jobs.clear()
            for ply, (seat, text) in enumerate(
                [(Color.WHITE, "d2-d3"), (Color.BLACK, "e7-e6"), (Color.WHITE, "c2-c3")]
            ):
                await svc.play(gid, seats[seat], text, ply)
            assert jobs == each_move * 3
            state = svc.reader.state(live)
            assert state["ply"] == 3 and state["legal"] == legal_tree(live.board.copy())["actions"]
            assert state["legal_count"] == len(live.board.raw_moves()) > 0
        finally:
            svc.close()
            storage.close()

    run_async(run)


def test_thread_jobs_answer_fail_and_keep_their_count_when_nobody_waits() -> None:
    release = threading.Event()

    async def run() -> None:
        work = CpuWork("test", workers=1, max_jobs=4, timeout_s=30)
        try:
            assert await work.run("adding", sum, [1, 2]) == 3
            with pytest.raises(InvalidRequest, match="bad"):
                await work.run("failing", _fail, "bad")
            waiting = asyncio.create_task(work.run("waiting", release.wait, 30))
            await asyncio.sleep(0.05)
            waiting.cancel()  # the client left: the job runs on and still counts
            with pytest.raises(asyncio.CancelledError):
                await waiting
            assert work.jobs == 1
            release.set()
            for _ in range(100):
                if work.jobs == 0:
                    break
                await asyncio.sleep(0.02)
            assert work.jobs == 0
        finally:
            release.set()
            work.close()

    run_async(run)


def _fail(message: str) -> None:
    raise InvalidRequest(message)


def test_metrics_tell_where_a_moves_time_went(tmp_path: Path) -> None:
    """A real server: after a move over the websocket, /metrics has the move's stages, the
    worker pools' queue, run and loop-delay times, and the event loop's lag."""
    server = Server(tmp_path / "m.sqlite").start()
    try:
        made = httpx.post(server.url + "/api/games", json={"variant": "fugue", "opponent": "friend"}).json()

        async def move() -> dict[str, Any]:
            url = server.url.replace("http", "ws") + f"/ws/games/{made['id']}"
            async with websockets.connect(url) as sock:
                await sock.send(json.dumps({"type": "auth", "secret": made["seats"]["white"]["secret"]}))
                await sock.send(json.dumps({"type": "move", "move": "d2-d3", "ply": 0, "ref": 1}))
                while True:
                    msg: dict[str, Any] = json.loads(await sock.recv())
                    if msg.get("ref") == 1:
                        return msg

        assert run_async(move)["type"] == "ack"
        text = httpx.get(server.url + "/metrics").text
        for line in (
            'exochess_move_seconds_count{stage="store"} 1.0',
            'exochess_move_seconds_count{stage="publish"} 1.0',
            'exochess_work_wait_seconds_count{pool="db"}',
            'exochess_work_run_seconds_count{pool="game views"}',
            'exochess_work_resume_seconds_count{pool="db"}',
            "exochess_event_loop_lag_seconds_count",
            'exochess_gc_pause_seconds_count{generation="2"}',  # the full pass made at start
            'exochess_gc_cpu_seconds_count{generation="2"}',
            'exochess_gc_collections_total{generation="2",thread="loop"}',
        ):
            assert line in text
    finally:
        server.stop()


def test_the_server_collects_garbage_rarely_and_restores_the_settings_when_it_stops(tmp_path: Path) -> None:
    """While the site runs, the objects made at start are frozen out of the collector's passes
    and the young generation is larger; a stopped site leaves the process as it found it."""
    before = gc.get_threshold()
    app = create_app(f"sqlite:///{tmp_path / 'g.sqlite'}", use_engine_pool=False, rate_limits={})
    with served_in_thread(app) as url:
        assert httpx.get(url + "/api/variants").status_code == 200
        assert gc.get_threshold()[0] == GC_YOUNG_OBJECTS
        assert gc.get_freeze_count() > 1000
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_thread_job_dropped_by_a_closing_pool_ends_its_wait_at_once() -> None:
    release = threading.Event()

    async def run() -> None:
        work = CpuWork("test", workers=1, max_jobs=4, timeout_s=30)
        busy = asyncio.create_task(work.run("waiting", release.wait, 30))
        queued = asyncio.create_task(work.run("queued", sum, [1]))
        await asyncio.sleep(0.05)
        work.close()  # drops the queued job
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(queued, 5)  # not left waiting for the 30 s bound
        release.set()
        assert await busy is True
        assert work.jobs == 0

    run_async(run)
