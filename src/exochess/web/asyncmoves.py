"""A move's store on PostgreSQL from the event loop, over psycopg's async connections.

The store of a move that does not end its game is one statement (``_STORE_MOVE`` of
:mod:`exochess.web.storage`: the guarded update of the game and the insert of its row).  Run
from a database thread, each of its round trips ends with a wait for the interpreter lock,
which the event loop and the other threads hold in turn.  Here the event loop sends it and
awaits the answer like any socket: no thread, and the driver's work between round trips is
done by the loop itself.  The statement is SQLAlchemy's, compiled once to psycopg's SQL text;
the guard (exactly once per ply) is the statement's own.

A few connections are kept (opened as needed, up to ``connections``); a move waits for a free
one.  A kept connection that the database dropped (PostgreSQL restarted) fails on its next
use: the move then runs once more on a new connection, which is safe because the statement
is guarded (a second run stores nothing and answers a conflict).  A database that does not
answer raises :class:`~exochess.web.domain.StorageUnavailable` (503).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import psycopg
from psycopg import pq
from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg
from sqlalchemy.engine import make_url

from exochess.web import metrics
from exochess.web.clock import Stamp
from exochess.web.domain import N_, StorageUnavailable
from exochess.web.storage import ConflictError, move_row, now, store_move_params, store_move_sql

log = logging.getLogger("exochess.web")

POOL = "move on loop"
"""The label of the stores' times in ``exochess_work_wait_seconds`` (waiting for a connection)
and ``exochess_work_run_seconds`` (the statement, its round trip included)."""
CONNECT_TIMEOUT_S = 5
"""How long opening a connection may take (a database that is down refuses at once)."""


def conninfo(url: str) -> str:
    """libpq's form of the SQLAlchemy URL ``url`` (``postgresql+psycopg://...``)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class AsyncMoves:
    """Stores moves with up to ``connections`` async connections to the database at ``url``."""

    def __init__(self, url: str, connections: int) -> None:
        self._conninfo = conninfo(url)
        self._sql, self._fixed = store_move_sql(PGDialect_psycopg())  # type: ignore[no-untyped-call]
        self._idle: list[psycopg.AsyncConnection[Any]] = []
        self._slots = asyncio.Semaphore(connections)
        self._closed = False

    async def _connect(self) -> psycopg.AsyncConnection[Any]:
        return await psycopg.AsyncConnection.connect(
            self._conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S
        )

    async def _run(self, conn: psycopg.AsyncConnection[Any], params: dict[str, Any]) -> bool:
        cursor = await conn.execute(self._sql, params)
        return await cursor.fetchone() is not None

    async def add_move(self, game_id: str, ply: int, text: str, stamp: Stamp | None) -> None:
        """Store move number ``ply`` (0-based) of a game whose stored ply must be ``ply`` (a
        move that does not end the game).  Raises :class:`ConflictError` if another move was
        stored first, :class:`StorageUnavailable` if the database does not answer."""
        params = {**self._fixed, **store_move_params(move_row(game_id, ply, text, stamp, now()))}
        queued = time.perf_counter()
        try:
            async with self._slots:
                start = time.perf_counter()
                metrics.WORK_WAIT.labels(POOL).observe(start - queued)
                stored = await self._store(params)
                metrics.WORK_RUN.labels(POOL).observe(time.perf_counter() - start)
        except psycopg.OperationalError as exc:
            log.warning("database unavailable: %s", exc)
            raise StorageUnavailable(N_("the database is busy or unreachable; try again")) from exc
        except psycopg.IntegrityError as exc:
            raise ConflictError(f"move {ply} of game {game_id} is already stored") from exc
        if not stored:
            raise ConflictError(f"game {game_id} is no longer at ply {ply}")

    async def _store(self, params: dict[str, Any]) -> bool:
        conn = self._idle.pop() if self._idle else None
        kept = conn is not None
        try:
            if conn is None:
                conn = await self._connect()
            try:
                return await self._run(conn, params)
            except psycopg.OperationalError:
                if not kept or not conn.broken:
                    raise
                # the database dropped a kept connection (a restart): once more on a new one
                await conn.close()
                conn = None
                conn = await self._connect()
                return await self._run(conn, params)
        finally:
            if conn is not None:
                if self._closed or conn.broken or conn.pgconn.transaction_status != pq.TransactionStatus.IDLE:
                    await conn.close()
                else:
                    self._idle.append(conn)

    async def close(self) -> None:
        """Close the kept connections (a store under way closes its own when it ends)."""
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            await conn.close()
