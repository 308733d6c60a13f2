"""Game reports: a finished game's every position searched by the engine, stored with the game,
and judged for whoever opens it (docs/analysis.md).

- *Asked for* by anyone on any finished (or aborted) game with moves (:meth:`Reports.request`,
  ``POST /api/games/{id}/report``), never for a game between people still being played (fair
  play, :mod:`.fairplay`); *queued automatically* for every finished rated game, run only while
  the engine has nothing else to do.
- *Run* by a task of each server (:meth:`Reports.start`), one report and one position at a time,
  each position a job of the engine backend at the lowest priority
  (:meth:`~exochess.web.compute.enginepool.EngineBackend.report_position`: behind every computer
  move and analysis; on one process a running position is even stopped for them).  Each position
  is searched to the same node budget (the setting ``EXOCHESS_REPORT_NODES``), so a report does
  not depend on the machine's load, and stored as soon as it is searched
  (:mod:`.reportstore`): a restarted server, or another one in Redis mode once the lease has
  lapsed, resumes the report where it stopped.
- *Shown* from the stored scores (:meth:`Reports.view`, ``GET /api/games/{id}/report``): the
  same for every viewer; marks and accuracies are worked out by :mod:`exochess.review` with the
  game's fitted win-probability curve.  While it runs the view says how far it got; the page
  polls it.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from exochess.board import Board
from exochess.review import BLUNDER, INACCURACY, MISTAKE, Review, Score, review, win_curve
from exochess.web.compute.cpuwork import CpuWork
from exochess.web.compute.enginepool import EngineBackend
from exochess.web.domain import (
    N_,
    Color,
    Conflict,
    EngineDisabled,
    EngineFailed,
    GameNotFound,
    GameServiceError,
    GameStatus,
    ServerBusy,
    StorageUnavailable,
    TooManyEngineJobs,
)
from exochess.web.game.fairplay import refuse_engine_help
from exochess.web.game.reportstore import (
    DONE,
    FAILED,
    ReportRow,
    add_report,
    claim_next,
    finish,
    load_report,
    rated_without_report,
    release,
    release_all,
    store_position,
    unfinished_of,
    waiting,
)
from exochess.web.storage.store import GameRow, Storage, now

log = logging.getLogger("exochess.web")
T = TypeVar("T")

REPORT_NODES = 3000
"""Nodes searched in each position (the setting ``EXOCHESS_REPORT_NODES``): 55 ms of CPU a
position in Fugue, 110 ms in Rebel Fury (depth 2-3, the interpreted engine), so a 60-move game's
121 positions take 7 to 13 s of one core (``bench/report_budget.py``, docs/benchmarks.md)."""
LEASE_S = 30.0
"""A server holds the report it runs this long after each position it stores (Redis mode: then
another server may take it over)."""
SCAN_S = 5.0
"""How often a server looks for work it was not told of (another server's requests, lapsed
leases, rated games just finished)."""
IDLE_POLL_S = 1.0
"""How often a server waiting for the engine to be idle (automatic reports) looks again."""
AUTO_WITHIN = dt.timedelta(days=1)
"""Rated games finished this recently get an automatic report."""
PER_OWNER = 2
"""Unfinished reports one owner (account, else address) may have asked for."""
QUEUE_LIMIT = 50
"""Reports asked for by people that may wait at once; more are refused (503, Retry-After)."""
RETRIES = 3
"""A position the engine fails on this many times in a row fails the report."""
SERVER_OWNER = "server"
"""Who an automatic report is charged to."""

Db = Callable[..., Awaitable[Any]]
"""The service's database threads (``GameService.db``)."""


def _game_end(variant: str, start_fen: str, moves: list[str]) -> str | None:
    """The result of the game's final position if the rules end the game there (a royal
    capture, no move), else None (a resignation, a flag: the position is searched). CPU work."""
    board = Board(variant, fen=start_fen)
    for text in moves:
        board.push_text(text)
    outcome = board.outcome()
    return outcome.result() if outcome is not None else None


def position_entry(found: dict[str, Any]) -> dict[str, Any]:
    """A searched position as stored: the score and mate turned to White's point of view."""
    black = found.get("side_to_move") == Color.BLACK.value
    cp, mate = found.get("score_cp"), found.get("mate")
    return {
        "cp": None if mate is not None or cp is None else (-cp if black else cp),
        "mate": None if mate is None else (-mate if black else mate),
        "best": found.get("best"),
        "pv": list(found.get("pv") or []),
        "depth": found.get("depth"),
        "nodes": found.get("nodes"),
    }


