"""The game service: live games in memory, every change stored first, then broadcast."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import math
import os
import re
import secrets
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy.exc import OperationalError

from exochess.board import Board
from exochess.errors import ExochessError, FenError, IllegalMoveError, UnknownVariantError
from exochess.outcome import Outcome, Termination
from exochess.variants import find_variant
from exochess.web import metrics
from exochess.web.accounts.ratings import PlayerInfo, apply_game_result, player_infos
from exochess.web.compute.cpuwork import CpuWork, ThreadJob
from exochess.web.compute.enginepool import RANDOM_LEVEL, EngineBackend, EngineClock
from exochess.web.domain import (
    N_,
    Color,
    Conflict,
    EngineDisabled,
    GameNotFound,
    GameOver,
    GameServiceError,
    GameStatus,
    IllegalMove,
    InvalidRequest,
    NotYourTurn,
    Opponent,
    PlayerKind,
    PositionTooLarge,
    SeatChoice,
    SecretRequired,
    ServerBusy,
    StalePosition,
    Stamp,
    StorageUnavailable,
    TakebackAction,
    TooLarge,
    WrongSeat,
)
from exochess.web.game.clock import Clock, Expiry, Timing, epoch_ms, ms_between, timing_from_env
from exochess.web.game.history import HistoryJson
from exochess.web.game.legalview import EMPTY, LegalView
from exochess.web.game.positions import (
    PositionTooLargeError,
    aborted_by_text,
    game_view,
    left_game_text,
    legal_tree,
    lost_on_time_text,
    no_first_move_text,
    position_json,
    reason_text,
    variant_json,
)
from exochess.web.game.timecontrol import NO_CLOCK, TimeControl, TimeControlKind, stored_time_control
from exochess.web.live.hub import Hub
from exochess.web.live.movenote import MoveNote
from exochess.web.storage.store import ConflictError, Finish, GameRow, Storage, secret_matches
from exochess.web.storage.store import now as storage_now
from exochess.web.storage.threads import DbThreads, thread_count

log = logging.getLogger("exochess.web")
T = TypeVar("T")

MAX_LEVEL = 8
CACHE_GAMES = 5000
"""Live games kept in memory; older idle ones are reloaded from the database on demand."""
MAX_ANALYSIS_MOVES = 1000
ENGINE_RETRY_S = 1.0
"""Delay before the computer tries again to store a move the database refused (busy)."""
MAX_START_MOVES = 1000
"""Legal moves a game's set-up starting position may have: a live game keeps its board's list
of legal moves in memory, and checks moves against it (the starting positions of the three
games have 22 to 118; the position of issue 17 has 45,136)."""
LegalKey = tuple[int, str, str]
"""What a legal-move view was computed for: (ply, FEN, status)."""
TIME_FORFEIT = "time forfeit"
ABANDONED = "abandoned"
ABORTED = "aborted"
"""Terminations the site itself decides (the rules' own are :class:`Termination`'s)."""


@dataclass
class LiveGame:
    """A game in memory: its stored row, the board after its moves, and the FEN after each ply."""

    row: GameRow
    board: Board
    fens: list[str]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    state_cache: str | None = None
    history: HistoryJson = field(default_factory=HistoryJson)
    """The moves and lost pieces of the state, encoded a ply at a time."""
    legal_view: tuple[LegalKey, LegalView] | None = None
    """The legal-move tree of the current position, computed off the event loop (as JSON text:
    the collector neither tracks nor walks it)."""
    legal_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    absent_since: dict[Color, dt.datetime | None] = field(default_factory=dict)
    """Since when each seat has had no connection (None: it has one).  Kept in memory: a seat
    counts as gone since the game was loaded until it connects."""
    players: dict[Color, PlayerInfo | None] = field(default_factory=dict)
    """The accounts holding the seats, as shown to everyone (loaded with the game)."""
    stale: bool = False
    """Another process changed the stored game (Redis mode): read it again before use."""

    def seat_of(self, secret: str | None, user_id: int | None = None) -> Color | None:
        """The seat this secret opens (its digest compared in constant time), or else the seat
        the signed-in account ``user_id`` holds, if any."""
        if not secret:
            for color in Color:
                if user_id is not None and self.row.user_of(color) == user_id:
                    return color
            return None
        for color, stored in ((Color.WHITE, self.row.white_secret), (Color.BLACK, self.row.black_secret)):
            if secret_matches(secret, stored):
                return color
        return None

    def kind_of(self, color: Color) -> PlayerKind:
        return self.row.kind_of(color)

    def to_move(self) -> Color:
        return Color.of(self.board.turn)

    @property
    def time_control(self) -> TimeControl:
        return stored_time_control(self.row.time_control)

    def clock(self, timing: Timing) -> Clock | None:
        """The game's clocks after its last move (None without a time control)."""
        row = self.row
        last = row.stamps[-1] if row.stamps else None
        return Clock.of(self.time_control, row.created, len(row.moves), last, self.to_move(), timing)


class TimeRanOut(GameOver):
    """A move came after its side's time was out: the game has just ended instead."""


def _new_id() -> str:
    return secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")


GAME_ID = re.compile(r"[A-Za-z0-9]{8}")
"""What :func:`_new_id` makes (6 random bytes in URL-safe base64, ``-`` and ``_`` replaced): an
id of another shape names no game, and is answered without a database read."""


def is_game_id(text: object) -> bool:
    """Whether ``text`` has the shape of a game id (not whether that game exists)."""
    return isinstance(text, str) and GAME_ID.fullmatch(text) is not None


POSITION_TIME_ENV = "EXOCHESS_POSITION_TIME_LIMIT_S"
POSITION_TIME_LIMIT_S = 15.0
"""Wall-clock bound on serving a free position (analysis board, a new game's FEN): past it the
client gets "too large" instead of a stall."""


def position_time_limit() -> float:
    """The bound of free positions: ``$EXOCHESS_POSITION_TIME_LIMIT_S`` seconds if it is a
    positive number (a slow or crowded machine, where a position's few seconds of CPU take
    longer), else :data:`POSITION_TIME_LIMIT_S`."""
    text = os.environ.get(POSITION_TIME_ENV, "")
    try:
        value = float(text)
    except ValueError:
        return POSITION_TIME_LIMIT_S
    return value if math.isfinite(value) and value > 0 else POSITION_TIME_LIMIT_S


def analysis_board(variant: str, fen: str | None, moves: list[str]) -> Board:
    """A free position for the analysis board: ``moves`` played from ``fen`` (or the start)."""
    if len(moves) > MAX_ANALYSIS_MOVES:
        raise TooLarge(N_("at most {count} moves"), count=MAX_ANALYSIS_MOVES)
    try:
        board = Board(variant, fen=fen.strip() if fen and fen.strip() else None)
    except UnknownVariantError as exc:
        raise InvalidRequest(str(exc)) from exc
    except FenError as exc:
        raise InvalidRequest(N_("bad FEN: {reason}"), reason=str(exc)) from exc
    for i, text in enumerate(moves):
        try:
            board.push_text(text)
        except ExochessError as exc:  # unreadable or illegal: either way this line cannot be played
            raise IllegalMove(N_("move {number} ({move}): {reason}"), number=i + 1, move=text,
                              reason=str(exc)) from exc
    return board


def tree_after(board: Board, prefix: list[str]) -> dict[str, Any]:
    """The legal-move tree of ``board`` after the actions ``prefix`` (CPU work: run it off the
    event loop, on a board of the caller's own)."""
    try:
        view = legal_tree(board, prefix)
    except PositionTooLargeError as exc:
        raise PositionTooLarge(str(exc)) from exc
    except ExochessError as exc:
        raise InvalidRequest(N_("bad action in prefix: {reason}"), reason=str(exc)) from exc
    if prefix and not view["count"]:
        raise IllegalMove(N_("no legal move starts with {actions}"), actions=",".join(prefix))
    return view


