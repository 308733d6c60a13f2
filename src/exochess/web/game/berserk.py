"""Berserk (issue 46): in an arena tournament's game with a real-time clock, a player may, before
their own first move, halve their initial time and give up their increment, for a bonus point
in the arena if they win (the arena's scoring: :mod:`exochess.web.social.standings`).

What berserk does to the clock is the clock's (:mod:`exochess.web.game.clock`, the game row's
``white_berserk`` / ``black_berserk``); this module decides whether a seat may berserk, and
stores it.  The rules, lichess's as docs/tournaments.md says: only in an arena game, real-time
clocks only, once per player, before that player's first move; unlike lichess (which merely
drops the increment when the base time is small beside it) the base time is always halved, and
a clock without base time (``0+2``) cannot be berserked at all.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from exochess.web.domain import N_, Color, Conflict, GameOver, PlayerKind, StalePosition, WrongSeat
from exochess.web.game.live import LiveGame
from exochess.web.game.timecontrol import TimeControlKind
from exochess.web.storage.store import ConflictError, Storage
from exochess.web.storage.threads import DbThreads


def has_moved(live: LiveGame, seat: Color) -> bool:
    """Whether ``seat`` has made a move in the game."""
    ply = live.board.ply()
    return any(Color.to_move(live.row.start_fen, p) == seat for p in range(ply))


def check_berserk(live: LiveGame, seat: Color) -> None:
    """Refuse, with the reason, a berserk ``seat`` may not make now."""
    if not live.active:
        raise GameOver(N_("the game is over"))
    if live.kind_of(seat) != PlayerKind.HUMAN:
        raise WrongSeat(N_("that seat is played by the computer"))
    control = live.time_control
    if control.kind == TimeControlKind.CORRESPONDENCE:
        raise Conflict(N_("no berserk in a correspondence game"))
    if control.kind != TimeControlKind.REALTIME:
        raise Conflict(N_("berserk needs a real-time clock"))
    if not live.row.berserkable:
        raise Conflict(N_("berserk is only for arena tournament games"))
    if control.base_ms == 0:
        raise Conflict(N_("a clock without base time cannot be halved"))
    if seat in live.row.berserked:
        raise Conflict(N_("you have already berserked in this game"))
    if has_moved(live, seat):
        raise Conflict(N_("berserk is only possible before your first move"))


class Berserker:
    """Stores a seat's berserk.  Ports: the storage and its threads, ``reload`` (read a game
    again after another writer changed it)."""

    def __init__(
        self, storage: Storage, db: DbThreads, reload: Callable[[LiveGame], Awaitable[None]]
    ) -> None:
        self.storage = storage
        self.db = db
        self.reload = reload

    async def berserk(self, live: LiveGame, seat: Color) -> None:
        """With the game's lock held: check, store, then mark ``seat`` berserked in memory (the
        service publishes the new state)."""
        check_berserk(live, seat)
        ply = live.board.ply()
        try:
            await self.db.call(self.storage.set_berserk, live.row.id, ply, seat)
        except ConflictError as exc:
            await self.reload(live)  # another server moved the game on first
            raise StalePosition(N_("berserk not stored: {reason}"), reason=str(exc)) from exc
        if seat == Color.WHITE:
            live.row.white_berserk = True
        else:
            live.row.black_berserk = True
        live.state_cache = None
