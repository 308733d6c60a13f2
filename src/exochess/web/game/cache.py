"""The live games a server holds in memory (:class:`GameCache`): loaded from the database on
demand (replayed off the event loop), read again when another process changed them, forgotten
when idle beyond :data:`CACHE_GAMES`."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable

from exochess.board import Board
from exochess.web.accounts.ratings import player_infos
from exochess.web.domain import Color, GameNotFound
from exochess.web.game.live import LiveGame, is_game_id
from exochess.web.storage.movestore import Runner
from exochess.web.storage.store import GameRow, Storage
from exochess.web.storage.store import now as storage_now
from exochess.web.storage.threads import DbThreads

CACHE_GAMES = 5000
"""Live games kept in memory; older idle ones are reloaded from the database on demand."""


class GameCache:
    """Live games by id, least recently used first.  Ports: storage and its threads, the pool
    that replays games (``cpu``) and ``online`` (which seats of a game are connected)."""

    def __init__(
        self, storage: Storage, db: DbThreads, cpu: Runner, online: Callable[[str], dict[Color, bool]]
    ) -> None:
        self.storage = storage
        self.db = db
        self.cpu = cpu
        self.online = online
        self.games: OrderedDict[str, LiveGame] = OrderedDict()
        self.loading: dict[str, asyncio.Lock] = {}
        self.changed_while_loading: set[str] = set()
        """Games another process changed while this one was reading them (Redis mode)."""

    def cached(self, game_id: str) -> LiveGame | None:
        """The game if it is in memory (marked as just used)."""
        live = self.games.get(game_id)
        if live is not None:
            self.games.move_to_end(game_id)
        return live

    async def load(self, game_id: str, busy: Callable[[str, LiveGame], bool]) -> LiveGame:
        """The game, read from the database if it is not in memory (one read for many callers
        at once); ``busy`` tells which games may not be forgotten to make room."""
        if not is_game_id(game_id):
            raise GameNotFound(game_id)
        lock = self.loading.setdefault(game_id, asyncio.Lock())
        async with lock:
            live = self.games.get(game_id)
            if live is not None:
                return live
            row = await self.db.call(self.storage.load_game, game_id)
            if row is None:
                # keep nothing for an id that does not exist: a client asking for many made-up
                # ids must not grow the server's memory (the next request asks again)
                if self.loading.get(game_id) is lock:
                    del self.loading[game_id]
                raise GameNotFound(game_id)
            live = await self.cpu.run("replaying the game", self.build, row)
            loaded = storage_now()
            live.absent_since = {c: None if self.online(game_id)[c] else loaded for c in Color}
            await self.load_players(live)
            if game_id in self.changed_while_loading:
                self.changed_while_loading.discard(game_id)
                live.stale = True  # the row may have been read before that change
            self.games[game_id] = live
            self.evict(busy)
        return live

    def evict(self, busy: Callable[[str, LiveGame], bool]) -> None:
        """Forget the least recently used games beyond :data:`CACHE_GAMES` that are not
        ``busy`` (they are reloaded from the database when needed again)."""
        excess = len(self.games) - CACHE_GAMES
        if excess <= 0:
            return
        for game_id in list(self.games)[: excess * 2]:
            if excess <= 0:
                break
            live = self.games[game_id]
            if live.lock.locked() or busy(game_id, live):
                continue
            del self.games[game_id]
            self.loading.pop(game_id, None)
            excess -= 1

    def build(self, row: GameRow) -> LiveGame:
        """The game of ``row``, replayed (CPU work)."""
        board = Board(row.variant, fen=row.start_fen)
        fens = [board.fen()]
        for text in row.moves:
            board.push_text(text)
            fens.append(board.fen())
        board.is_game_over()  # lists the current moves here, off the loop (the board keeps them)
        return LiveGame(row=row, board=board, fens=fens)

    @staticmethod
    def extend(board: Board, fens: list[str], row: GameRow) -> LiveGame:
        """``board`` (at ``len(fens) - 1`` plies of ``row``) brought to the end of ``row``'s moves."""
        for text in row.moves[board.ply() :]:
            board.push_text(text)
            fens.append(board.fen())
        board.is_game_over()  # lists the current moves here, off the loop (as build does)
        return LiveGame(row=row, board=board, fens=fens)

    async def reload(self, live: LiveGame) -> None:
        """Read the game again from the database (another writer changed it)."""
        row = await self.db.call(self.storage.load_game, live.row.id)
        if row is None:
            return
        known = live.row.moves
        if row.start_fen == live.row.start_fen and row.moves[: len(known)] == known:
            # moves were only added (another process played them): play those on a copy rather
            # than replay the whole game
            fresh = await self.cpu.run(
                "replaying the game", self.extend, live.board.copy(), list(live.fens), row
            )
        else:
            fresh = await self.cpu.run("replaying the game", self.build, row)
        live.row, live.board, live.fens = fresh.row, fresh.board, fresh.fens
        live.state_cache = None
        live.legal_view = None
        await self.load_players(live)

    async def load_players(self, live: LiveGame) -> None:
        """Read the names and ratings of the accounts holding the game's seats (again after a
        rated game ends: the ratings changed)."""
        row = live.row
        if row.white_user is None and row.black_user is None:
            live.players = {}
            return
        live.players = await self.db.call(player_infos, self.storage.engine, row)
        live.state_cache = None