def _score(entry: dict[str, Any]) -> Score:
    return Score(cp=entry.get("cp"), mate=entry.get("mate"), result=entry.get("result"))


def report_json(row: ReportRow, game: GameRow) -> dict[str, Any]:
    """What a viewer is sent: the status and progress, and once done the judged game."""
    out: dict[str, Any] = {
        "status": row.status,
        "auto": row.auto,
        "nodes": row.nodes,
        "done": len(row.positions),
        "total": row.total,
        "error": row.error,
        "report": None,
    }
    if row.status != DONE or len(row.positions) != row.total:
        return out
    curve = win_curve(game.variant)
    white_first = Color.to_move(game.start_fen, 0) == Color.WHITE
    judged: Review = review([_score(e) for e in row.positions], white_first, curve)
    moves: list[dict[str, Any]] = []
    for m in judged.moves:
        before = row.positions[m.ply]
        played = game.moves[m.ply]
        best = before.get("best")
        moves.append(
            {
                "ply": m.ply,
                "move": played,
                "color": Color.WHITE.value if m.white else Color.BLACK.value,
                "mark": m.mark,
                "loss": round(m.loss, 1),
                "accuracy": round(m.accuracy, 1),
                "best": best if best != played else None,
                "line": before.get("pv") if best != played else [],
            }
        )
    players = {
        c: {
            "accuracy": None if p.accuracy is None else round(p.accuracy, 1),
            "inaccuracies": p.inaccuracies,
            "mistakes": p.mistakes,
            "blunders": p.blunders,
        }
        for c, p in ((Color.WHITE.value, judged.white), (Color.BLACK.value, judged.black))
    }
    out["report"] = {
        "k": curve.k,
        "thresholds": {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER},
        "white_percent": [round(p, 1) for p in judged.white_percent],
        "scores": [
            {"cp": e.get("cp"), "mate": e.get("mate"), "result": e.get("result")} for e in row.positions
        ],
        "moves": moves,
        "players": players,
    }
    return out


def none_json(game: GameRow) -> dict[str, Any]:
    """The view of a game nobody asked a report of."""
    return {
        "status": "none",
        "auto": False,
        "nodes": None,
        "done": 0,
        "total": len(game.moves) + 1,
        "error": None,
        "report": None,
    }


