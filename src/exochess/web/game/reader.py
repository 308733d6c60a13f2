"""The read side of live games (:class:`GameReader`): a game fetched up to date (from the
cache, read again when another process changed it, its legal-move view ready), and its state
and presence sent out to the watchers.

It changes no game: what it does to one is read it again or send it, so the service (the one
orchestrator, :mod:`.service`) calls it before and after every step, and hands its methods to
the collaborators that need them as ports.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

from exochess.web.compute.enginepool import EngineBackend
from exochess.web.domain import GameServiceError
from exochess.web.game.cache import GameCache
from exochess.web.game.jsonview import JsonView
from exochess.web.game.live import LiveGame
from exochess.web.live.hub import Hub
from exochess.web.live.movenote import MoveNote


class GameReader:
    """Live games read and sent.  Ports: the cache, the JSON view, the websocket hub, ``arm``
    (judge a game at its next deadline), ``thinking`` (whether the computer thinks in a game)
    and the engine backend (a finished computer game frees its place there)."""

    def __init__(
        self,
        cache: GameCache,
        view: JsonView,
        hub: Hub,
        arm: Callable[[LiveGame], None],
        thinking: Callable[[str], bool],
        pool: EngineBackend | None,
    ) -> None:
        self.cache = cache
        self.view = view
        self.hub = hub
        self.arm = arm
        self.thinking = thinking
        self.pool = pool
        self.listeners: list[Callable[[LiveGame], None]] = []
        """Told of every published change and every new game (the lobby's list of live games)."""
        self._background: set[asyncio.Task[None]] = set()

    async def fetch(self, game_id: str, *, view: bool = True) -> LiveGame:
        """The game ``game_id`` as stored (read again if another process changed it), with its
        legal-move view ready when ``view``; its time is not judged here (the service's
        :meth:`~exochess.web.game.service.GameService.get` does that)."""
        live = self.cache.cached(game_id)
        if live is None:
            live = await self.cache.load(game_id, self.busy)
        if live.stale:
            # also a game just loaded: a change announced while it was being read may be
            # missing from what was read (a watcher joining now would never get it)
            await self.refresh(live)
        if view:
            await self.view.prepare(live)
        return live

    def busy(self, game_id: str, _live: LiveGame) -> bool:
        """Whether a game in memory is in use beyond its lock (watched, or the computer thinks):
        the cache may not forget it."""
        return bool(self.hub.watchers(game_id)) or self.thinking(game_id)

    async def reload(self, live: LiveGame) -> None:
        """Read the game again from the database, and watch its (new) deadline."""
        await self.cache.reload(live)
        self.arm(live)

    async def refresh(self, live: LiveGame) -> None:
        """Read a game another process changed again (cleared first: a change announced during
        the read marks it stale again)."""
        async with live.lock:
            while live.stale:
                live.stale = False
                await self.reload(live)

    def in_background(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` as a task of its own, kept until it ends."""
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def resync_later(self, live: LiveGame) -> None:
        """Reload ``live`` once its lock is free (after a cancelled write whose outcome is unknown)."""

        async def resync() -> None:
            async with live.lock:
                with contextlib.suppress(GameServiceError):
                    await self.reload(live)

        self.in_background(resync())

    def state(self, live: LiveGame) -> dict[str, Any]:
        """The game's state as plain data (its ``legal`` tree that of :meth:`JsonView.prepare`)."""
        return self.view.state(live)

    def state_text(self, live: LiveGame) -> str:
        """The game's state as JSON text (cached until the game changes)."""
        return self.view.state_text(live)

    async def publish(self, live: LiveGame, note: MoveNote | None = None) -> None:
        """Send the game's new state to its watchers (here and, in Redis mode, in the other
        processes: ``note`` is the one move that made it, which they play on their copies;
        without one they read the game again)."""
        live.state_cache = None
        self.arm(live)
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

    async def send_state(self, live: LiveGame) -> None:
        """Send the watchers here the game's state (another process changed it)."""
        await self.view.prepare(live)
        await self.hub.deliver(live.row.id, self.state_text(live), coalesce=True)

    async def announce_presence(self, live: LiveGame) -> None:
        """Tell this process's watchers which seats are online and since when the others are
        gone (only here: a message to every process would carry the sender's view, which can be
        older than the receiver's)."""
        await self.hub.deliver(live.row.id, self.view.presence(live))

    async def remote_presence(self, game_id: str) -> None:
        """Seats held on another server came or went, or that server died: the absence clocks
        here follow (a claim through this server counts the same absence), and this process's
        watchers are told."""
        live = self.cache.games.get(game_id)
        if live is not None:
            await self.announce_presence(live)

    async def account_changed(self, user_id: int) -> None:
        """Show the games in memory that ``user_id`` plays with the account as it now is (a
        deleted account becomes "deleted player")."""
        for live in list(self.cache.games.values()):
            if user_id in (live.row.white_user, live.row.black_user):
                await self.cache.load_players(live)
                await self.publish(live)