def analysis_position(variant: str, fen: str | None, moves: list[str], prefix: list[str]) -> str:
    """The analysis board's answer as JSON text: ``moves`` played from ``fen``, with the
    legal-move tree after the actions ``prefix`` (CPU work: run it in a worker)."""
    board = analysis_board(variant, fen, moves)
    if board.is_game_over():
        if prefix:
            raise GameOver(N_("the game is over in this position"))
        return json.dumps(position_json(board))
    tree_after(board, prefix)  # checks the prefix (the tree is built again below, from the cache)
    return json.dumps(position_json(board, prefix))


def analysis_line(variant: str, fen: str | None, moves: list[str]) -> tuple[str, str, list[str]]:
    """(variant, starting FEN, canonical move texts) of an analysis request whose position is
    not over (CPU work: run it in a worker; raises the service's errors)."""
    board = analysis_board(variant, fen, moves)
    if board.is_game_over():
        raise GameOver(N_("the game is over in this position"))
    return board.variant.name, board.starting_fen, [str(m) for m in board.move_stack]


def view_of(board: Board) -> LegalView:
    """The legal-move view of a live game's ``board`` (:func:`game_view`), or an empty one
    naming the error when the position has too many moves to serve (CPU work)."""
    try:
        return LegalView.of(game_view(board))
    except PositionTooLargeError as exc:
        return LegalView.too_large(str(exc))


def played(board: Board, text: str) -> tuple[Board, Finish | None, LegalView | None]:
    """``board`` after the move ``text``, the result columns if that move ends the game, and
    else the legal-move view of the position after it (CPU work: run it off the event loop, on
    a board of the caller's own).  The view is made here, from the moves the game's end check
    has just listed, so that publishing the move needs no second trip to a worker."""
    try:
        move = board.parse_move(text)
    except IllegalMoveError as exc:
        raise IllegalMove(str(exc)) from exc
    except ExochessError as exc:
        raise InvalidRequest(str(exc)) from exc
    board.push(move)
    outcome = board.outcome()  # lists the legal moves after it here, off the loop
    if outcome:
        return board, GameService.finish_values(board, outcome), None
    return board, None, view_of(board)


MAX_MOVES_WAITING = 1024
"""Moves a server process reads and stores at once (queued or running); past that a move is
refused as busy (503), and the player sends it again.  The bound covers the wait for a
database thread too (the game-views pool's 256 covered the reading only, the database
queue had none): with 256, one process under 400 games moving at once refused 3,903 moves in
15 s that it stored a moment later; 1,024 moves are about 3 s of one process's stores."""
MOVE_TIME_LIMIT_S = 20.0
"""How long a move's reading and storing may take before its player is told the position is
too large (a game's start is bounded, see :data:`MAX_START_MOVES`, but a later position can
have tens of thousands of moves: ``bench/grown_position.py``)."""


class MoveAbandoned(Exception):
    """Ends a :class:`MoveJob` whose caller gave up before its store began."""


class MoveJob:
    """Reading a move and storing it, as one job of a database thread.

    A move used to take two trips off the event loop: one to a game-views thread to read and
    judge it, one to a database thread to store it, each waiting for a thread and then for the
    loop to take its result up.  Both halves now run in one job, so the move waits once.  The
    job changes nothing in memory: it reads the move on a copy of the board and returns it,
    and the caller applies it to the cached game after the commit, on the loop.  A job whose
    caller gave up (timed out or cancelled) before the store began stores nothing."""

    def __init__(
        self, storage: Storage, game_id: str, board: Board, text: str, ply: int, stamp: Stamp
    ) -> None:
        self.storage = storage
        self.game_id = game_id
        self.board = board
        self.text = text
        self.ply = ply
        self.stamp = stamp
        self.abandoned = False
        """Set on the loop when nobody waits for the result any more (read by the thread)."""

    def __call__(self) -> tuple[Board, Finish | None, LegalView | None]:
        after, finish, view = played(self.board, self.text)
        if self.abandoned:
            raise MoveAbandoned  # nobody takes the result: nothing is stored
        self.storage.add_move(self.game_id, self.ply, str(after.peek()), finish, self.stamp)
        return after, finish, view


def start_moves(variant: str, fen: str) -> int:
    """How many legal moves a new game's set-up position has (CPU work: run it in a worker)."""
    return len(Board(variant, fen=fen).raw_moves())