class Reports:
    """Asks for, runs and shows game reports (see the module docstring).

    Ports: the storage (its engine for :mod:`.reportstore`; games read with ``load_game``), the
    service's database threads ``db``, a CPU pool for replays, the engine backend (None: no
    reports on this server).  ``shared``: other servers run reports too (Redis mode), so a
    starting server must not take their leases."""

    def __init__(
        self,
        storage: Storage,
        db: Db,
        cpu: CpuWork,
        pool: EngineBackend | None,
        *,
        nodes: int = REPORT_NODES,
        auto: bool = True,
        lease_s: float = LEASE_S,
        shared: bool = False,
        scan_s: float = SCAN_S,
    ) -> None:
        self.storage = storage
        self.db = db
        self.cpu = cpu
        self.pool = pool
        self.nodes = nodes
        self.auto = auto
        self.lease_s = lease_s
        self.shared = shared
        self.scan_s = scan_s
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._held: tuple[str, dt.datetime] | None = None
        """The report this server runs now and its lease."""

    # --- asking and showing ------------------------------------------------------------------

    async def _game(self, game_id: str) -> GameRow:
        row: GameRow | None = await self.db(self.storage.load_game, game_id)
        if row is None:
            raise GameNotFound(game_id)
        return row

    async def view(self, game_id: str) -> dict[str, Any]:
        """The report of ``game_id`` as the page shows it (status ``none`` if nobody asked)."""
        game = await self._game(game_id)
        row: ReportRow | None = await self.db(load_report, self.storage.engine, game_id)
        return none_json(game) if row is None else report_json(row, game)

    async def request(self, game_id: str, owner: str) -> dict[str, Any]:
        """Queue the report of ``game_id`` for ``owner`` (or return the one there).

        Refused: for a game between people being played (fair play, 403), for a game against the
        computer still being played or one without a move (409), when the owner already waits
        for :data:`PER_OWNER` reports (429) or :data:`QUEUE_LIMIT` wait (503)."""
        game = await self._game(game_id)
        refuse_engine_help(game)
        if game.status == GameStatus.ACTIVE:
            raise Conflict(N_("the game is still being played: its report can be asked for once it is over"))
        if not game.moves:
            raise Conflict(N_("no move was played in this game: there is nothing to analyse"))
        if self.pool is None:
            raise EngineDisabled(N_("the engine is disabled on this server"))
        engine = self.storage.engine
        row: ReportRow | None = await self.db(load_report, engine, game_id)
        if row is None or row.status == FAILED:
            if await self.db(unfinished_of, engine, owner) >= PER_OWNER:
                raise TooManyEngineJobs(
                    N_("you already wait for {count} game reports: ask again once one is done"),
                    retry_after=30,
                    count=PER_OWNER,
                )
            if await self.db(waiting, engine) >= QUEUE_LIMIT:
                raise ServerBusy(
                    N_("too many game reports are waiting: try again in a minute"), retry_after=60
                )
        if row is None or row.status == FAILED or row.auto:
            row = await self.db(add_report, engine, game_id, owner, self.nodes, len(game.moves) + 1, False)
            self._wake.set()
        assert row is not None
        return report_json(row, game)

    # --- running -----------------------------------------------------------------------------

    def start(self) -> None:
        """Start this server's runner (inside the running event loop)."""
        if self.pool is not None and self._task is None:
            self._task = asyncio.create_task(self._runner())

    async def aclose(self) -> None:
        """Stop the runner; the report it was running goes back to the queue, as far as it got."""
        held = self._held
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        held = self._held or held
        if held is not None:
            self._held = None
            with contextlib.suppress(Exception):
                await self.db(release, self.storage.engine, *held)

    async def _runner(self) -> None:
        if not self.shared:
            # on its own, a server starting finds only its dead predecessor's leases
            with contextlib.suppress(GameServiceError):
                freed = await self.db(release_all, self.storage.engine)
                if freed:
                    log.info("resuming %d unfinished game report(s)", freed)
        while True:
            try:
                worked = await self._step()
            except asyncio.CancelledError:
                raise
            except StorageUnavailable:
                worked = False
            except Exception:
                log.exception("the game reports' runner failed; going on")
                worked = False
            if not worked:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.scan_s)

    async def _step(self) -> bool:
        """Run one report if there is one to run; whether there was."""
        engine = self.storage.engine
        self._wake.clear()  # set again by a request that comes while this step runs
        row: ReportRow | None = await self.db(claim_next, engine, self.lease_s, False)
        if row is None and self.auto:
            await self._queue_rated()
            if self.pool is not None and await self.pool.idle():
                row = await self.db(claim_next, engine, self.lease_s, True)
        if row is None:
            return False
        await self._run(row)
        return True

    async def _queue_rated(self) -> None:
        """Queue the automatic reports of the rated games finished lately that have none."""
        engine = self.storage.engine
        for game_id, plies in await self.db(rated_without_report, engine, now() - AUTO_WITHIN, 10):
            await self.db(add_report, engine, game_id, SERVER_OWNER, self.nodes, plies + 1, True)

    async def _run(self, row: ReportRow) -> None:
        assert row.lease_until is not None and self.pool is not None
        engine = self.storage.engine
        lease: dt.datetime | None = row.lease_until
        self._held = (row.game_id, row.lease_until)
        try:
            game = await self._game(row.game_id)
            if game.status == GameStatus.ACTIVE or len(game.moves) + 1 != row.total:
                # never for a game being played (a report is only ever queued for a finished one)
                await self.db(finish, engine, row.game_id, row.lease_until, FAILED, "the game is not over")
                return
            positions = list(row.positions)
            end = await self.cpu.run(
                "replaying the game", _game_end, game.variant, game.start_fen, game.moves
            )
            failures = 0
            while len(positions) < row.total and lease is not None:
                ply = len(positions)
                if row.auto and (self._wake.is_set() or not await self.pool.idle()):
                    # an automatic report makes way for people's reports and the engine's other work
                    await self.db(release, engine, row.game_id, lease)
                    return
                if ply == len(game.moves) and end is not None:
                    positions.append({"result": end})
                else:
                    try:
                        found = await self.pool.report_position(
                            game.variant, game.start_fen, game.moves[:ply], row.nodes, owner=row.owner
                        )
                    except EngineFailed as exc:
                        failures += 1
                        if failures >= RETRIES:
                            await self.db(finish, engine, row.game_id, lease, FAILED, exc.message)
                            return
                        await asyncio.sleep(IDLE_POLL_S)
                        continue
                    failures = 0
                    positions.append(position_entry(found))
                lease = await self.db(store_position, engine, row.game_id, lease, positions, self.lease_s)
                if lease is not None:
                    self._held = (row.game_id, lease)
            if lease is not None and len(positions) == row.total:
                await self.db(finish, engine, row.game_id, lease, DONE)
                log.info("game report done", extra={"game": row.game_id})
        finally:
            self._held = None
