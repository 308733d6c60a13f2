"""The game service: the one orchestrator of live games.  Every change is stored first, then
applied in memory, then broadcast.

As lila's round module splits a live game, the service holds the game's lock, decides the order
of the steps, and hands each step to a collaborator that receives the live game and narrow
ports and returns a result: the cache (:mod:`.cache`), moves (:mod:`.moves`, through the
database kind's :class:`~exochess.web.storage.movestore.MoveStore`), endings (:mod:`.finisher`),
takebacks and rematches (:mod:`.takebacks`), the computer (:mod:`.computer`), other servers'
moves (:mod:`.sync`), deadlines (:mod:`.clockwatch`), new games (:mod:`.newgames`) and what the
watchers are sent (:mod:`.jsonview`).  Collaborators never call one another.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, TypeVar

from exochess.web import metrics
from exochess.web.accounts.ratings import apply_game_result
from exochess.web.compute.cpuwork import CpuWork
from exochess.web.compute.enginepool import EngineBackend
from exochess.web.domain import (
    N_,
    Color,
    Conflict,
    GameServiceError,
    InvalidRequest,
    Opponent,
    PlayerKind,
    SeatChoice,
    StalePosition,
    TakebackAction,
    WrongSeat,
)
from exochess.web.game.analysis import POSITION_TIME_LIMIT_S
from exochess.web.game.cache import GameCache
from exochess.web.game.clock import Timing
from exochess.web.game.clockwatch import ClockWatch
from exochess.web.game.computer import Computer
from exochess.web.game.finisher import Finisher, TimeRanOut, game_over
from exochess.web.game.jsonview import JsonView
from exochess.web.game.live import LiveGame
from exochess.web.game.moves import MovePlayer
from exochess.web.game.newgames import Created, NewGames
from exochess.web.game.sync import ClusterSync
from exochess.web.game.takebacks import Rematcher, Takebacker, check_action
from exochess.web.game.timecontrol import NO_CLOCK, TimeControl
from exochess.web.live.hub import Hub
from exochess.web.live.movenote import MoveNote
from exochess.web.storage.movestore import move_store
from exochess.web.storage.store import ConflictError, GameRow, Storage
from exochess.web.storage.store import now as storage_now
from exochess.web.storage.threads import DbThreads

log = logging.getLogger("exochess.web")
T = TypeVar("T")


class GameService:
    """Creates, loads and plays games; raises the errors of :mod:`exochess.web.domain`."""

    def __init__(
        self,
        storage: Storage,
        pool: EngineBackend | None,
        hub: Hub,
        timing: Timing | None = None,
        position_time_limit_s: float = POSITION_TIME_LIMIT_S,
    ) -> None:
        self.storage = storage
        # the rating update runs in the transaction that stores a game's result
        if apply_game_result not in storage.finish_hooks:
            storage.finish_hooks.append(apply_game_result)
        storage.move_groups.observer = metrics.MOVES_PER_STATEMENT.observe
        self.pool = pool
        self.hub = hub
        self.timing = timing if timing is not None else Timing()
        self.closed = False
        self._db = DbThreads(storage.db_threads)
        self._background: set[asyncio.Task[None]] = set()
        # CPU-heavy work off the event loop: live games' views and replays in one pool, free
        # positions (analysis board, new games' FENs) in another, so floods of the latter
        # never delay the former.
        self.cpu_games = CpuWork("game views", workers=2, max_jobs=256, timeout_s=20.0)
        self.cpu_free = CpuWork(
            "position views", workers=1, max_jobs=4, timeout_s=position_time_limit_s, processes=True
        )
        self.listeners: list[Callable[[LiveGame], None]] = []
        """Told of every published change and every new game (the lobby's list of live games)."""
        self.cache = GameCache(storage, self._db, self.cpu_games, hub.online)
        self.view = JsonView(self.timing, hub.online, self.cpu_games)
        self.clocks = ClockWatch(self.timing, self.get)
        self.computer = Computer(pool, self.timing, self._computer_plays, self.publish)
        self.moves = MovePlayer(
            move_store(storage, self._db, self.cpu_games), self.timing, self._resync_later
        )
        self.finisher = Finisher(
            storage, self._db, self.timing, hub.online, self._reload, self.cache.load_players
        )
        self.takebacks = Takebacker(storage, self._db, self.computer.cancel)
        self.rematches = Rematcher(storage, self._db, self._reload)
        self.new_games = NewGames(storage, self._db, self.cpu_free, pool)
        self.sync = ClusterSync(
            self.cache,
            lambda game_id: bool(hub.watchers(game_id)),
            self._refresh,
            self._send_state,
            self.clocks.arm,
            self.computer.schedule,
        )

    async def db(self, fn: Callable[..., T], *args: Any, urgent: bool = False) -> T:
        """Run a storage call in a database thread (see :meth:`DbThreads.call`)."""
        return await self._db.call(fn, *args, urgent=urgent)

    def close(self) -> None:
        self.closed = True
        self.computer.close()
        self.clocks.close()
        self.cpu_games.close()
        self.cpu_free.close()
        self._db.shutdown(wait=True)

    # --- loading -------------------------------------------------------------------------

    async def get(self, game_id: str, *, view: bool = True) -> LiveGame:
        """The game ``game_id``, its time judged first (a deadline passed ends it here).

        With ``view`` (the default) its legal-move view is ready too; a move does without it
        (it is checked on the board), so that a process computes the views of the positions it
        publishes only, not also those of the moves it hears of from the others.
        """
        live = self.cache.cached(game_id)
        if live is not None and live.stale:
            await self._refresh(live)
        elif live is None:
            live = await self.cache.load(game_id, self._busy)
        if view:
            await self.view.prepare(live)
        await self.judge_time(live)
        return live

    def _busy(self, game_id: str, _live: LiveGame) -> bool:
        """Whether a game in memory is in use beyond its lock (watched, or the computer thinks)."""
        return bool(self.hub.watchers(game_id)) or self.computer.thinking(game_id)

    async def _reload(self, live: LiveGame) -> None:
        await self.cache.reload(live)
        self.clocks.arm(live)

    async def _refresh(self, live: LiveGame) -> None:
        """Read a game another process changed again (cleared first: a change announced during
        the read marks it stale again)."""
        async with live.lock:
            while live.stale:
                live.stale = False
                await self._reload(live)

    def _in_background(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _resync_later(self, live: LiveGame) -> None:
        """Reload ``live`` once its lock is free (after a cancelled write whose outcome is unknown)."""

        async def resync() -> None:
            async with live.lock:
                with contextlib.suppress(GameServiceError):
                    await self._reload(live)

        self._in_background(resync())

    async def account_changed(self, user_id: int) -> None:
        """Show the games in memory that ``user_id`` plays with the account as it now is (a
        deleted account becomes "deleted player")."""
        for live in list(self.cache.games.values()):
            if user_id in (live.row.white_user, live.row.black_user):
                await self.cache.load_players(live)
                await self.publish(live)

    # --- other servers (Redis mode) ------------------------------------------------------

    async def on_remote_change(
        self, game_id: str, changed: bool, delivered: bool, note: object = None
    ) -> None:
        """An envelope about ``game_id`` from another process (:meth:`ClusterSync.changed`)."""
        await self.sync.changed(game_id, changed, delivered, note)

    async def _send_state(self, live: LiveGame) -> None:
        """Send the watchers here the game's state (another process changed it)."""
        await self.view.prepare(live)
        await self.hub.deliver(live.row.id, self.state_text(live), coalesce=True)

    async def resync_all(self) -> None:
        """Changes may have been missed (the Redis subscription was lost): every cached game is
        stale, and the watched ones are sent their state again."""
        for game_id in list(self.cache.games):
            await self.on_remote_change(game_id, True, False)

    async def remote_presence(self, game_id: str) -> None:
        """Seats held on another server came or went, or that server died: the absence clocks
        here follow (a claim through this server counts the same absence), and this process's
        watchers are told."""
        live = self.cache.games.get(game_id)
        if live is not None:
            await self.announce_presence(live)

    # --- state ---------------------------------------------------------------------------

    def state(self, live: LiveGame) -> dict[str, Any]:
        """The game's state as plain data (its ``legal`` tree that of :meth:`prepare`)."""
        return self.view.state(live)

    def state_text(self, live: LiveGame) -> str:
        """The game's state as JSON text (cached until the game changes)."""
        return self.view.state_text(live)

    async def publish(self, live: LiveGame, note: MoveNote | None = None) -> None:
        """Send the game's new state to its watchers (here and, in Redis mode, in the other
        processes: ``note`` is the one move that made it, which they play on their copies;
        without one they read the game again)."""
        live.state_cache = None
        self.clocks.arm(live)
        await self.view.prepare(live)
        # the note holds only if the game is still just after that move (no other change came
        # between the lock's release and now; a takeback and another move would leave the same
        # ply in another position)
        fits = note is not None and live.board.ply() == note.ply + 1 and live.fens[-1] == note.fen
        await self.hub.broadcast(
            live.row.id,
            self.state_text(live),
            coalesce=True,
            changed=True,
            note=note.to_json() if note is not None and fits else None,
        )
        for listener in self.listeners:
            listener(live)
        if not live.active and live.row.level is not None and self.pool is not None:
            # a computer game ended (whatever the way: mate, royal capture, time, resignation,
            # abort...): its place among the long moves is free at once, not after its hold
            await self.pool.drop_game(live.row.id)

    async def announce_presence(self, live: LiveGame) -> None:
        """Tell this process's watchers which seats are online and since when the others are
        gone (only here: a message to every process would carry the sender's view, which can be
        older than the receiver's)."""
        await self.hub.deliver(live.row.id, self.view.presence(live))

    # --- time ----------------------------------------------------------------------------

    async def judge_time(self, live: LiveGame) -> None:
        """End the game if its side to move's time is out (abort or loss on time); otherwise
        make sure it is judged at its deadline."""
        if not live.active or live.row.time_control in (None, "-"):
            return
        clock = live.clock(self.timing)
        if clock is None or clock.expired(storage_now()) is None:
            if not self.clocks.watching(live.row.id):
                self.clocks.arm(live)
            return
        async with live.lock:
            try:
                ended = await self.finisher.expire(live, storage_now())
            except StalePosition:
                # another server process changed the game first (it may have judged it): the
                # game was reloaded, and its new state is what this request gets
                ended = False
        if ended:
            self.computer.cancel(live.row.id)
            await self.publish(live)

    async def watch_clocks(self) -> None:
        """After a start: judge every unfinished timed game now (a deadline that passed while
        the server was down ends its game), and watch the others' deadlines."""
        for game_id in await self.db(self.storage.active_timed_games):
            try:
                await self.get(game_id)
            except Exception:
                log.exception("cannot watch the clock of game %s", game_id)

    async def recent_games(self, limit: int, ids: list[str] | None = None) -> list[GameRow]:
        """The most recently changed games (without their moves), or those among ``ids``."""
        return await self.db(self.storage.recent_games, limit, ids)

    # --- endings -------------------------------------------------------------------------

    async def abort(self, game_id: str, secret: str | None) -> LiveGame:
        """Call the game off without a result (:meth:`Finisher.abort`)."""
        return await self._end(game_id, secret, None, self.finisher.abort)

    async def claim(self, game_id: str, secret: str | None) -> LiveGame:
        """Claim the win over an absent opponent (:meth:`Finisher.claim`)."""
        return await self._end(game_id, secret, None, self.finisher.claim)

    async def resign(self, game_id: str, secret: str | None, user_id: int | None = None) -> LiveGame:
        """The seat ``secret`` opens (or the account ``user_id`` holds) resigns."""
        return await self._end(game_id, secret, user_id, self.finisher.resign)

    async def _end(
        self,
        game_id: str,
        secret: str | None,
        user_id: int | None,
        how: Callable[[LiveGame, Color], Awaitable[None]],
    ) -> LiveGame:
        live = await self.get(game_id)
        async with live.lock:
            await how(live, live.seat(secret, user_id))
        self.computer.cancel(game_id)
        await self.publish(live)
        return live

    # --- creating ------------------------------------------------------------------------

    async def create(
        self,
        variant_name: str,
        opponent: Opponent | str,
        level: int | None,
        color: SeatChoice | str,
        fen: str | None,
        time_control: TimeControl = NO_CLOCK,
        user_id: int | None = None,
        *,
        names: Mapping[Color, str] | None = None,
        seat_secrets: Mapping[Color, str] | None = None,
        owner: str | None = None,
    ) -> tuple[LiveGame, dict[Color, str], Color]:
        """A new game (:meth:`NewGames.create`): (the game, the seat secrets its creator
        receives, the creator's colour).  Against the computer only the creator's seat secret
        is returned; against a friend both, so that the creator can pass one on.  ``owner``
        (account, else address) is charged the CPU work of a set-up position."""
        made = await self.new_games.create(
            variant_name,
            opponent,
            level,
            color,
            fen,
            time_control,
            user_id,
            names or {},
            seat_secrets or {},
            owner,
        )
        live = await self._started(made)
        if opponent == Opponent.COMPUTER:
            return live, {made.mine: made.secrets[made.mine]}, made.mine
        return live, made.secrets, made.mine

    async def create_between(
        self,
        variant_name: str,
        white_user: int | None,
        black_user: int | None,
        *,
        rated: bool = False,
        time_control: TimeControl = NO_CLOCK,
        names: Mapping[Color, str] | None = None,
        seat_secrets: Mapping[Color, str] | None = None,
    ) -> tuple[LiveGame, dict[Color, str]]:
        """A game between two people, the lobby's entry point
        (:meth:`NewGames.create_between`), with both seat secrets."""
        made = await self.new_games.create_between(
            variant_name, white_user, black_user, rated, time_control, names or {}, seat_secrets or {}
        )
        return await self._started(made), made.secrets

    async def _started(self, made: Created) -> LiveGame:
        live = await self.get(made.game_id)
        self.computer.schedule(live)
        for listener in self.listeners:
            listener(live)
        return live

    # --- playing -------------------------------------------------------------------------

    async def play(
        self,
        game_id: str,
        secret: str | None,
        text: str,
        ply: int | None,
        lag_ms: int = 0,
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
            seat = live.seat(secret, user_id)
            if live.kind_of(seat) != PlayerKind.HUMAN:
                raise WrongSeat(N_("that seat is played by the computer"))
            if live.kind_of(seat.other) == PlayerKind.ENGINE:
                # the computer's reply must find room in its owner's share of the engine (and,
                # for a long level, a place): else the move is refused now, nothing stored
                await self.computer.check_reply(live)
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
            self.computer.cancel(game_id)
            raise game_over(live)
        self.computer.schedule(live)
        return live

    async def _play_locked(
        self,
        live: LiveGame,
        seat: Color,
        text: str,
        ply: int | None,
        arrived: dt.datetime | None = None,
        lag_ms: int = 0,
        think_ms: int | None = None,
    ) -> MoveNote | None:
        """With the lock held: judge the time at ``arrived`` (default now: a time out raises
        :class:`TimeRanOut`, the game ended instead), then play and store the move."""
        arrived = arrived or storage_now()
        if live.active and await self.finisher.expire(live, arrived):
            raise TimeRanOut(N_("the game is over ({reason})"), reason=live.row.reason or "")
        try:
            note = await self.moves.play(live, seat, text, ply, arrived, lag_ms, think_ms)
        except ConflictError as exc:
            await self._reload(live)
            # the watchers may hold the state this process had (another one stored a move and
            # died before announcing it): send them the stored one
            self._in_background(self.publish(live))
            raise StalePosition(N_("move not stored: {reason}"), reason=str(exc)) from exc
        if note is None and live.row.rated:  # the move ended a rated game: the ratings changed
            await self.cache.load_players(live)
        return note

    async def _computer_plays(
        self, live: LiveGame, seat: Color, text: str, ply: int, think_ms: int | None
    ) -> bool:
        """The computer's move path (:data:`~exochess.web.game.computer.PlayPort`)."""
        async with live.lock:
            if live.board.ply() != ply or not live.active:
                return False
            await self._play_locked(live, seat, text, ply, think_ms=think_ms)
        return True

    async def takeback(
        self,
        game_id: str,
        secret: str | None,
        action: TakebackAction | str,
        user_id: int | None = None,
    ) -> LiveGame:
        """Offer, accept or decline taking back the offerer's last move (against the computer an
        offer is granted at once)."""
        live = await self.get(game_id)
        check_action(action)
        async with live.lock:
            await self.takebacks.act(live, live.seat(secret, user_id), action)
        await self.publish(live)
        self.computer.schedule(live)
        return live

    async def rematch(
        self,
        game_id: str,
        secret: str | None,
        user_id: int | None = None,
        owner: str | None = None,
    ) -> tuple[LiveGame, Color, str | None]:
        """The rematch of a finished game (created once, colours swapped): (game, your colour,
        your secret, which is the one you hold in the finished game; None when the seat was
        proved by the account, which holds the rematch's seat too).  Against the computer, a
        new rematch reserves its place among the long moves for ``owner`` first, as a new
        computer game does (:class:`~exochess.web.domain.EngineBusy` with Retry-After when
        there is none)."""
        live = await self.get(game_id)
        seat = live.seat(secret, user_id)
        if live.active:
            raise Conflict(N_("the game is still being played"))
        pool = self.pool if live.row.level is not None and owner is not None else None
        key: str | None = None
        async with live.lock:
            if pool is not None and owner is not None and live.row.rematch_id is None:
                key = await pool.reserve(owner, live.row.level or 0)
            else:
                pool = None  # the rematch exists (its place was reserved by whoever created it)
            try:
                rematch_id = await self.rematches.rematch(live)
            except BaseException:
                if pool is not None and owner is not None:
                    await pool.claim(key, "", owner)
                raise
        if pool is not None and owner is not None:
            # before the computer's first move is asked, as for a new game
            await pool.claim(key, rematch_id, owner)
        new = await self.get(rematch_id)
        self.computer.schedule(new)
        await self.publish(live)
        return new, seat.other, secret or None

    # --- the computer --------------------------------------------------------------------

    async def resume_engine_games(self) -> None:
        """After a restart: let the computer move in every game waiting for it."""
        for game_id in await self.db(self.storage.active_engine_games):
            try:
                self.computer.schedule(await self.get(game_id))
            except Exception:
                log.exception("cannot resume game %s", game_id)

    async def resume_engine_game(self, game_id: str) -> None:
        """Queue the computer's move in ``game_id`` if it waits for one (the engine sweep of
        Redis mode: the server that stored the player's move may have died before queueing it);
        the game is read again first, since that change was never announced."""
        await self.on_remote_change(game_id, True, False)
        self.computer.schedule(await self.get(game_id))

    async def evaluate_game(
        self,
        game_id: str,
        secret: str | None,
        movetime_ms: int,
        client: str | None = None,
        user_id: int | None = None,
    ) -> dict[str, Any]:
        """The engine's view of a game's current position (see :meth:`Computer.evaluate_game`)."""
        live = await self.get(game_id)
        return await self.computer.evaluate_game(live, secret, user_id, movetime_ms, client)
