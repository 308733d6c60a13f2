"""Live analysis in Redis mode: a worker's search streamed to the server that asked for it.

On one process the engine pool sends each completed iteration of a live analysis up its pipe
(:meth:`~exochess.web.compute.enginepool.EnginePool.analyse_live`).  In Redis mode the search
runs in an ``exochess worker`` on another machine, as an arq job (``engine_live_analysis``),
and its iterations travel on a Redis pub/sub channel of its own:

- the server subscribes to ``exochess:engine:live:<id>`` *before* it queues the job, so no
  message is lost; the worker publishes ``started`` when it takes the job, one ``info`` per
  completed iteration (the very JSON of the one-process stream: depth, score, nodes per second,
  time, the lines), a ``beat`` every :data:`BEAT_S` while it searches, and ``done`` (``finished``
  or ``stopped``) or ``error`` at the end;
- a stop (the viewer pressed stop, asked for another position, or left) is a key,
  ``exochess:engine:live-stop:<id>``, that the worker reads every :data:`STOP_POLL_S` while it
  searches and once before it starts: a job stopped while still queued is skipped when a
  worker takes it, a running one has its :class:`~exochess.engine.Searcher` stopped, which
  frees the worker at once.  A key rather than a message: it outlives a job not started yet.
  The server then waits (at most :data:`STOP_WAIT_S`) for the worker's ``done``, so a viewer
  who starts again right away finds its worker free and its bound per owner counted right;
- a worker that dies mid-search falls silent: the server gives up after :data:`SILENCE_S`
  without a message (or after the search's time, the cap, and :data:`OVERTIME_S` at the
  latest) and the viewer gets an error instead of waiting for ever; the job is not run again
  (``max_tries`` 1: the viewer starts another).  A job still waiting for a worker after
  :data:`QUEUE_WAIT_S` is given up the same way (its stop key set, so it is skipped later).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from exochess.engine import Searcher
from exochess.web import metrics
from exochess.web.compute.enginepool import ANALYSIS, compute_live_analysis, engine_hash_mb
from exochess.web.domain import N_, EngineBusy, EngineFailed
from exochess.web.game.jobshare import RedisShare

log = logging.getLogger("exochess.web")

CHANNEL = "exochess:engine:live:{id}"
"""The pub/sub channel of one live analysis (its updates, from the worker to the server)."""
STOP_KEY = "exochess:engine:live-stop:{id}"
"""Set by the server to stop one live analysis (read by the worker)."""
BEAT_S = 1.0
"""How often a searching worker says it is alive when it has nothing else to say."""
SILENCE_S = 10.0
"""A running live analysis silent this long (no update, no beat) is taken for dead: its worker
died, or lost Redis (a loaded machine delays beats by a second or two, not ten)."""
OVERTIME_S = 5.0
"""Beyond its thinking time, what a running live analysis may take to say ``done`` (replaying
the moves, generating them in a large position)."""
QUEUE_WAIT_S = 60.0
"""Longest wait of a live analysis for a worker to take it (moves go first)."""
STOP_POLL_S = 0.05
"""How often the worker reads the stop key while it searches."""
STOP_WAIT_S = 3.0
"""How long a stopping server waits for the worker to confirm the stop."""
JOB_PREFIX = "analysis:live:"
"""Job ids of live analyses (counted as analyses by :mod:`exochess.web.game.queuestats`)."""


def channel_of(stream_id: str) -> str:
    return CHANNEL.format(id=stream_id)


def stop_key_of(stream_id: str) -> str:
    return STOP_KEY.format(id=stream_id)


# --- the server's side ----------------------------------------------------------------------------


async def request_stop(redis: Redis, stream_id: str, ttl_s: float) -> None:
    """Ask the worker (running, or still to take the job) to stop ``stream_id``."""
    await redis.set(stop_key_of(stream_id), b"1", ex=max(1, int(ttl_s)))


def _decode(message: dict[str, Any] | None) -> dict[str, Any] | None:
    if message is None or message.get("type") != "message":
        return None
    try:
        data = json.loads(message["data"])
    except (TypeError, ValueError):
        log.warning("live analysis: an unreadable update was ignored")
        return None
    return data if isinstance(data, dict) else None


class LiveFollower:
    """The server's end of one live analysis: reads its channel until ``done``."""

    def __init__(self, pubsub: PubSub, movetime_ms: int) -> None:
        self.pubsub = pubsub
        self.movetime_ms = movetime_ms
        self.started = False
        self.finished = False

    async def _next(self, until: float) -> dict[str, Any] | None:
        """The next update before ``until`` (``time.monotonic``), None when the time is up."""
        while True:
            left = until - time.monotonic()
            if left <= 0:
                return None
            data = _decode(
                await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=min(left, 1.0))
            )
            if data is not None:
                return data

    async def follow(self, on_info: Callable[[dict[str, Any]], None]) -> str:
        """Send each ``info`` to ``on_info`` until the worker says ``done``: its reason.

        Raises :class:`EngineBusy` when no worker took the job in time, :class:`EngineFailed`
        when the worker failed or fell silent."""
        deadline = time.monotonic() + QUEUE_WAIT_S
        end = deadline
        while True:
            data = await self._next(deadline)
            now = time.monotonic()
            if data is None:
                if not self.started:
                    seconds = int(QUEUE_WAIT_S)
                    raise EngineBusy(
                        N_("the engine is busy: try again in {seconds} s"),
                        retry_after=seconds,
                        seconds=seconds,
                    )
                metrics.ERRORS.labels("engine").inc()
                raise EngineFailed(N_("the engine stopped answering: start the analysis again"))
            kind = data.get("t")
            if kind == "started" and not self.started:
                self.started = True
                end = now + self.movetime_ms / 1000 + OVERTIME_S + SILENCE_S
            elif kind == "info" and isinstance(data.get("d"), dict):
                on_info(data["d"])
            elif kind == "done":
                self.finished = True
                return str(data.get("reason", "finished"))
            elif kind == "error":
                self.finished = True
                metrics.ERRORS.labels("engine").inc()
                log.warning("live analysis failed in its worker: %s", data.get("error"))
                raise EngineFailed(N_("the engine failed on this position"))
            if self.started:
                deadline = min(end, now + SILENCE_S)

    async def wait_stopped(self) -> None:
        """After a stop: wait (a little) for the running worker's ``done``."""
        if not self.started or self.finished:
            return
        until = time.monotonic() + STOP_WAIT_S
        while (data := await self._next(until)) is not None:
            if data.get("t") in ("done", "error"):
                self.finished = True
                return


