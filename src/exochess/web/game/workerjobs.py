"""The engine worker's side of Redis mode: the jobs ``exochess worker`` runs, and the worker.

A computer-move job stores its move itself, with the database's guarded update, and announces
it with a move note (see :mod:`exochess.web.game.jobs` for why that stores it exactly once);
an analysis job returns its result to the server that waits for it, and a live analysis
streams its iterations to it (:mod:`exochess.web.game.livestream`).  :func:`make_worker`
builds the arq worker that outlives Redis and database outages
(:mod:`exochess.web.game.worker`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from arq.connections import RedisSettings
from arq.worker import func
from redis.exceptions import RedisError

from exochess.board import Board
from exochess.engine.protocol import SWITCH_INTERVAL_S
from exochess.web import metrics
from exochess.web.compute.enginepool import (
    LIVE_ANALYSIS_CAP_MS,
    MOVE,
    PER_CLIENT_LIMIT,
    EngineClock,
    compute_analysis,
    compute_move,
    compute_report_position,
    set_engine_hash_mb,
    think_budget_ms,
)
from exochess.web.compute.fairshare import MOVES_PER_OWNER
from exochess.web.domain import (
    Color,
    GameStatus,
    PlayerKind,
    Stamp,
)
from exochess.web.game.clock import Clock, Timing
from exochess.web.game.jobs import (
    LONG_BUDGET_S,
    move_job_id,
)
from exochess.web.game.jobshare import JOB_TIMEOUT_S, RedisShare
from exochess.web.game.livestream import engine_live_analysis
from exochess.web.game.positions import reason_text
from exochess.web.game.queuestats import QUEUE_NAME
from exochess.web.game.timecontrol import stored_time_control
from exochess.web.game.worker import (
    MOVE_TRIES,
    EngineWorker,
    Health,
    retry_on_database_outage,
    watch_database,
)
from exochess.web.live.movenote import MoveNote
from exochess.web.live.pubsub import RedisBus
from exochess.web.storage.store import ConflictError, Finish, Storage
from exochess.web.storage.store import now as storage_now

log = logging.getLogger("exochess.web")


def _after(variant: str, start_fen: str, texts: list[str], move: str) -> tuple[str, Finish | None]:
    """The FEN after ``move`` (for the move note) and the result columns if it ends the game,
    else None (CPU work)."""
    board = Board(variant, fen=start_fen)
    for text in texts:
        board.push_text(text)
    board.push_text(move)
    outcome = board.outcome()
    if outcome is None:
        return board.fen(), None
    return board.fen(), {
        "result": outcome.result(),
        "termination": outcome.termination.value,
        "reason": reason_text(board.variant, outcome),
    }


async def engine_move(
    ctx: dict[str, Any],
    game_id: str,
    ply: int,
    variant: str,
    start_fen: str,
    texts: list[str],
    level: int,
    seed: int,
    budget_ms: int,
    queued_at: float,
    clock: list[int] | None = None,
    owner: str | None = None,
) -> str | None:
    """arq job: the computer's move at ``ply``, stored and announced; None if not needed (any more).

    In a game with a time control the move is searched on ``clock`` (both sides' times and
    increments when it was queued) and stored with its clock stamp, worked out here from the
    stored rows as the servers do (:mod:`exochess.web.game.clock`).  Whatever the outcome, the
    job's claims (its owner's count, its game's place) are freed at the end.
    """
    try:
        return await _engine_move(
            ctx, game_id, ply, variant, start_fen, texts, level, seed, budget_ms, queued_at, clock
        )
    finally:
        if owner is not None:
            with contextlib.suppress(RedisError, OSError):
                share: RedisShare = ctx["share"]
                await share.leave(owner, MOVE, move_job_id(game_id, ply, texts))
                await share.place_done(game_id)


async def _engine_move(
    ctx: dict[str, Any],
    game_id: str,
    ply: int,
    variant: str,
    start_fen: str,
    texts: list[str],
    level: int,
    seed: int,
    budget_ms: int,
    queued_at: float,
    clock: list[int] | None,
) -> str | None:
    storage: Storage = ctx["storage"]
    loop = asyncio.get_running_loop()
    cpu: ThreadPoolExecutor = ctx["cpu"]
    row = await loop.run_in_executor(cpu, storage.load_game, game_id)
    if row is None or row.status != GameStatus.ACTIVE or row.moves != texts:
        return None  # answered already (a retry), or the game moved on (takeback, resignation)
    mover = Color.to_move(start_fen, len(texts))
    if row.kind_of(mover) != PlayerKind.ENGINE:
        return None
    timed = Clock.of(
        stored_time_control(row.time_control),
        row.created,
        len(row.moves),
        row.stamps[-1] if row.stamps else None,
        mover,
        ctx.get("timing", Timing()),
        computer=mover,
        berserked=row.berserked,
    )
    budget = EngineClock(*clock) if clock is not None and len(clock) == 4 else None
    asked = time.monotonic()
    text = await loop.run_in_executor(cpu, compute_move, variant, start_fen, texts, level, seed, budget)
    # the computer is charged its think time, within what its search may take; its deadline is
    # never judged (the queue's wait and a busy machine are not its slowness)
    think_ms = math.ceil((time.monotonic() - asked) * 1000)
    if budget is not None:
        think_ms = min(think_ms, think_budget_ms(variant, level, budget, mover == Color.WHITE))
    fen, finish = await loop.run_in_executor(cpu, _after, variant, start_fen, texts, text)
    arrived = storage_now()
    stamp = timed.after_move(arrived, 0, think_ms) if timed is not None else Stamp(None, None, arrived)
    try:
        await loop.run_in_executor(cpu, storage.add_move, game_id, ply, text, finish, stamp)
    except ConflictError:
        return None  # another run of this job stored it first
    metrics.MOVES.labels("engine").inc()
    metrics.ENGINE_SECONDS.labels("move").observe(max(0.0, time.time() - queued_at))
    bus: RedisBus = ctx["bus"]
    envelope: dict[str, Any] = {"k": game_id, "m": None, "ch": True}
    if finish is None:
        # the servers play the move on their cached game instead of each reading the game
        # again; a move that ends the game has none (they read the result and the ratings)
        envelope["a"] = MoveNote(ply, text, fen, stamp).to_json()
    await bus.publish(envelope)
    log.info("engine move stored", extra={"game": game_id, "ply": ply, "move": text, "engine_level": level})
    return text


async def engine_analysis(
    ctx: dict[str, Any],
    variant: str,
    start_fen: str,
    texts: list[str],
    movetime_ms: int,
    queued_at: float,
    owner: str | None = None,
) -> dict[str, Any]:
    """arq job: an analysis (its result goes back to the server that waits for it, which frees
    its owner's claim)."""
    loop = asyncio.get_running_loop()
    result: dict[str, Any] = await loop.run_in_executor(
        ctx["cpu"], compute_analysis, variant, start_fen, texts, movetime_ms
    )
    metrics.ENGINE_SECONDS.labels("analysis").observe(max(0.0, time.time() - queued_at))
    return result


async def engine_report_position(
    ctx: dict[str, Any], variant: str, start_fen: str, texts: list[str], nodes: int, queued_at: float
) -> dict[str, Any]:
    """arq job: one position of a game report (its result goes back to the server running the
    report, which stores it)."""
    loop = asyncio.get_running_loop()
    result: dict[str, Any] = await loop.run_in_executor(
        ctx["cpu"], compute_report_position, variant, start_fen, texts, nodes
    )
    metrics.ENGINE_SECONDS.labels("report").observe(max(0.0, time.time() - queued_at))
    return result


def make_worker(
    redis_url: str,
    database_url: str,
    *,
    jobs: int = 1,
    job_timeout_s: float = JOB_TIMEOUT_S,
    health: Health | None = None,
    timing: Timing | None = None,
    hash_mb: int | None = None,
) -> EngineWorker:
    """A worker running the engine's jobs, ``jobs`` at a time (one per core is right); it
    waits out Redis and database outages and holds its jobs by a renewed lease
    (:mod:`exochess.web.game.worker`), telling ``health`` what it waits for.  ``timing``: the
    rules' durations (the servers' own: a test setting shortens them)."""
    health = health if health is not None else Health()

    async def startup(ctx: dict[str, Any]) -> None:
        # the searches run in threads beside the event loop: let the loop have the GIL within
        # a millisecond or so (the search pauses for other threads every few dozen nodes)
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        if hash_mb is not None:
            set_engine_hash_mb(hash_mb)
        if "storage" in ctx:  # entered again after Redis came back: everything is there
            return
        ctx["storage"] = Storage(database_url)
        ctx["timing"] = timing or Timing()
        ctx["cpu"] = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="engine")
        ctx["bus"] = RedisBus(redis_url, origin="worker")
        ctx["probe"] = watch_database(ctx["storage"], health)
        ctx["share"] = RedisShare(
            ctx["redis"],
            moves_per_owner=MOVES_PER_OWNER,
            analyses_per_owner=PER_CLIENT_LIMIT,
            budget_s=LONG_BUDGET_S,
        )

    async def shutdown(ctx: dict[str, Any]) -> None:
        ctx["probe"].cancel()
        ctx["cpu"].shutdown(wait=True)
        await ctx["bus"].close()
        ctx["storage"].close()

    settings = RedisSettings.from_dsn(redis_url)
    return EngineWorker(
        functions=[
            # results of moves are not kept: the answer is the stored move; the id is then free
            # again for a retry after a takeback
            func(
                retry_on_database_outage(engine_move), name="engine_move", keep_result=0, max_tries=MOVE_TRIES
            ),
            func(engine_analysis, name="engine_analysis", keep_result=60, max_tries=2),
            func(engine_report_position, name="engine_report_position", keep_result=60, max_tries=2),
            # a live analysis streams to its viewer: run once (a dead worker's viewer is told,
            # and starts again), for as long as the servers' live cap allows
            func(
                engine_live_analysis,
                name="engine_live_analysis",
                keep_result=0,
                max_tries=1,
                timeout=job_timeout_s + LIVE_ANALYSIS_CAP_MS / 1000,
            ),
        ],
        redis_settings=settings,
        queue_name=QUEUE_NAME,
        max_jobs=jobs,
        job_timeout=job_timeout_s,
        poll_delay=0.05,
        on_startup=startup,
        on_shutdown=shutdown,
        handle_signals=True,
        health=health,
    )
