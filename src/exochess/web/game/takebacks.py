"""Going back and going again: takebacks (:class:`Takebacker`) and rematches
(:class:`Rematcher`).  Each method runs with the game's lock held, stores first and then changes
the game in memory; the service publishes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from exochess.web.compute.enginepool import EngineBackend
from exochess.web.domain import (
    N_,
    Color,
    Conflict,
    GameOver,
    InvalidRequest,
    PlayerKind,
    StalePosition,
    TakebackAction,
)
from exochess.web.game.live import LiveGame, new_id
from exochess.web.storage.store import ConflictError, Storage
from exochess.web.storage.threads import DbThreads


def check_action(action: object) -> None:
    """Refuse an ``action`` that is not a :class:`~exochess.web.domain.TakebackAction`."""
    if action not in tuple(TakebackAction):
        raise InvalidRequest(N_("action must be 'offer', 'accept' or 'decline'"))


class Takebacker:
    """Offers, accepts and declines takebacks (granted at once by the computer).  Ports: the
    storage and its threads, ``cancel_engine`` (stop the computer's search in a game)."""

    def __init__(self, storage: Storage, db: DbThreads, cancel_engine: Callable[[str], None]) -> None:
        self.storage = storage
        self.db = db
        self.cancel_engine = cancel_engine

    async def act(self, live: LiveGame, seat: Color, action: TakebackAction | str) -> None:
        """``seat`` offers, accepts or declines taking back the offerer's last move (an
        ``action`` checked by :func:`check_action`)."""
        row = live.row
        if not live.active:
            raise GameOver(N_("the game is over"))
        if row.time_control not in (None, "-"):
            # a takeback would hand back clock time (or a correspondence deadline)
            raise Conflict(N_("no takebacks in a game with a clock"))
        other = seat.other
        ply = live.board.ply()
        if action == TakebackAction.OFFER:
            if self.target(live, seat) is None:
                raise Conflict(N_("you have no move to take back"))
            if live.kind_of(other) == PlayerKind.ENGINE:
                await self.take_back(live, seat)
            else:
                await self._stored(self.storage.set_takeback_offer, row.id, ply, seat)
                row.takeback_offer = seat
                live.state_cache = None
        elif action == TakebackAction.ACCEPT:
            if row.takeback_offer != other:
                raise Conflict(N_("there is no takeback offer to accept"))
            await self.take_back(live, other)
        else:
            if row.takeback_offer != other:
                raise Conflict(N_("there is no takeback offer to decline"))
            await self._stored(self.storage.set_takeback_offer, row.id, ply, None)
            row.takeback_offer = None
            live.state_cache = None

    async def _stored(self, fn: Callable[..., None], *args: Any) -> None:
        try:
            await self.db.call(fn, *args)
        except ConflictError as exc:
            raise StalePosition(str(exc)) from exc

    @staticmethod
    def target(live: LiveGame, seat: Color) -> int | None:
        """The ply to go back to so that ``seat``'s last move is undone (None if there is none)."""
        for p in range(live.board.ply() - 1, -1, -1):
            if Color.to_move(live.fens[0], p) == seat:
                return p
        return None

    async def take_back(self, live: LiveGame, seat: Color) -> None:
        """Undo ``seat``'s last move (and the reply after it)."""
        target = self.target(live, seat)
        if target is None:
            raise Conflict(N_("there is no move to take back"))
        self.cancel_engine(live.row.id)
        await self._stored(self.storage.take_back, live.row.id, live.board.ply(), target)
        live.take_back_to(target)


class Rematcher:
    """Creates a finished game's rematch, once.  Ports: the storage and its threads, ``reload``
    (read a game again after another writer changed it) and the engine backend (a computer
    rematch's place among the long moves)."""

    def __init__(
        self,
        storage: Storage,
        db: DbThreads,
        reload: Callable[[LiveGame], Awaitable[None]],
        pool: EngineBackend | None,
    ) -> None:
        self.storage = storage
        self.db = db
        self.reload = reload
        self.pool = pool

    async def rematch(self, live: LiveGame, owner: str | None) -> str:
        """The id of ``live``'s rematch (colours swapped), created if it has none yet.  Against
        the computer, a new rematch reserves its place among the long moves for ``owner`` first,
        as a new computer game does (:class:`~exochess.web.domain.EngineBusy` with Retry-After
        when there is none); one that exists had its place reserved by whoever created it."""
        pool = self.pool if live.row.level is not None and owner is not None else None
        if pool is None or owner is None or live.row.rematch_id is not None:
            return await self._create(live)
        key = await pool.reserve(owner, live.row.level or 0)
        try:
            rematch_id = await self._create(live)
        except BaseException:
            await pool.claim(key, "", owner)
            raise
        # before the computer's first move is asked, as for a new game
        await pool.claim(key, rematch_id, owner)
        return rematch_id

    async def _create(self, live: LiveGame) -> str:
        if live.row.rematch_id is None:
            row = live.row
            new = new_id()
            await self.db.call(
                lambda: self.storage.create_game(
                    id=new,
                    variant=row.variant,
                    start_fen=row.start_fen,
                    white=row.black,
                    black=row.white,
                    level=row.level,
                    # colours swap and each player keeps their secret: only digests are
                    # stored, so the second player to ask could not be handed a fresh one (and
                    # whoever holds a seat's secret could ask for its rematch anyway)
                    white_secret=row.black_secret,
                    black_secret=row.white_secret,
                    time_control=row.time_control,
                    white_user=row.black_user,
                    black_user=row.white_user,
                    rated=row.rated,
                    white_name=row.black_name,
                    black_name=row.white_name,
                )
            )
            if not await self.db.call(self.storage.set_rematch, live.row.id, new):
                await self.reload(live)  # another process linked its own rematch first
            else:
                live.row.rematch_id = new
                live.state_cache = None
        rematch_id = live.row.rematch_id
        assert rematch_id is not None
        return rematch_id
