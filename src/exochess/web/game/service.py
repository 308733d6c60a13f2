"""The game service: the one orchestrator of live games.  Every change is stored first, then
applied in memory, then broadcast.

As lila's round module splits a live game, the service holds the game's lock, decides the order
of the steps, and hands each step to a collaborator that receives the live game and narrow
ports and returns a result: the cache (:mod:`.cache`), the read side that fetches games and
sends their state (:mod:`.reader`), moves (:mod:`.moves`, through the database kind's
:class:`~exochess.web.storage.movestore.MoveStore`), endings (:mod:`.finisher`),
takebacks and rematches (:mod:`.takebacks`), berserk (:mod:`.berserk`), the computer
(:mod:`.computer`), other servers' moves (:mod:`.sync`), deadlines (:mod:`.clockwatch`), new
games and house bots (:mod:`.newgames`), games picked up after a start (:mod:`.recovery`) and
what the watchers are sent (:mod:`.jsonview`).  Collaborators never call one another; what
changes no game (an evaluation, a house bot's level) is asked of its collaborator directly.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from exochess.web import metrics
from exochess.web.accounts.ratings import apply_game_result
from exochess.web.compute.cpuwork import CpuWork
from exochess.web.compute.enginepool import EngineBackend
from exochess.web.domain import (
    N_,
    Color,
    Conflict,
    InvalidRequest,
    NotYourTurn,
    Opponent,
    PlayerKind,
    SeatChoice,
    StalePosition,
    TakebackAction,
    WrongSeat,
)
from exochess.web.game.analysis import POSITION_TIME_LIMIT_S
from exochess.web.game.berserk import Berserker
from exochess.web.game.cache import GameCache
from exochess.web.game.clock import Timing
from exochess.web.game.clockwatch import ClockWatch
from exochess.web.game.computer import Computer
from exochess.web.game.finisher import Finisher, TimeRanOut, game_over
from exochess.web.game.jsonview import JsonView
from exochess.web.game.live import LiveGame
from exochess.web.game.moves import MovePlayer
from exochess.web.game.newgames import Created, NewGames
from exochess.web.game.reader import GameReader
from exochess.web.game.recovery import Recovery
from exochess.web.game.sync import ClusterSync
from exochess.web.game.takebacks import Rematcher, Takebacker, check_action
from exochess.web.game.timecontrol import NO_CLOCK, TimeControl
from exochess.web.live.hub import Hub
from exochess.web.live.movenote import MoveNote
from exochess.web.storage.movestore import move_store
from exochess.web.storage.store import ConflictError, Storage
from exochess.web.storage.store import now as storage_now
from exochess.web.storage.threads import DbThreads

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
        # CPU-heavy work off the event loop: live games' views and replays in one pool, free
        # positions (analysis board, new games' FENs) in another, so floods of the latter
        # never delay the former.
        self.cpu_games = CpuWork("game views", workers=2, max_jobs=256, timeout_s=20.0)
        self.cpu_free = CpuWork(
            "position views", workers=1, max_jobs=4, timeout_s=position_time_limit_s, processes=True
        )
        self.cache = GameCache(storage, self._db, self.cpu_games, hub.online)
        self.view = JsonView(self.timing, hub.online, self.cpu_games)
        self.clocks = ClockWatch(self.timing, self.get)
        self.reader = GameReader(
            self.cache, self.view, hub, self.clocks.arm, lambda game_id: self.computer.thinking(game_id), pool
        )
        self.computer = Computer(pool, self.timing, self._computer_plays, self.reader.publish)
        self.moves = MovePlayer(
            move_store(storage, self._db, self.cpu_games), self.timing, self.reader.resync_later
        )
        self.finisher = Finisher(
            storage, self._db, self.timing, hub.online, self.reader.reload, self.cache.load_players
        )
        self.takebacks = Takebacker(storage, self._db, self.computer.cancel)
        self.rematches = Rematcher(storage, self._db, self.reader.reload, pool)
        self.berserker = Berserker(storage, self._db, self.reader.reload)
        self.new_games = NewGames(storage, self._db, self.cpu_free, pool)
        self.sync = ClusterSync(
            self.cache,
            lambda game_id: bool(hub.watchers(game_id)),
            self.reader.refresh,
            self.reader.send_state,
            self.clocks.arm,
            self.computer.schedule,
        )
        self.recovery = Recovery(storage, self._db, self.get, self.computer.schedule, self.sync.changed)

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

    # --- reading (the read side is :class:`GameReader`'s) ----------------------------------

    async def get(self, game_id: str, *, view: bool = True) -> LiveGame:
        """The game ``game_id``, its time judged first (a deadline passed ends it here).

        With ``view`` (the default) its legal-move view is ready too; a move does without it
        (it is checked on the board), so that a process computes the views of the positions it
        publishes only, not also those of the moves it hears of from the others.
        """
        live = await self.reader.fetch(game_id, view=view)
        await self.judge_time(live)
        return live

    async def on_remote_change(
        self, game_id: str, changed: bool, delivered: bool, note: object = None
    ) -> None:
        """An envelope about ``game_id`` from another process, in Redis mode
        (:meth:`ClusterSync.changed`)."""
        await self.sync.changed(game_id, changed, delivered, note)

    # --- time ----------------------------------------------------------------------------

    async def judge_time(self, live: LiveGame) -> None:
        """End the game if its side to move's time is out (abort or loss on time); otherwise
        make sure it is judged at its deadline."""
        if not self.clocks.due(live):
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
            await self.reader.publish(live)

    # --- endings -------------------------------------------------------------------------

    async def abort(self, game_id: str, secret: str | None, user_id: int | None = None) -> LiveGame:
        """Call the game off without a result (:meth:`Finisher.abort`); the seat is the one
        ``secret`` opens, or the one the account ``user_id`` holds."""
        return await self._end(game_id, secret, user_id, self.finisher.abort)

    async def claim(self, game_id: str, secret: str | None, user_id: int | None = None) -> LiveGame:
        """Claim the win over an absent opponent (:meth:`Finisher.claim`)."""
        return await self._end(game_id, secret, user_id, self.finisher.claim)

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
        await self.reader.publish(live)
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
            variant_name, opponent, level, color, fen, time_control, user_id, names, seat_secrets, owner
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
        berserkable: bool = False,
        engine: Color | None = None,
    ) -> tuple[LiveGame, dict[Color, str]]:
        """A game between two accounts, the lobby's entry point
        (:meth:`NewGames.create_between`), with both seat secrets; ``berserkable``: an arena
        tournament's game (its players may berserk); ``engine`` is the seat of a house bot, if
        one plays (the computer at its level)."""
        made = await self.new_games.create_between(
            variant_name,
            white_user,
            black_user,
            rated,
            time_control,
            names,
            seat_secrets,
            berserkable,
            engine,
        )
        return await self._started(made), made.secrets

    async def _started(self, made: Created) -> LiveGame:
        live = await self.get(made.game_id)
        self.computer.schedule(live)
        for listener in self.reader.listeners:
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
        await self.reader.publish(live, note)
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
            try:
                note = await self.moves.play(live, seat, text, ply, arrived, lag_ms, think_ms)
            except (NotYourTurn, StalePosition):
                if self.hub.bus is None:
                    raise
                # Redis mode: this process's copy may not have heard yet of a move another server
                # just stored (read-after-write across servers): judge again on the stored game
                await self.reader.reload(live)
                note = await self.moves.play(live, seat, text, ply, arrived, lag_ms, think_ms)
        except ConflictError as exc:
            await self.reader.reload(live)
            # the watchers may hold the state this process had (another one stored a move and
            # died before announcing it): send them the stored one
            self.reader.in_background(self.reader.publish(live))
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
        await self.reader.publish(live)
        self.computer.schedule(live)
        return live

    async def berserk(self, game_id: str, secret: str | None, user_id: int | None = None) -> LiveGame:
        """The seat ``secret`` opens (or the account ``user_id`` holds) berserks: half its time,
        no increment (:mod:`.berserk`; refused outside an arena game or after its first move)."""
        live = await self.get(game_id)
        async with live.lock:
            await self.berserker.berserk(live, live.seat(secret, user_id))
        await self.reader.publish(live)
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
        proved by the account, which holds the rematch's seat too).  ``owner`` is charged a
        computer rematch's place (:meth:`Rematcher.rematch`)."""
        live = await self.get(game_id)
        seat = live.seat(secret, user_id)
        if live.active:
            raise Conflict(N_("the game is still being played"))
        async with live.lock:
            rematch_id = await self.rematches.rematch(live, owner)
        new = await self.get(rematch_id)
        self.computer.schedule(new)
        await self.reader.publish(live)
        return new, seat.other, secret or None
