"""Each account's event stream (``GET /api/stream/event``, issue 47) and the API's game streams,
carried by the websocket hub.

An account's events go to the hub key ``events:<account id>``: :meth:`UserEvents.emit` is a
hub broadcast, so in Redis mode an event made on one server process reaches the account's
streams on every other (the hub's pub/sub, :mod:`exochess.web.live.pubsub`).  A stream joins
the hub as a connection (:class:`StreamSocket`), with the hub's per-connection queue, caps per
client address and "too slow" cut-off.  A game stream joins the game's own key, as a
websocket watching the game does, holding the bot's seat: it gets every state the game's
watchers get, on whatever process the move was stored, and the seat shows online.

Game starts and ends are announced from the game service's listeners, which run on the one
process that made the change (the one that stored the new game, the last move, the
resignation...).  Two processes that both judge a flag at the deadline may each announce the
end (only one stores it): ``gameFinish`` can then come twice, which clients take as they take
lichess's (the game is over either way).

Which bots are online (an event stream open) is counted per process and, in Redis mode, shared
through :class:`~exochess.web.live.presence.SharedCounts` (kind :data:`ONLINE_COUNT`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator
from typing import Any

from exochess.web.domain import Color, GameStatus, PlayerKind
from exochess.web.game.live import LiveGame
from exochess.web.game.service import GameService
from exochess.web.live.hub import Connection
from exochess.web.social.apiview import game_state, speed_of, variant_key

log = logging.getLogger("exochess.web")

ONLINE_COUNT = "api-events"
"""The kind of shared count of an account's open event streams (Redis mode)."""
REMEMBERED = 10_000
"""Game ids remembered as announced (started, finished), to announce each once."""
STREAM_QUEUE = 256
"""Lines a stream may have waiting for its client before the hub cuts it off as too slow."""


def events_key(user_id: int) -> str:
    """The hub key of an account's event streams."""
    return f"events:{user_id}"


class StreamSocket:
    """A hub connection's far end that is an HTTP response instead of a websocket: what the
    hub sends is queued for the response's body; :meth:`close` ends the body."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(STREAM_QUEUE)
        self.closed = False

    async def send_text(self, data: str) -> None:
        await self.queue.put(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = True
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)

    async def messages(self, keepalive_s: float) -> AsyncIterator[str | None]:
        """The messages as they come; None after every ``keepalive_s`` without one (the
        stream then sends a bare newline, as lichess does, so that clients and proxies see it
        alive); ends when the hub closes the connection."""
        while True:
            try:
                message = await asyncio.wait_for(self.queue.get(), keepalive_s)
            except TimeoutError:
                yield None
                continue
            if message is None:
                return
            yield message


def game_json(live: LiveGame, color: Color, state: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``game`` of a ``gameStart``/``gameFinish`` event, for the player of ``color``."""
    row = live.row
    opponent = live.players.get(color.other)
    other: dict[str, Any]
    if opponent is not None:  # an account, a house bot's included (the computer at its level)
        other = {
            "id": (opponent["name"] or "").lower() or None,
            "username": opponent["name"],
            "rating": opponent["rating"],
            "title": opponent.get("title"),
        }
    elif live.kind_of(color.other) == PlayerKind.ENGINE:
        other = {"id": None, "username": f"AI level {row.level}", "ai": row.level}
    else:
        other = {"id": None, "username": row.name_of(color.other) or "Anonymous"}
    out: dict[str, Any] = {
        "gameId": row.id,
        "fullId": row.id,
        "id": row.id,
        "color": str(color),
        "fen": live.board.fen(),
        "isMyTurn": row.status == GameStatus.ACTIVE and live.to_move() == color,
        "lastMove": row.moves[-1] if row.moves else "",
        "variant": variant_key(row.variant),
        "speed": speed_of(row.time_control),
        "rated": row.rated,
        "opponent": other,
        "source": _source(live, color),
        "status": {"name": "started" if row.status == GameStatus.ACTIVE else str(row.status)},
    }
    if state is not None and row.status != GameStatus.ACTIVE:
        final = game_state(state, 0)
        out["status"] = {"name": final["status"]}
        out["winner"] = final.get("winner")
    return out


