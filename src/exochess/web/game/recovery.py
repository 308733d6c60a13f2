"""Games picked up again (:class:`Recovery`): after a server's start, every game waiting for the
computer's move or for a deadline; in Redis mode, a computer move that the engine sweep
(:mod:`exochess.web.game.sweep`) found never queued.

Nothing here stores or publishes: a game is read through the service (which judges its time,
ending it if a deadline passed while the server was down, and arms its clock's timer), then
handed to the computer, which moves if it is to."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from exochess.web.game.live import LiveGame
from exochess.web.storage.store import Storage
from exochess.web.storage.threads import DbThreads

log = logging.getLogger("exochess.web")


class Recovery:
    """Ports: the storage and its threads (which games to pick up), ``get`` (the service reading
    a game, its time judged), ``schedule`` (the computer's turn started if it is to move) and
    ``changed`` (a change never announced: the cached copy is read again)."""

    def __init__(
        self,
        storage: Storage,
        db: DbThreads,
        get: Callable[[str], Awaitable[LiveGame]],
        schedule: Callable[[LiveGame], None],
        changed: Callable[[str, bool, bool], Awaitable[None]],
    ) -> None:
        self.storage = storage
        self.db = db
        self.get = get
        self.schedule = schedule
        self.changed = changed

    async def resume(self) -> None:
        """After a start: let the computer move in every game waiting for it, judge every
        unfinished timed game now (a deadline that passed while the server was down ends its
        game) and watch the others' deadlines (reading a game does both)."""
        for what, ids in (
            ("resume", self.storage.active_engine_games),
            ("watch the clock of", self.storage.active_timed_games),
        ):
            for game_id in await self.db.call(ids):
                try:  # (scheduling does nothing unless the computer is to move and not thinking)
                    self.schedule(await self.get(game_id))
                except Exception:
                    log.exception("cannot %s game %s", what, game_id)

    async def resume_engine_game(self, game_id: str) -> None:
        """Queue the computer's move in ``game_id`` if it waits for one (the engine sweep of
        Redis mode: the server that stored the player's move may have died before queueing it);
        the game is read again first, since that change was never announced."""
        await self.changed(game_id, True, False)
        self.schedule(await self.get(game_id))
