"""A live game's move from its reading to its stored row: one :class:`MoveStore`, two ways.

A move is read and judged on a copy of the game's board (CPU work: a position can have tens of
thousands of legal moves), then stored with the database's guarded update.  How those two
halves are laid on threads depends on the database, and only here:

- :class:`OneJobMoveStore` (PostgreSQL, 8 database threads): both halves in one database-thread
  job, so the move waits for one thread only.  One process stored 14-25% more moves a second
  that way in ``bench/cluster.py``.
- :class:`TwoStepMoveStore` (SQLite, one database thread that every game's store waits for):
  the move is read in a game-views thread, then stored by a database job.  In
  ``bench/grown_position.py`` (a game whose replies have 45,135 chains) another game's moves
  waited 483-645 ms behind each heavy move in one job, 9-88 ms with the read apart (compiled
  build, docs/benchmarks.md).

The reading itself is the caller's (the game package's), handed in as a function: storage
knows nothing of boards.  Neither way changes anything in memory: the caller applies the move
to its cached game after the store, on the event loop.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy.exc import OperationalError

from exochess.web.domain import N_, PositionTooLarge, ServerBusy, Stamp, StorageUnavailable
from exochess.web.storage.store import Finish, Storage
from exochess.web.storage.threads import DbThreads, ThreadJob

log = logging.getLogger("exochess.web")
T = TypeVar("T")

MAX_MOVES_WAITING = 1024
"""Moves a server process reads and stores at once in one-job mode (queued or running); past
that a move is refused as busy (503), and the player sends it again.  The bound covers the wait
for a database thread too: with 256, one process under 400 games moving at once refused 3,903
moves in 15 s that it stored a moment later; 1,024 moves are about 3 s of one process's
stores."""
MOVE_TIME_LIMIT_S = 20.0
"""How long a move's reading and storing may take in one job before its player is told the
position is too large (a game's start is bounded, but a later position can have tens of
thousands of moves: ``bench/grown_position.py``)."""


class MoveRead(Protocol):
    """What reading a move gives the store: the move's canonical text, and the result columns
    when it ends the game."""

    @property
    def text(self) -> str: ...

    @property
    def finish(self) -> Finish | None: ...


R = TypeVar("R", bound=MoveRead)


class Runner(Protocol):
    """A bounded pool that runs CPU work off the event loop
    (:class:`~exochess.web.compute.cpuwork.CpuWork`)."""

    async def run(self, what: str, fn: Callable[..., T], *args: Any, owner: str | None = None) -> T: ...


class MoveAbandoned(Exception):
    """Ends a :class:`MoveJob` whose caller gave up before its store began."""


class MoveJob(Generic[R]):
    """Reading a move and storing it, as one job of a database thread.  A job whose caller
    gave up (timed out or cancelled) before the store began stores nothing."""

    def __init__(self, storage: Storage, game_id: str, ply: int, stamp: Stamp, read: Callable[[], R]) -> None:
        self.storage = storage
        self.game_id = game_id
        self.ply = ply
        self.stamp = stamp
        self.read = read
        self.abandoned = False
        """Set on the loop when nobody waits for the result any more (read by the thread)."""

    def __call__(self) -> R:
        move = self.read()
        if self.abandoned:
            raise MoveAbandoned  # nobody takes the result: nothing is stored
        self.storage.add_move(self.game_id, self.ply, move.text, move.finish, self.stamp)
        return move


class MoveStore(ABC):
    """Reads and stores a live game's moves; see the module docstring for the two ways."""

    def __init__(self, storage: Storage, threads: DbThreads) -> None:
        self.storage = storage
        self.threads = threads

    @abstractmethod
    async def play(
        self, game_id: str, ply: int, stamp: Stamp, read: Callable[[], R], unsure: Callable[[], None]
    ) -> R:
        """Run ``read`` (the move read on a copy of the board: CPU work) and store its move as
        move ``ply`` of ``game_id`` with the clocks ``stamp``; return what ``read`` returned.

        Raises :class:`~exochess.web.storage.store.ConflictError` when another writer was
        first, and the errors of ``read``.  When the caller gives up (a time bound, a
        cancellation) while the store may still complete, ``unsure`` is called: the game's
        outcome is then unknown, and the caller reads it again."""


class OneJobMoveStore(MoveStore):
    """PostgreSQL's way: reading and storing in one database-thread job (:class:`MoveJob`),
    at most :data:`MAX_MOVES_WAITING` at once, each within :data:`MOVE_TIME_LIMIT_S`."""

    def __init__(self, storage: Storage, threads: DbThreads) -> None:
        super().__init__(storage, threads)
        self.waiting = 0
        """Moves read and stored in the database threads now."""

    async def play(
        self, game_id: str, ply: int, stamp: Stamp, read: Callable[[], R], unsure: Callable[[], None]
    ) -> R:
        if self.waiting >= MAX_MOVES_WAITING:
            raise ServerBusy(N_("the server is busy ({what}); try again in a moment"), what="moves")
        move = MoveJob(self.storage, game_id, ply, stamp, read)
        job = ThreadJob("move", move)
        self.waiting += 1
        job.on_end = self._ended  # a timeout or a client leaving keeps the count
        try:
            self.threads.submit(job, urgent=True)
        except RuntimeError:  # the threads are shut down (server stopping)
            job.dropped()
            raise
        overtime = PositionTooLarge(
            f"position too large: reading the move takes more than {MOVE_TIME_LIMIT_S:g} s"
        )
        try:
            result = await job.result(MOVE_TIME_LIMIT_S, overtime)
        except OperationalError as exc:
            log.warning("database unavailable: %s", exc.orig)
            raise StorageUnavailable(N_("the database is busy or unreachable; try again")) from exc
        except (PositionTooLarge, asyncio.CancelledError):
            # nobody takes the result: the job stops before its store if that has not begun;
            # one under way may still complete, so the game is read again after it
            move.abandoned = True
            unsure()
            raise
        return result

    def _ended(self) -> None:
        self.waiting -= 1


class TwoStepMoveStore(MoveStore):
    """SQLite's way: the move read in ``reader``'s pool (a game-views thread, with that pool's
    bounds), then stored by an urgent database job."""

    def __init__(self, storage: Storage, threads: DbThreads, reader: Runner) -> None:
        super().__init__(storage, threads)
        self.reader = reader

    async def play(
        self, game_id: str, ply: int, stamp: Stamp, read: Callable[[], R], unsure: Callable[[], None]
    ) -> R:
        move = await self.reader.run("reading the move", read)
        try:
            await self.threads.call(
                self.storage.add_move, game_id, ply, move.text, move.finish, stamp, urgent=True
            )
        except asyncio.CancelledError:
            unsure()  # the write may still complete in its thread
            raise
        return move


def move_store(storage: Storage, threads: DbThreads, reader: Runner) -> MoveStore:
    """The way of ``storage``'s database: two steps on SQLite, one job elsewhere."""
    if storage.is_sqlite:
        return TwoStepMoveStore(storage, threads, reader)
    return OneJobMoveStore(storage, threads)