def _source(live: LiveGame, color: Color) -> str:
    """lichess's ``source`` of a game, as far as the game's row tells it: ``arena`` for an arena
    tournament's game (the only games a player may berserk), ``ai`` against the engine's seat
    (a house bot's account included: the computer at its level), else ``friend`` (a challenge,
    a lobby seek or a Swiss round: the row does not say which)."""
    if live.row.berserkable:
        return "arena"
    if live.kind_of(color.other) == PlayerKind.ENGINE:
        return "ai"
    return "friend"


class UserEvents:
    """Sends accounts their events, and counts their open event streams."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.hub = service.hub
        self._streams: Counter[int] = Counter()
        self._started: OrderedDict[str, None] = OrderedDict()
        self._finished: OrderedDict[str, None] = OrderedDict()
        self._tasks: set[asyncio.Task[Any]] = set()
        service.reader.listeners.append(self._game_changed)

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def emit(self, user_id: int, event: dict[str, Any]) -> None:
        """Send ``event`` to every event stream of ``user_id`` (on every server process)."""
        await self.hub.broadcast(events_key(user_id), json.dumps(event))

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- streams ---------------------------------------------------------------------------

    def open(self, user_id: int, address: str) -> tuple[StreamSocket, Connection]:
        """A new event stream of ``user_id``: joined to its hub key, counted online."""
        socket = StreamSocket()
        conn = self.hub.join(events_key(user_id), socket, None, address)
        self._streams[user_id] += 1
        self._share(user_id)
        return socket, conn

    def close_stream(self, user_id: int, socket: StreamSocket) -> None:
        self.hub.leave(events_key(user_id), socket)
        self._streams[user_id] -= 1
        if self._streams[user_id] <= 0:
            del self._streams[user_id]
        self._share(user_id)

    def _share(self, user_id: int) -> None:
        if self.hub.counts is not None:
            self.hub.counts.set(ONLINE_COUNT, str(user_id), self._streams[user_id])

    async def online(self, user_ids: list[int]) -> set[int]:
        """Those of ``user_ids`` with an event stream open (on any server process)."""
        here = {u for u in user_ids if self._streams[u] > 0}
        counts = self.hub.counts
        if counts is None:
            return here
        rest = [u for u in user_ids if u not in here]
        found = await asyncio.gather(*(counts.others(ONLINE_COUNT, str(u)) for u in rest))
        return here | {u for u, n in zip(rest, found, strict=True) if n > 0}

    # --- games starting and ending -----------------------------------------------------------

    @staticmethod
    def _remember(seen: OrderedDict[str, None], game_id: str) -> bool:
        """Note ``game_id`` in ``seen``; False if it was there already."""
        if game_id in seen:
            return False
        seen[game_id] = None
        while len(seen) > REMEMBERED:
            seen.popitem(last=False)
        return True

    def _game_changed(self, live: LiveGame) -> None:
        row = live.row
        if row.white_user is None and row.black_user is None:
            return
        if row.status == GameStatus.ACTIVE:
            if row.ply == 0 and self._remember(self._started, row.id):
                self._spawn(self._announce("gameStart", live))
        elif self._remember(self._finished, row.id):
            self._spawn(self._announce("gameFinish", live))

    async def _announce(self, kind: str, live: LiveGame) -> None:
        state = self.service.reader.state(live) if kind == "gameFinish" else None
        for color in Color:
            user_id = live.row.user_of(color)
            # a house bot has no stream to tell: the server plays it (its engine seat)
            if user_id is not None and self.service.new_games.house_level(user_id) is None:
                try:
                    await self.emit(user_id, {"type": kind, "game": game_json(live, color, state)})
                except Exception:  # one account's stream must not stop the other's event
                    log.exception("cannot announce %s of game %s", kind, live.row.id)