class GameService:
    """Creates, loads and plays games; raises the errors of :mod:`exochess.web.domain`."""

    def __init__(
        self, storage: Storage, pool: EngineBackend | None, hub: Hub, timing: Timing | None = None
    ) -> None:
        self.storage = storage
        # the rating update runs in the transaction that stores a game's result
        if apply_game_result not in storage.finish_hooks:
            storage.finish_hooks.append(apply_game_result)
        storage.move_groups.observer = metrics.MOVES_PER_STATEMENT.observe
        self.pool = pool
        self.hub = hub
        self.timing = timing if timing is not None else timing_from_env()
        self._timers: dict[str, tuple[dt.datetime, asyncio.TimerHandle]] = {}
        """Each timed game's next deadline and the timer that judges it then."""
        self._db = DbThreads(thread_count(storage.is_sqlite))
        self.moves_in_one_job = not storage.is_sqlite
        """Whether a move is read and stored in one database-thread job (:class:`MoveJob`), or
        read in a game-views thread and then stored by a database job.  One job is the faster
        path with PostgreSQL's 8 threads (one process stored 14-25% more moves a second in
        ``bench/cluster.py``).  SQLite has one thread, which every game's store waits for, and
        a move's read lists the position's legal moves: in ``bench/grown_position.py`` (a game
        set up with 5 moves whose replies have 45,135 chains) another game's moves waited
        483-645 ms behind each heavy move in one job, 9-88 ms with the read in a game-views
        thread (compiled build, docs/benchmarks.md)."""
        self._moves_waiting = 0
        """Moves read and stored in the database threads now (:data:`MAX_MOVES_WAITING`)."""
        self._games: OrderedDict[str, LiveGame] = OrderedDict()
        self._loading: dict[str, asyncio.Lock] = {}
        self._changed_while_loading: set[str] = set()
        """Games another process changed while this one was reading them (Redis mode)."""
        self._engine_tasks: dict[str, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[None]] = set()
        # CPU-heavy work off the event loop: live games' views and replays in one pool, free
        # positions (analysis board, new games' FENs) in another, so floods of the latter
        # never delay the former.
        self.cpu_games = CpuWork("game views", workers=2, max_jobs=256, timeout_s=20.0)
        self.cpu_free = CpuWork(
            "position views", workers=1, max_jobs=4, timeout_s=position_time_limit(), processes=True
        )
        self.closed = False
        self.listeners: list[Callable[[LiveGame], None]] = []
        """Told of every published change and every new game (the lobby's list of live games)."""

    async def db(self, fn: Callable[..., T], *args: Any, urgent: bool = False) -> T:
        """Run a storage call in the database thread (``urgent``: before the calls waiting
        that are not, for a move); a busy or unreachable database (the transaction rolled
        back) becomes :class:`StorageUnavailable`."""
        job = ThreadJob("db", fn, *args)
        self._db.submit(job, urgent=urgent)
        try:
            return await job.result()
        except OperationalError as exc:
            log.warning("database unavailable: %s", exc.orig)
            raise StorageUnavailable(N_("the database is busy or unreachable; try again")) from exc

    def close(self) -> None:
        self.closed = True
        for task in self._engine_tasks.values():
            task.cancel()
        for _deadline, timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self.cpu_games.close()
        self.cpu_free.close()
        self._db.shutdown(wait=True)

    # --- loading -----------------------------------------------------------------------

    async def get(self, game_id: str, *, view: bool = True) -> LiveGame:
        """The game ``game_id``, its time judged first (a deadline passed ends it here).

        With ``view`` (the default) its legal-move view is ready too; a move does without it
        (it is checked on the board), so that a process computes the views of the positions it
        publishes only, not also those of the moves it hears of from the others.
        """
        live = self._games.get(game_id)
        if live is not None:
            self._games.move_to_end(game_id)
            if live.stale:
                await self._refresh(live)
            if view:
                await self.prepare(live)
            await self.judge_time(live)
            return live
        if not is_game_id(game_id):
            raise GameNotFound(game_id)
        lock = self._loading.setdefault(game_id, asyncio.Lock())
        async with lock:
            live = self._games.get(game_id)
            if live is None:
                row = await self.db(self.storage.load_game, game_id)
                if row is None:
                    # keep nothing for an id that does not exist: a client asking for many
                    # made-up ids must not grow the server's memory (the next request asks again)
                    if self._loading.get(game_id) is lock:
                        del self._loading[game_id]
                    raise GameNotFound(game_id)
                live = await self.cpu_games.run("replaying the game", self._build, row)
                loaded = storage_now()
                live.absent_since = {c: None if self.hub.online(game_id)[c] else loaded for c in Color}
                await self._load_players(live)
                if game_id in self._changed_while_loading:
                    self._changed_while_loading.discard(game_id)
                    live.stale = True  # the row may have been read before that change
                self._games[game_id] = live
                self._evict()
        if view:
            await self.prepare(live)
        await self.judge_time(live)
        return live

    def _evict(self) -> None:
        """Forget the least recently used games beyond :data:`CACHE_GAMES` that nobody is using
        (they are reloaded from the database when needed again)."""
        excess = len(self._games) - CACHE_GAMES
        if excess <= 0:
            return
        for game_id in list(self._games)[: excess * 2]:
            if excess <= 0:
                break
            live = self._games[game_id]
            task = self._engine_tasks.get(game_id)
            if live.lock.locked() or self.hub.watchers(game_id) or (task is not None and not task.done()):
                continue
            del self._games[game_id]
            self._loading.pop(game_id, None)
            excess -= 1

    def _build(self, row: GameRow) -> LiveGame:
        board = Board(row.variant, fen=row.start_fen)
        fens = [board.fen()]
        for text in row.moves:
            board.push_text(text)
            fens.append(board.fen())
        board.is_game_over()  # lists the current moves here, off the loop (the board keeps them)
        return LiveGame(row=row, board=board, fens=fens)

    @staticmethod
    def _extend(board: Board, fens: list[str], row: GameRow) -> LiveGame:
        """``board`` (at ``len(fens) - 1`` plies of ``row``) brought to the end of ``row``'s moves."""
        for text in row.moves[board.ply() :]:
            board.push_text(text)
            fens.append(board.fen())
        board.is_game_over()  # lists the current moves here, off the loop (as _build does)
        return LiveGame(row=row, board=board, fens=fens)

    async def _reload(self, live: LiveGame) -> None:
        row = await self.db(self.storage.load_game, live.row.id)
        if row is not None:
            known = live.row.moves
            if row.start_fen == live.row.start_fen and row.moves[: len(known)] == known:
                # moves were only added (another process played them): play those on a copy
                # rather than replay the whole game
                fresh = await self.cpu_games.run(
                    "replaying the game", self._extend, live.board.copy(), list(live.fens), row
                )
            else:
                fresh = await self.cpu_games.run("replaying the game", self._build, row)
            live.row, live.board, live.fens = fresh.row, fresh.board, fresh.fens
            self._arm(live)
            live.state_cache = None
            live.legal_view = None
            await self._load_players(live)

    async def account_changed(self, user_id: int) -> None:
        """Show the games in memory that ``user_id`` plays with the account as it now is (a
        deleted account becomes "deleted player")."""
        for live in list(self._games.values()):
            if user_id in (live.row.white_user, live.row.black_user):
                await self._load_players(live)
                await self.publish(live)

    async def _load_players(self, live: LiveGame) -> None:
        """Read the names and ratings of the accounts holding the game's seats (again after a
        rated game ends: the ratings changed)."""
        row = live.row
        if row.white_user is None and row.black_user is None:
            live.players = {}
            return
        live.players = await self.db(player_infos, self.storage.engine, row)
        live.state_cache = None

    async def _refresh(self, live: LiveGame) -> None:
        """Read a game another process changed again (cleared first: a change announced during
        the read marks it stale again)."""
        async with live.lock:
            while live.stale:
                live.stale = False
                await self._reload(live)

    async def on_remote_change(
        self, game_id: str, changed: bool, delivered: bool, note: object = None
    ) -> None:
        """An envelope about ``game_id`` from another process (Redis mode): play its move
        ``note`` on the cached game if it follows on, or else forget what is cached; if the
        change came without a state (an engine worker stored a move), send the watchers here
        the state read again."""
        live = self._games.get(game_id)
        if live is None:
            loading = self._loading.get(game_id)
            if changed and loading is not None and loading.locked():
                self._changed_while_loading.add(game_id)
            return
        live.state_cache = None  # at least the presence in it changed
        if not changed:
            return
        if self._apply_note(live, MoveNote.from_json(note)):
            metrics.REMOTE_MOVES.labels("applied").inc()
            self._arm(live)
            if not delivered and self.hub.watchers(game_id):
                await self.prepare(live)
                await self.hub.deliver(game_id, self.state_text(live), coalesce=True)
            self.schedule_engine(live)
            return
        if note is not None:
            metrics.REMOTE_MOVES.labels("reloaded").inc()
        live.stale = True
        if not delivered and self.hub.watchers(game_id):
            with contextlib.suppress(GameServiceError):
                await self._refresh(live)
                await self.prepare(live)
                await self.hub.deliver(game_id, self.state_text(live), coalesce=True)
        if not live.stale:
            self.schedule_engine(live)

    def _apply_note(self, live: LiveGame, note: MoveNote | None) -> bool:
        """Play another process's stored move on the cached game; False (nothing changed) when
        the copy cannot take it: no note, a ply missed or the copy already stale, the copy in
        use (its lock held: a move or a reload is under way), or a move or position that does
        not match.  Synchronous, so that no other task sees the copy half changed."""
        if note is None or live.stale or live.lock.locked():
            return False
        row, board = live.row, live.board
        if row.status != GameStatus.ACTIVE or note.ply != board.ply() or note.ply != len(row.moves):
            return False
        try:
            move = board.parse_move(note.move)
        except ExochessError:
            return False
        board.push(move)
        if board.fen() != note.fen:
            board.pop()
            return False
        self._record_move(live, board, note.move, note.fen, note.stamp)
        row.updated = note.stamp.at
        return True

    @staticmethod
    def _record_move(live: LiveGame, board: Board, text: str, fen: str, stamp: Stamp) -> None:
        """The cached game after one more stored move: ``board`` (already after it), the
        move's text, the FEN after it and its clock stamp; the cached state is out of date."""
        live.board = board
        live.fens.append(fen)
        live.row.moves.append(text)
        live.row.stamps.append(stamp)
        live.row.ply = board.ply()
        live.row.takeback_offer = None
        live.state_cache = None

    async def resync_all(self) -> None:
        """Changes may have been missed (the Redis subscription was lost): every cached game is
        stale, and the watched ones are sent their state again."""
        for game_id in list(self._games):
            await self.on_remote_change(game_id, True, False)

    def _in_background(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _resync_later(self, live: LiveGame) -> None:
        """Reload ``live`` from the database once its lock is free (after a cancelled write
        whose outcome is unknown)."""

        async def resync() -> None:
            async with live.lock:
                with contextlib.suppress(GameServiceError):
                    await self._reload(live)

        task = asyncio.create_task(resync())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # --- state -------------------------------------------------------------------------

    @staticmethod
    def _legal_key(live: LiveGame) -> LegalKey:
        return (live.board.ply(), live.board.fen(), live.row.status)

    async def prepare(self, live: LiveGame) -> None:
        """Compute the legal-move view of the game's position, if not done yet, off the loop.

        A position too large to list gets an empty view with an ``error`` (the game can
        still be resigned); the state carries it as ``legal_error``.
        """
        if live.legal_view is not None and live.legal_view[0] == self._legal_key(live):
            return
        async with live.legal_lock:
            # the game may move on while its view is computed: then compute again
            while True:
                key = self._legal_key(live)
                if live.legal_view is not None and live.legal_view[0] == key:
                    return
                view = EMPTY
                if live.row.status == GameStatus.ACTIVE:
                    # A copy: the worker thread must not share the board moves are played on
                    # (the copy shares only the listed moves, a list nobody changes).
                    board = live.board.copy()
                    try:
                        view = await self.cpu_games.run("listing its legal moves", view_of, board)
                    except PositionTooLarge as exc:
                        view = LegalView.too_large(str(exc))
                if self._legal_key(live) == key:
                    live.legal_view = (key, view)
                    live.state_cache = None

    async def legal_after(self, live: LiveGame, ply: int, prefix: list[str]) -> dict[str, Any]:
        """The legal-move tree after the first actions ``prefix`` of the move at ``ply``."""
        if live.row.status != GameStatus.ACTIVE:
            raise GameOver(N_("the game is over ({reason})"), reason=live.row.reason or "")
        if ply != live.board.ply():
            raise StalePosition(N_("stale position: the game is at ply {now}, not {ply}"),
                                now=live.board.ply(), ply=ply)
        return await self.cpu_games.run("listing its legal moves", tree_after, live.board.copy(), prefix)

    async def analysis_position(
        self, variant: str, fen: str | None, moves: list[str], prefix: list[str]
    ) -> str:
        """:func:`analysis_position`, off the event loop in the bounded pool of free positions."""
        return await self.cpu_free.run(
            "listing its legal moves", analysis_position, variant, fen, moves, prefix
        )

    def state(self, live: LiveGame) -> dict[str, Any]:
        """The game's state; its ``legal`` tree is that of :meth:`prepare` (called by
        :meth:`get` and :meth:`publish`), never computed here on the event loop."""
        state, view = self._state_fields(live)
        moves, captured = self._history(live)
        state["fens"] = live.fens
        state["moves"] = json.loads(moves)
        state["captured"] = captured
        state["legal"] = json.loads(view.actions)
        state["annotations"] = json.loads(view.annotations)
        return state

    @staticmethod
    def _history(live: LiveGame) -> tuple[str, dict[str, list[str]]]:
        """The game's moves as JSON text and the pieces each side lost."""
        return live.history.update(live.board, live.fens, live.row.moves)

    def _legal_now(self, live: LiveGame) -> LegalView:
        """The view the state carries: none for a finished game or one not prepared yet."""
        view = live.legal_view[1] if live.legal_view and live.legal_view[0] == self._legal_key(live) else None
        if view is None:
            return EMPTY
        if live.row.status != GameStatus.ACTIVE:
            return LegalView.too_large(view.error) if view.error else EMPTY
        return view

    def _state_fields(self, live: LiveGame) -> tuple[dict[str, Any], LegalView]:
        """The state without its history (``fens``, ``moves``, ``captured``), ``legal`` tree and
        ``annotations``, and the view the last two are in."""
        row, board = live.row, live.board
        view = self._legal_now(live)
        players = {}
        for color in Color:
            kind = live.kind_of(color)
            players[color] = {
                "kind": kind, "level": row.level if kind == PlayerKind.ENGINE else None,
                "name": row.name_of(color), "user": live.players.get(color),
            }
        return {
            "type": "state",
            "id": row.id,
            "variant": variant_json(board.variant),
            "start_fen": row.start_fen,
            "fen": board.fen(),
            "ply": board.ply(),
            "turn": live.to_move(),
            "status": row.status,
            "result": row.result,
            "termination": row.termination,
            "reason": row.reason,
            "players": players,
            "takeback_offer": row.takeback_offer,
            "rematch_id": row.rematch_id,
            "time_control": stored_time_control(row.time_control).to_json(),
            "clock": self._clock_json(live),
            "rated": row.rated,
            "online": self.hub.online(row.id),
            "absent_since": self._absent_json(live),
            "legal_count": view.count,
            "legal_error": view.error,
        }, view

    def _clock_json(self, live: LiveGame) -> dict[str, Any] | None:
        clock = live.clock(self.timing)
        if clock is None or live.row.status != GameStatus.ACTIVE:
            # a finished game shows the clocks as they stood after its last move
            return None if clock is None else {**clock.to_json(), "running": None, "deadline": None}
        return clock.to_json()

    @staticmethod
    def _absent_json(live: LiveGame) -> dict[str, int | None]:
        return {c: None if (t := live.absent_since.get(c)) is None else epoch_ms(t) for c in Color}

    def state_text(self, live: LiveGame) -> str:
        """The game's state as JSON text (cached until the game changes).  The moves (encoded
        a ply at a time, :class:`~exochess.web.game.history.HistoryJson`), the legal-move tree and the
        rule annotations (the position's rule states, computed with its legal moves) are
        spliced in already encoded."""
        if live.state_cache is None:
            state, view = self._state_fields(live)
            moves, captured = self._history(live)
            head = json.dumps(state)
            live.state_cache = (
                f'{head[:-1]}, "fens": {json.dumps(live.fens)}, "moves": {moves}, '
                f'"captured": {json.dumps(captured)}, "legal": {view.actions}, '
                f'"annotations": {view.annotations}}}'
            )
        return live.state_cache

    async def publish(self, live: LiveGame, note: MoveNote | None = None) -> None:
        """Send the game's new state to its watchers (here and, in Redis mode, in the other
        processes: ``note`` is the one move that made it, which they play on their copies;
        without one they read the game again)."""
        live.state_cache = None
        self._arm(live)
        await self.prepare(live)
        # the note holds only if the game is still just after that move (no other change
        # came between the lock's release and now; a takeback and another move would leave
        # the same ply in another position)
        fits = note is not None and live.board.ply() == note.ply + 1 and live.fens[-1] == note.fen
        await self.hub.broadcast(live.row.id, self.state_text(live), coalesce=True, changed=True,
                                 note=note.to_json() if note is not None and fits else None)
        for listener in self.listeners:
            listener(live)

    async def announce_presence(self, live: LiveGame) -> None:
        """Tell this process's watchers which seats are online and since when the others are
        gone (a small message, not the whole state), after a seat here came or went.

        Only here: each process tells its own watchers what it knows (its seats and those the
        others announced, see :meth:`remote_presence`).  A message sent to every process would
        carry the sender's view, which can be older than the receiver's: a watcher was left
        seeing a connected seat offline (the last message it got was the other server's, sent
        before that server heard of the seat)."""
        await self.hub.deliver(live.row.id, self._presence_update(live))

    def _presence_update(self, live: LiveGame) -> str:
        """Start or stop the seats' absence clocks from the site's presence; the message."""
        live.state_cache = None  # the state's "online" changed too
        online = self.hub.online(live.row.id)
        moment = storage_now()
        for color in Color:
            if online[color]:
                live.absent_since[color] = None
            elif live.absent_since.get(color) is None:
                live.absent_since[color] = moment
        return json.dumps({"type": "presence", "online": online, "absent_since": self._absent_json(live)})

    async def remote_presence(self, game_id: str) -> None:
        """Seats held on another server came or went, or that server died (Redis mode): the
        absence clocks here follow, so that a claim through this server counts the same
        absence, and this process's watchers are told."""
        live = self._games.get(game_id)
        if live is not None:
            await self.hub.deliver(game_id, self._presence_update(live))

    # --- time -----------------------------------------------------------------------------

    def _arm(self, live: LiveGame) -> None:
        """Have the game judged at its next deadline, with or without anybody connected."""
        game_id = live.row.id
        clock = live.clock(self.timing) if live.row.status == GameStatus.ACTIVE else None
        current = self._timers.get(game_id)
        if clock is None or self.closed:
            if current is not None:
                current[1].cancel()
                del self._timers[game_id]
            return
        deadline = clock.deadline
        if current is not None:
            if current[0] == deadline:
                return
            current[1].cancel()
        delay_s = max(0.0, ms_between(storage_now(), deadline) / 1000) + 0.001
        loop = asyncio.get_running_loop()
        self._timers[game_id] = (deadline, loop.call_later(delay_s, self._deadline_reached, game_id))

    def _deadline_reached(self, game_id: str) -> None:
        self._timers.pop(game_id, None)

        async def judge() -> None:
            try:
                await self.get(game_id)  # judges the game's time
            except StorageUnavailable as exc:
                log.warning("cannot judge the time of game %s: %s", game_id, exc.message)
                if not self.closed:  # the database was busy: try again shortly
                    asyncio.get_running_loop().call_later(ENGINE_RETRY_S, self._deadline_reached, game_id)
            except GameServiceError as exc:
                log.warning("cannot judge the time of game %s: %s", game_id, exc.message)

        task = asyncio.create_task(judge())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def judge_time(self, live: LiveGame) -> None:
        """End the game if its side to move's time is out (abort or loss on time); otherwise
        make sure it is judged at its deadline."""
        if live.row.status != GameStatus.ACTIVE or live.row.time_control in (None, "-"):
            return
        clock = live.clock(self.timing)
        if clock is None or clock.expired(storage_now()) is None:
            if live.row.id not in self._timers:
                self._arm(live)
            return
        async with live.lock:
            try:
                ended = await self._expire_locked(live, storage_now())
            except StalePosition:
                # another server process changed the game first (it may have judged it): the
                # game was reloaded, and its new state is what this request gets
                ended = False
        if ended:
            self._cancel_engine(live.row.id)
            await self.publish(live)

    async def _expire_locked(self, live: LiveGame, now: dt.datetime) -> bool:
        """With the game's lock held: abort or flag it if its time is out at ``now``."""
        clock = live.clock(self.timing) if live.row.status == GameStatus.ACTIVE else None
        expiry = clock.expired(now) if clock is not None else None
        if expiry is None:
            return False
        loser = live.to_move()
        if expiry == Expiry.ABORT:
            values: Finish = {
                "result": "*", "termination": ABORTED,
                "reason": no_first_move_text(loser),
            }
            status = GameStatus.ABORTED
        else:
            values = {
                "result": "0-1" if loser == Color.WHITE else "1-0", "termination": TIME_FORFEIT,
                "reason": lost_on_time_text(loser),
            }
            status = GameStatus.FINISHED
        await self._finish_locked(live, values, status)
        return True

    async def _finish_locked(self, live: LiveGame, values: Finish, status: GameStatus) -> None:
        try:
            await self.db(self.storage.finish, live.row.id, live.board.ply(), values, status)
        except ConflictError as exc:
            await self._reload(live)
            raise StalePosition(str(exc)) from exc
        self._mark_finished(live.row, values, status)
        if live.row.rated:
            await self._load_players(live)  # the ratings changed
        live.state_cache = None

    async def abort(self, game_id: str, secret: str | None) -> LiveGame:
        """Call the game off without a result: allowed to either player until both have moved."""
        live = await self.get(game_id)
        async with live.lock:
            seat = self._seat(live, secret)
            if live.row.status != GameStatus.ACTIVE:
                raise GameOver(N_("the game is over ({reason})"), reason=live.row.reason or "")
            if live.board.ply() >= 2:
                raise Conflict(
                    N_("both sides have moved: the game can no longer be aborted (resign instead)"))
            values: Finish = {
                "result": "*", "termination": ABORTED, "reason": aborted_by_text(seat),
            }
            await self._finish_locked(live, values, GameStatus.ABORTED)
        self._cancel_engine(game_id)
        await self.publish(live)
        return live

    async def claim(self, game_id: str, secret: str | None) -> LiveGame:
        """Claim the win when the opponent has been disconnected longer than the absence limit
        of a real-time game whose clock runs (the clocks ran on meanwhile)."""
        live = await self.get(game_id)
        async with live.lock:
            seat = self._seat(live, secret)
            row = live.row
            if row.status != GameStatus.ACTIVE:
                raise GameOver(N_("the game is over ({reason})"), reason=row.reason or "")
            control = live.time_control
            if control.kind != TimeControlKind.REALTIME:
                raise Conflict(N_("a win can only be claimed in a real-time game"))
            if live.board.ply() < 2:
                raise Conflict(N_("the game has not started yet: abort it instead"))
            other = seat.other
            if live.kind_of(other) != PlayerKind.HUMAN:
                raise Conflict(N_("the computer never leaves"))
            gone = live.absent_since.get(other)
            if self.hub.online(game_id)[other] or gone is None:
                raise Conflict(N_("your opponent is connected"))
            waited = ms_between(gone, storage_now())
            limit = self.timing.absence_ms(control)
            if waited < limit:
                raise Conflict(
                    N_("too early: your opponent left {waited} s ago; you may claim after {limit} s"),
                    waited=f"{waited / 1000:.0f}", limit=f"{limit / 1000:.0f}",
                )
            values: Finish = {
                "result": "1-0" if seat == Color.WHITE else "0-1", "termination": ABANDONED,
                "reason": left_game_text(other),
            }
            await self._finish_locked(live, values, GameStatus.FINISHED)
        await self.publish(live)
        return live

    async def watch_clocks(self) -> None:
        """After a start: judge every unfinished timed game now (a deadline that passed while
        the server was down ends its game), and watch the others' deadlines."""
        for game_id in await self.db(self.storage.active_timed_games):
            try:
                await self.get(game_id)
            except Exception:
                log.exception("cannot watch the clock of game %s", game_id)

    def turn_and_deadline(self, row: GameRow) -> tuple[Color, int | None]:
        """The side to move of a listed game (a row with its last move's stamp only), and
        while it is played with a clock, when that side's time runs out (ms since 1970)."""
        turn = Color.to_move(row.start_fen, row.ply)
        if row.status != GameStatus.ACTIVE:
            return turn, None
        last = row.stamps[-1] if row.stamps else None
        control = stored_time_control(row.time_control)
        clock = Clock.of(control, row.created, row.ply, last, turn, self.timing)
        return turn, None if clock is None else epoch_ms(clock.deadline)

    async def recent_games(self, limit: int, ids: list[str] | None = None) -> list[GameRow]:
        """The most recently changed games (without their moves), or those among ``ids``."""
        return await self.db(self.storage.recent_games, limit, ids)

    # --- creating ---------------------------------------------------------------------

    async def create(
        self, variant_name: str, opponent: Opponent | str, level: int | None,
        color: SeatChoice | str, fen: str | None, time_control: TimeControl = NO_CLOCK,
        user_id: int | None = None,
        *, names: Mapping[Color, str] | None = None, seat_secrets: Mapping[Color, str] | None = None,
    ) -> tuple[LiveGame, dict[Color, str], Color]:
        """A new game: (the game, the seat secrets its creator receives, the creator's colour).
        A signed-in creator's seat belongs to their account ``user_id``.

        Against the computer only the creator's seat secret is returned; against a friend
        both, so that the creator can pass one on.  ``names`` are the players' display names;
        ``seat_secrets`` are secrets (or stored digests) handed out before the game existed,
        such as the one a lobby challenge's poster received.
        """
        try:
            variant = find_variant(variant_name)
        except UnknownVariantError as exc:
            raise InvalidRequest(str(exc)) from exc
        try:
            board = Board(variant, fen=fen.strip() if fen and fen.strip() else None)
        except FenError as exc:
            raise InvalidRequest(N_("bad FEN: {reason}"), reason=str(exc)) from exc
        if fen and fen.strip():
            # a set-up position may have any number of legal moves: count them off the loop
            count = await self.cpu_free.run("listing its legal moves", start_moves, variant.name, fen.strip())
            if count > MAX_START_MOVES:
                raise PositionTooLarge(
                    f"position too large: {count:,} legal moves"
                    f" (a game may start from a position with at most {MAX_START_MOVES:,})"
                )
        if board.is_game_over():
            raise InvalidRequest(N_("the game is already over in that position"))
        if opponent not in tuple(Opponent):
            raise InvalidRequest(N_("opponent must be 'computer' or 'friend'"))
        if color not in tuple(SeatChoice):
            raise InvalidRequest(N_("color must be 'white', 'black' or 'random'"))
        mine = secrets.choice(list(Color)) if color == SeatChoice.RANDOM else Color(color)
        computer = opponent == Opponent.COMPUTER
        if computer:
            if (
                not isinstance(level, int)
                or isinstance(level, bool)
                or not RANDOM_LEVEL <= level <= MAX_LEVEL
            ):
                raise InvalidRequest(N_("level must be an integer from {low} to {high}"),
                                     low=RANDOM_LEVEL, high=MAX_LEVEL)
            if self.pool is None:
                raise EngineDisabled(N_("computer games are disabled on this server"))
            await self.pool.admit()
        else:
            level = None
        game_id = _new_id()
        kinds = {c: PlayerKind.ENGINE if computer and c != mine else PlayerKind.HUMAN for c in Color}
        secrets_ = {c: secrets.token_urlsafe(16) for c in Color} | dict(seat_secrets or {})
        names = names or {}
        await self.db(
            lambda: self.storage.create_game(
                id=game_id, variant=variant.name, start_fen=board.starting_fen,
                white=kinds[Color.WHITE], black=kinds[Color.BLACK], level=level,
                white_secret=secrets_[Color.WHITE], black_secret=secrets_[Color.BLACK],
                time_control=None if time_control == NO_CLOCK else time_control.text,
                white_user=user_id if mine == Color.WHITE else None,
                black_user=user_id if mine == Color.BLACK else None,
                white_name=names.get(Color.WHITE), black_name=names.get(Color.BLACK),
            )
        )
        live = await self.get(game_id)
        self.schedule_engine(live)
        for listener in self.listeners:
            listener(live)
        if computer:
            return live, {mine: secrets_[mine]}, mine
        return live, secrets_, mine

    async def create_between(
        self, variant_name: str, white_user: int | None, black_user: int | None, *,
        rated: bool = False, time_control: TimeControl = NO_CLOCK,
        names: Mapping[Color, str] | None = None, seat_secrets: Mapping[Color, str] | None = None,
    ) -> tuple[LiveGame, dict[Color, str]]:
        """A game between two people from their standard starting position, the lobby's entry
        point: ``white_user``/``black_user`` are the accounts holding the seats (None:
        anonymous).  Both seat secrets are returned (a seat link works whether or not an account
        holds the seat).  A rated game needs two different accounts and a time control.
        ``names`` and ``seat_secrets`` are as for :meth:`create`.
        """
        try:
            variant = find_variant(variant_name)
        except UnknownVariantError as exc:
            raise InvalidRequest(str(exc)) from exc
        if rated and (white_user is None or black_user is None or white_user == black_user):
            raise InvalidRequest(N_("a rated game is played between two different accounts"))
        if rated and time_control == NO_CLOCK:
            raise InvalidRequest(N_("a rated game needs a time control"))
        game_id = _new_id()
        secrets_ = {c: secrets.token_urlsafe(16) for c in Color} | dict(seat_secrets or {})
        names = names or {}
        await self.db(
            lambda: self.storage.create_game(
                id=game_id, variant=variant.name, start_fen=variant.starting_fen,
                white=PlayerKind.HUMAN, black=PlayerKind.HUMAN, level=None,
                white_secret=secrets_[Color.WHITE], black_secret=secrets_[Color.BLACK],
                time_control=None if time_control == NO_CLOCK else time_control.text,
                white_user=white_user, black_user=black_user, rated=rated,
                white_name=names.get(Color.WHITE), black_name=names.get(Color.BLACK),
            )
        )
        live = await self.get(game_id)
        for listener in self.listeners:
            listener(live)
        return live, secrets_

    # --- playing -----------------------------------------------------------------------

    def _seat(self, live: LiveGame, secret: str | None, user_id: int | None = None) -> Color:
        """The seat ``secret`` opens, or without one the seat the signed-in ``user_id`` holds."""
        if not secret:
            seat = live.seat_of(None, user_id)
            if seat is None:
                raise SecretRequired(N_("a seat secret is required to act in this game"))
            return seat
        seat = live.seat_of(secret)
        if seat is None:
            raise WrongSeat(N_("wrong seat secret for this game"))
        return seat

    async def play(
        self, game_id: str, secret: str | None, text: str, ply: int | None, lag_ms: int = 0,
        user_id: int | None = None,
    ) -> LiveGame:
        """Play the move ``text`` for the seat ``secret`` (or the account ``user_id``) holds;
        ``ply``, if given, must be current; ``lag_ms`` is the client's measured network delay
        (credited up to a bound)."""
        arrived = storage_now()
        started = time.perf_counter()
        live = await self.get(game_id, view=False)
        if not text.strip():
            raise InvalidRequest(N_("a move is required (field 'move', canonical move text)"))
        note: MoveNote | None = None
        async with live.lock:
            seat = self._seat(live, secret, user_id)
            if live.kind_of(seat) != PlayerKind.HUMAN:
                raise WrongSeat(N_("that seat is played by the computer"))
            try:
                note = await self._play_locked(live, seat, text, ply, arrived, lag_ms)
            except TimeRanOut:
                ended = True  # the time ran out before the move arrived: the game ended now
            else:
                ended = False
        stored = time.perf_counter()
        await self.publish(live, note)
        metrics.MOVE_SECONDS.labels("store").observe(stored - started)
        metrics.MOVE_SECONDS.labels("publish").observe(time.perf_counter() - stored)
        if ended:
            self._cancel_engine(game_id)
            raise GameOver(N_("the game is over ({reason})"), reason=live.row.reason or "")
        self.schedule_engine(live)
        return live

    async def _play_locked(
        self, live: LiveGame, seat: Color, text: str, ply: int | None,
        arrived: dt.datetime | None = None, lag_ms: int = 0,
    ) -> MoveNote | None:
        """Play and store a move arriving at ``arrived`` (default now).  If the side to move's
        time was out by then, the game ends instead (aborted or lost on time): raises
        :class:`TimeRanOut`, and the caller publishes the ended game.

        Returns the move as the other processes can play it on their copies (None when it
        ended the game: they read a finished game again, with its result and ratings)."""
        board = live.board
        arrived = arrived or storage_now()
        if live.row.status == GameStatus.ACTIVE and await self._expire_locked(live, arrived):
            raise TimeRanOut(N_("the game is over ({reason})"), reason=live.row.reason or "")
        if live.row.status != GameStatus.ACTIVE:
            raise GameOver(N_("the game is over ({reason})"), reason=live.row.reason or "")
        if seat != live.to_move():
            raise NotYourTurn(N_("it is not your turn: {side} is to move"), side=live.to_move().capitalize())
        if ply is not None and ply != board.ply():
            raise StalePosition(N_("stale position: the game is at ply {now}, not {ply}"),
                                now=board.ply(), ply=ply)
        current = board.ply()
        clock = live.clock(self.timing)
        stamp = clock.after_move(arrived, lag_ms) if clock is not None else Stamp(None, None, arrived)
        # Reading the move and judging the position after it list legal moves, which a
        # set-up position or one reached mid-game may have by the ten thousand: off the loop,
        # with a time bound, on a copy (in the database-thread job that stores it, or before
        # it in a game-views thread: see moves_in_one_job).  The copy becomes the game's board
        # once the move is stored: the in-memory game (which a GET may read and cache during
        # the commit) is never ahead of the database.
        store = self._read_and_store if self.moves_in_one_job else self._read_then_store
        try:
            after, finish, view = await store(live, board.copy(), text, current, stamp)
        except ConflictError as exc:
            await self._reload(live)
            # the watchers may hold the state this process had (another one stored a move and
            # died before announcing it): send them the stored one
            self._in_background(self.publish(live))
            raise StalePosition(N_("move not stored: {reason}"), reason=str(exc)) from exc
        move = after.peek()
        fen_after = after.fen()
        metrics.MOVES.labels("player" if live.kind_of(seat) == PlayerKind.HUMAN else "engine").inc()
        self._record_move(live, after, str(move), fen_after, stamp)
        if view is not None:
            live.legal_view = (self._legal_key(live), view)
        if finish:
            self._mark_finished(live.row, finish)
            if live.row.rated:  # the ratings changed with the result
                await self._load_players(live)
            return None
        return MoveNote(current, str(move), fen_after, stamp)

    async def _read_and_store(
        self, live: LiveGame, board: Board, text: str, ply: int, stamp: Stamp
    ) -> tuple[Board, Finish | None, LegalView | None]:
        """Read the move ``text`` on ``board`` (the game's, copied) and store it as move
        ``ply`` in one database-thread job (:class:`MoveJob`); the board after it, the result
        columns if it ended the game, else the legal-move view after it.

        A move ahead of :data:`MAX_MOVES_WAITING` others is refused as busy; past
        :data:`MOVE_TIME_LIMIT_S`, or when the caller is cancelled, the job stores nothing if
        it has not begun to, and the game is read again once the lock is free (its outcome
        is then unknown)."""
        if self._moves_waiting >= MAX_MOVES_WAITING:
            raise ServerBusy(N_("the server is busy ({what}); try again in a moment"), what="moves")
        move = MoveJob(self.storage, live.row.id, board, text, ply, stamp)
        job = ThreadJob("move", move)
        self._moves_waiting += 1
        job.on_end = self._move_ended  # a timeout or a client leaving keeps the count
        try:
            self._db.submit(job, urgent=True)
        except RuntimeError:  # the threads are shut down (server stopping)
            job.dropped()
            raise
        overtime = PositionTooLarge(
            f"position too large: reading the move takes more than {MOVE_TIME_LIMIT_S:g} s")
        try:
            return await job.result(MOVE_TIME_LIMIT_S, overtime)
        except OperationalError as exc:
            log.warning("database unavailable: %s", exc.orig)
            raise StorageUnavailable(N_("the database is busy or unreachable; try again")) from exc
        except (PositionTooLarge, asyncio.CancelledError):
            # nobody takes the result (the time bound, or the caller cancelled): the job stops
            # before its store if that has not begun; one under way may still complete, so
            # the game is read again after it
            move.abandoned = True
            self._resync_later(live)
            raise

    async def _read_then_store(
        self, live: LiveGame, board: Board, text: str, ply: int, stamp: Stamp
    ) -> tuple[Board, Finish | None, LegalView | None]:
        """As :meth:`_read_and_store`, in two jobs (see :attr:`moves_in_one_job`): the move is
        read in a game-views thread, with that pool's bounds, then stored by a database job."""
        after, finish, view = await self.cpu_games.run("reading the move", played, board, text)
        try:
            await self.db(
                self.storage.add_move, live.row.id, ply, str(after.peek()), finish, stamp, urgent=True
            )
        except asyncio.CancelledError:
            # the write may still complete in its thread: read the game again once it is over
            self._resync_later(live)
            raise
        return after, finish, view

    def _move_ended(self) -> None:
        self._moves_waiting -= 1

    @staticmethod
    def _mark_finished(row: GameRow, values: Finish, status: GameStatus = GameStatus.FINISHED) -> None:
        row.status = status
        row.result = values["result"]
        row.termination = values["termination"]
        row.reason = values["reason"]
        row.takeback_offer = None

    @staticmethod
    def finish_values(board: Board, outcome: Outcome) -> Finish:
        """The result columns stored for a game that ended with ``outcome`` on ``board``."""
        return {
            "result": outcome.result(),
            "termination": outcome.termination.value,
            "reason": reason_text(board.variant, outcome),
        }

    async def resign(self, game_id: str, secret: str | None, user_id: int | None = None) -> LiveGame:
        """The seat ``secret`` opens (or the account ``user_id`` holds) resigns."""
        live = await self.get(game_id)
        async with live.lock:
            seat = self._seat(live, secret, user_id)
            if live.row.status != GameStatus.ACTIVE:
                raise GameOver(N_("the game is over ({reason})"), reason=live.row.reason or "")
            outcome = Outcome(Termination.RESIGNATION, seat != Color.WHITE)
            values = self.finish_values(live.board, outcome)
            await self._finish_locked(live, values, GameStatus.FINISHED)
        self._cancel_engine(game_id)
        await self.publish(live)
        return live

    async def takeback(
        self, game_id: str, secret: str | None, action: TakebackAction | str, user_id: int | None = None,
    ) -> LiveGame:
        """Offer, accept or decline taking back the offerer's last move.

        Against the computer an offer is granted at once.
        """
        live = await self.get(game_id)
        if action not in tuple(TakebackAction):
            raise InvalidRequest(N_("action must be 'offer', 'accept' or 'decline'"))
        async with live.lock:
            seat = self._seat(live, secret, user_id)
            row = live.row
            if row.status != GameStatus.ACTIVE:
                raise GameOver(N_("the game is over"))
            if row.time_control not in (None, "-"):
                # a takeback would hand back clock time (or a correspondence deadline)
                raise Conflict(N_("no takebacks in a game with a clock"))
            other = seat.other
            ply = live.board.ply()
            if action == TakebackAction.OFFER:
                if self._takeback_target(live, seat) is None:
                    raise Conflict(N_("you have no move to take back"))
                if live.kind_of(other) == PlayerKind.ENGINE:
                    await self._take_back_locked(live, seat)
                else:
                    await self._db_conflict(self.storage.set_takeback_offer, game_id, ply, seat)
                    row.takeback_offer = seat
                    live.state_cache = None
            elif action == TakebackAction.ACCEPT:
                if row.takeback_offer != other:
                    raise Conflict(N_("there is no takeback offer to accept"))
                await self._take_back_locked(live, other)
            else:
                if row.takeback_offer != other:
                    raise Conflict(N_("there is no takeback offer to decline"))
                await self._db_conflict(self.storage.set_takeback_offer, game_id, ply, None)
                row.takeback_offer = None
                live.state_cache = None
        await self.publish(live)
        self.schedule_engine(live)
        return live

    async def _db_conflict(self, fn: Callable[..., None], *args: Any) -> None:
        try:
            await self.db(fn, *args)
        except ConflictError as exc:
            raise StalePosition(str(exc)) from exc

    def _takeback_target(self, live: LiveGame, seat: Color) -> int | None:
        """The ply to go back to so that ``seat``'s last move is undone (None if there is none)."""
        for p in range(live.board.ply() - 1, -1, -1):
            if Color.to_move(live.fens[0], p) == seat:
                return p
        return None

    async def _take_back_locked(self, live: LiveGame, seat: Color) -> None:
        target = self._takeback_target(live, seat)
        if target is None:
            raise Conflict(N_("there is no move to take back"))
        self._cancel_engine(live.row.id)
        await self._db_conflict(self.storage.take_back, live.row.id, live.board.ply(), target)
        while live.board.ply() > target:
            live.board.pop()
            live.fens.pop()
            live.row.moves.pop()
            if live.row.stamps:
                live.row.stamps.pop()
        live.row.ply = target
        live.row.takeback_offer = None
        live.state_cache = None

    async def rematch(
        self, game_id: str, secret: str | None, user_id: int | None = None,
    ) -> tuple[LiveGame, Color, str | None]:
        """The rematch of a finished game (created once, colours swapped): (game, your colour,
        your secret, which is the one you hold in the finished game; None when the seat was
        proved by the account, which holds the rematch's seat too)."""
        live = await self.get(game_id)
        seat = self._seat(live, secret, user_id)
        if live.row.status == GameStatus.ACTIVE:
            raise Conflict(N_("the game is still being played"))
        async with live.lock:
            if live.row.rematch_id is None:
                row = live.row
                new_id = _new_id()
                await self.db(
                    lambda: self.storage.create_game(
                        id=new_id, variant=row.variant, start_fen=row.start_fen, white=row.black,
                        black=row.white, level=row.level,
                        # colours swap and each player keeps their secret: only digests are
                        # stored, so the second player to ask could not be handed a fresh one
                        # (and whoever holds a seat's secret could ask for its rematch anyway)
                        white_secret=row.black_secret, black_secret=row.white_secret,
                        time_control=row.time_control,
                        white_user=row.black_user, black_user=row.white_user, rated=row.rated,
                        white_name=row.black_name, black_name=row.white_name,
                    )
                )
                if not await self.db(self.storage.set_rematch, game_id, new_id):
                    await self._reload(live)
                else:
                    live.row.rematch_id = new_id
                    live.state_cache = None
        rematch_id = live.row.rematch_id
        assert rematch_id is not None
        new = await self.get(rematch_id)
        new_color = seat.other
        self.schedule_engine(new)
        await self.publish(live)
        return new, new_color, secret or None

    # --- the computer ---------------------------------------------------------------------

    def _cancel_engine(self, game_id: str) -> None:
        """Nobody waits for the computer's move any more: cancelling the task stops its search."""
        task = self._engine_tasks.pop(game_id, None)
        if task is not None:
            task.cancel()

    def schedule_engine(self, live: LiveGame) -> None:
        if self.closed or self.pool is None:
            return
        if live.row.status != GameStatus.ACTIVE or live.kind_of(live.to_move()) != PlayerKind.ENGINE:
            return
        existing = self._engine_tasks.get(live.row.id)
        if existing is not None and not existing.done():
            return
        self._engine_tasks[live.row.id] = asyncio.create_task(self._engine_turn(live))

    async def _engine_turn(self, live: LiveGame) -> None:
        assert self.pool is not None
        try:
            row = live.row
            ply = live.board.ply()
            seed = zlib.crc32(f"{row.id}:{ply}".encode())
            clock = live.clock(self.timing)
            budget: EngineClock | None = None
            if clock is not None and clock.control.kind == TimeControlKind.REALTIME:
                moment = storage_now()
                budget = EngineClock(
                    clock.left(Color.WHITE, moment), clock.left(Color.BLACK, moment),
                    clock.control.increment_ms, clock.control.increment_ms,
                )
            text = await self.pool.move(
                row.variant, row.start_fen, list(row.moves), row.level or 0, seed, budget, game_id=row.id
            )
            if text is None:
                return  # queued: a worker stores the move and announces it (Redis mode)
            async with live.lock:
                if live.board.ply() != ply or live.row.status != GameStatus.ACTIVE:
                    return
                await self._play_locked(live, live.to_move(), text, ply)
        except asyncio.CancelledError:
            raise
        except TimeRanOut:
            pass  # the computer's time ran out: the game is over, and published below
        except (StorageUnavailable, ServerBusy):
            # not stored, nothing changed (the database, or the pool that reads moves, was
            # busy): the computer tries again a little later
            log.warning("engine move in game %s not stored (server busy); retrying", live.row.id)
            asyncio.get_running_loop().call_later(ENGINE_RETRY_S, self.schedule_engine, live)
            return
        except GameServiceError as exc:
            log.warning("engine move rejected in game %s: %s", live.row.id, exc.message)
            return
        except Exception:
            log.exception("engine failed in game %s", live.row.id)
            return
        finally:
            if self._engine_tasks.get(live.row.id) is asyncio.current_task():
                del self._engine_tasks[live.row.id]
        await self.publish(live)
        self.schedule_engine(live)

    async def resume_engine_games(self) -> None:
        """After a restart: let the computer move in every game waiting for it."""
        for game_id in await self.db(self.storage.active_engine_games):
            try:
                self.schedule_engine(await self.get(game_id))
            except Exception:
                log.exception("cannot resume game %s", game_id)

    async def resume_engine_game(self, game_id: str) -> None:
        """Queue the computer's move in ``game_id`` if it waits for one (the engine sweep of
        Redis mode: the server that stored the player's move may have died before queueing
        it); the game is read again first, since that change was never announced."""
        await self.on_remote_change(game_id, True, False)
        self.schedule_engine(await self.get(game_id))

    async def evaluate(
        self, variant: str, start_fen: str, texts: list[str], movetime_ms: int, client: str | None = None
    ) -> dict[str, Any]:
        """The engine's view of the position after ``texts``, searched for ``movetime_ms``
        (at most the pool's cap), counted against ``client``'s share of the engine."""
        if self.pool is None:
            raise EngineDisabled(N_("the engine is disabled on this server"))
        return await self.pool.analyse(variant, start_fen, texts, movetime_ms, client)

    async def evaluate_game(
        self, game_id: str, secret: str | None, movetime_ms: int, client: str | None = None,
        user_id: int | None = None,
    ) -> dict[str, Any]:
        """The engine's view of a game's current position.

        While the game is being played only its players may ask (an engine evaluation would
        be an outside help, and engine time is scarce); once it is over, anyone.
        """
        live = await self.get(game_id)
        if live.row.status == GameStatus.ACTIVE:
            if not secret and live.seat_of(None, user_id) is None:
                raise SecretRequired(N_("only the players may evaluate a game in progress (seat secret)"))
            self._seat(live, secret, user_id)
        if live.board.is_game_over():
            raise GameOver(N_("the game is over: there is nothing to evaluate"))
        row = live.row
        return await self.evaluate(row.variant, row.start_fen, list(row.moves), movetime_ms, client)