# --- the worker's side ----------------------------------------------------------------------------


async def _stop_until_done(searcher: Searcher, search: asyncio.Future[Any]) -> None:
    """Stop ``searcher`` until its search is over: the search clears the flag when it begins,
    so a stop asked while the moves were replayed is repeated."""
    while not search.done():
        searcher.stop()
        await asyncio.sleep(STOP_POLL_S)


async def engine_live_analysis(
    ctx: dict[str, Any],
    stream_id: str,
    variant: str,
    start_fen: str,
    texts: list[str],
    movetime_ms: int,
    multipv: int,
    queued_at: float,
    owner: str | None = None,
) -> str:
    """arq job: a live analysis, its iterations published on its channel (see the module
    docstring); returns why it ended (``finished``, ``stopped`` or ``error``).  Its owner's
    claim is freed at the end (by the server too: whichever comes first)."""
    redis: Redis = ctx["redis"]
    channel, stop_key = channel_of(stream_id), stop_key_of(stream_id)

    async def say(message: dict[str, Any]) -> None:
        await redis.publish(channel, json.dumps(message, separators=(",", ":")))

    if await redis.exists(stop_key):
        await say({"t": "done", "reason": "stopped"})
        return "stopped"
    loop = asyncio.get_running_loop()
    updates: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    def progress(data: dict[str, Any]) -> None:  # in the search's thread
        loop.call_soon_threadsafe(updates.put_nowait, data)

    async def publish_updates() -> None:
        # one publisher, so the updates arrive in the order of the iterations
        while (data := await updates.get()) is not None:
            await say({"t": "info", "d": data})

    await say({"t": "started"})
    searcher = Searcher(hash_mb=engine_hash_mb())
    run = functools.partial(
        compute_live_analysis,
        variant,
        start_fen,
        texts,
        movetime_ms,
        multipv,
        searcher=searcher,
        progress=progress,
    )
    search: asyncio.Future[dict[str, Any]] = loop.run_in_executor(ctx["cpu"], run)
    publisher = asyncio.create_task(publish_updates())
    stopper: asyncio.Task[None] | None = None
    try:
        next_beat = time.monotonic() + BEAT_S
        while not search.done():
            await asyncio.wait({search}, timeout=STOP_POLL_S)
            if stopper is None and await redis.exists(stop_key):
                stopper = asyncio.create_task(_stop_until_done(searcher, search))
            if time.monotonic() >= next_beat:
                next_beat = time.monotonic() + BEAT_S
                await say({"t": "beat"})
        updates.put_nowait(None)
        await publisher
        try:
            search.result()
        except Exception as exc:  # a position the engine cannot search: the viewer is told
            await say({"t": "error", "error": f"{type(exc).__name__}: {exc}"})
            return "error"
        reason = "stopped" if stopper is not None else "finished"
        await say({"t": "done", "reason": reason})
        metrics.ENGINE_SECONDS.labels("analysis").observe(max(0.0, time.time() - queued_at))
        return reason
    finally:
        publisher.cancel()
        if not search.done():  # the job was cancelled (its timeout, the worker shutting down)
            stopper = stopper or asyncio.create_task(_stop_until_done(searcher, search))
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.shield(stopper)
        # its tables are freed in the background (inline, a big table would stall this loop)
        if search.done():
            searcher.new_game()
        else:
            search.add_done_callback(lambda _f: searcher.new_game())
        if owner is not None:
            with contextlib.suppress(RedisError, OSError):  # it lapses by itself otherwise
                share: RedisShare = ctx["share"]
                await share.leave(owner, ANALYSIS, ctx.get("job_id", ""))
