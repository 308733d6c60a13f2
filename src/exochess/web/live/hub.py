"""Websocket fan-out: every connection watching a game gets each new state.

Each connection has its own outgoing queue and writer task, so a slow or stuck
client never delays a move's acknowledgement or the other watchers; a client
that falls too far behind is disconnected (it reconnects and gets the state).
States are coalesced per connection: a state still waiting to be sent is replaced
by the newer one (each is complete), so a busy game costs a slow watcher one
message per write it can take, not one per change.

The hub also counts connections per game and per client address and refuses a
new one beyond :attr:`Hub.per_game` or :attr:`Hub.per_address` (defaults from
the settings ``EXOCHESS_WS_PER_GAME`` and ``EXOCHESS_WS_PER_ADDRESS``).  Alone, a process counts its own
connections; in Redis mode the caps hold for the whole site (:meth:`Hub.refusal_anywhere` adds
the other processes' counts, shared through :class:`~exochess.web.live.presence.SharedCounts`).

Across processes (Redis mode, see :mod:`exochess.web.live.pubsub`) the interface stays
``broadcast(key, message)``: with a bus attached, what one process broadcasts also reaches the
connections of every other process, and each process's seat counts are shared so that
:meth:`Hub.online` tells the presence of the whole site.  Seat counts are sent when they
change and repeated every :data:`SEATS_REFRESH_S`; those of a process not heard of for
:data:`SEATS_TTL_S` (it died) are dropped.  When the others' counts change what
:meth:`Hub.online` says, :attr:`Hub.on_presence` tells the game service, which updates the
absence clocks and tells this process's watchers: presence messages are never broadcast, each
process announces the presence it knows to its own connections.  A state does cross processes
with the presence its sender knew; a receiver that knows better follows it with its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, Protocol

from exochess.web import metrics
from exochess.web.domain import Color

if TYPE_CHECKING:
    # exochess.web.live.presence needs the redis package, which only Redis mode installs
    # (the `cluster` extra): a server alone must start without it.
    from exochess.web.live.presence import SharedCounts

QUEUE_LIMIT = 64
PER_GAME = 1000
"""Default cap on the websockets watching one game."""
PER_ADDRESS = 64
"""Default cap on the websockets open from one client address (all games together)."""
SEATS_REFRESH_S = 10.0
"""How often a process repeats its seat counts to the others (Redis mode; the shared counts'
the setting ``EXOCHESS_PRESENCE_REFRESH_S`` sets another period)."""
SEATS_TTL_S = 3 * SEATS_REFRESH_S
"""Seat counts of a process not heard of for this long are forgotten (it died)."""
ADDRESS_COUNT = "ws-address"
GAME_COUNT = "ws-game"
"""Kinds of :class:`~exochess.web.live.presence.SharedCounts` the caps read."""


class Bus(Protocol):
    """What the hub needs of a transport between processes (:class:`~exochess.web.live.pubsub.RedisBus`)."""

    origin: str

    async def publish(self, envelope: dict[str, Any]) -> bool: ...

    def post(self, envelope: dict[str, Any]) -> None: ...


class Socket(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class _Latest:
    """Queue marker: send the connection's newest state at this point."""


LATEST: Final = _Latest()


class Connection:
    """One websocket watching a game, with the seat it proved (None for a spectator)."""

    def __init__(self, socket: Socket, seat: Color | None, address: str = "") -> None:
        self.socket = socket
        self.seat = seat
        self.address = address
        self.queue: asyncio.Queue[str | _Latest | None] = asyncio.Queue(QUEUE_LIMIT)
        self.latest: str | None = None
        self.task = asyncio.create_task(self._writer())

    async def _writer(self) -> None:
        while True:
            message = await self.queue.get()
            if message is None:
                return
            if isinstance(message, _Latest):
                message, self.latest = self.latest, None
                if message is None:
                    continue
            try:
                await self.socket.send_text(message)
            except Exception:
                return

    def push(self, message: str, *, coalesce: bool = False) -> bool:
        """Queue ``message`` without waiting; False if the connection is gone or too far behind.

        With ``coalesce`` (whole states), a state already waiting is replaced instead.
        """
        if self.task.done():
            return False
        if coalesce:
            pending = self.latest is not None
            self.latest = message
            if pending:
                return True
        try:
            self.queue.put_nowait(LATEST if coalesce else message)
        except asyncio.QueueFull:
            return False
        return True

    async def send(self, message: str) -> None:
        """Send in order with the broadcasts (through the same queue), waiting for room."""
        await self.queue.put(message)

    async def finish(self, timeout_s: float = 2.0) -> None:
        """Stop after the messages queued so far are sent (at most ``timeout_s``), so that a
        close the caller sends next comes after them, not before."""
        self.stop()
        with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(self.task), timeout_s)

    def stop(self) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)
        if not self.task.done() and self.queue.full():
            self.task.cancel()


class Hub:
    """Connections by game id, each with the seat (colour) it proved, or None for a spectator.

    ``join``, ``set_seat`` and ``leave`` say whether the game's presence (which seats have a
    connection) changed, so that the caller tells the watchers only then.
    """

    def __init__(self, per_game: int = PER_GAME, per_address: int = PER_ADDRESS) -> None:
        self.per_game = per_game
        self.per_address = per_address
        self._rooms: dict[str, dict[Socket, Connection]] = {}
        self._seats: dict[str, Counter[Color]] = {}
        self._addresses: Counter[str] = Counter()
        self.bus: Bus | None = None
        self.on_remote: Callable[[str, bool, bool, Any], Awaitable[None]] | None = None
        """Called for each envelope from another process: (key, the stored game changed, its
        message was delivered here, the envelope's move note or None); the game service
        updates or invalidates its cache with it."""
        self.on_presence: Callable[[str], Awaitable[None]] | None = None
        """Called with the key when a game's presence changed because another process's seats
        came or went, or that process died (its seat counts expired), or when another
        process's state was delivered here with a presence this process knows otherwise; not
        for this process's own joins and leaves, which the websocket route handles.  Each
        process tells its own watchers."""
        self.poke_listeners: list[Callable[[str], None]] = []
        """Told of each poke from another process (:meth:`poke`), with its key."""
        self._remote: dict[str, dict[str, tuple[float, int, int]]] = {}
        """Seat counts of the other processes: key -> origin -> (when heard, white, black)."""
        self.counts: SharedCounts | None = None
        self.seats_refresh_s = SEATS_REFRESH_S
        self.seats_ttl_s = SEATS_TTL_S
        self._tasks: set[asyncio.Task[Any]] = set()

    def attach(
        self, bus: Bus, counts: SharedCounts | None = None, refresh_s: float = SEATS_REFRESH_S
    ) -> None:
        """Share broadcasts and presence with the other processes through ``bus``, and the
        connection counts (for the caps) through ``counts`` (in the loop); the seats present
        are written again every ``refresh_s`` seconds."""
        self.bus = bus
        self.counts = counts
        self.seats_refresh_s = refresh_s
        self.seats_ttl_s = 3 * self.seats_refresh_s
        self._spawn(self._refresh_seats())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _refresh_seats(self) -> None:
        while True:
            await asyncio.sleep(self.seats_refresh_s)
            for game_id in list(self._seats):
                await self._publish_seats(game_id)
            await self._forget_silent()

    async def _forget_silent(self) -> None:
        """Drop the seat counts of the processes not heard of for the TTL (they died)."""
        stale = time.monotonic() - self.seats_ttl_s
        for key in list(self._remote):
            # as announced so far: online() has already stopped counting the silent ones
            before = self._online_since(key, -math.inf)
            origins = self._remote[key]
            for origin, (heard, _white, _black) in list(origins.items()):
                if heard < stale:
                    del origins[origin]
            if not origins:
                del self._remote[key]
            if self.online(key) != before and self.on_presence is not None:
                await self.on_presence(key)

    async def _publish_seats(self, game_id: str) -> None:
        if self.bus is not None:
            seats = self._seats.get(game_id) or Counter()
            await self.bus.publish({"k": game_id, "s": [seats[Color.WHITE], seats[Color.BLACK]]})

    def refusal(self, game_id: str, address: str, *, elsewhere: tuple[int, int] = (0, 0)) -> str | None:
        """Why a new connection from ``address`` to ``game_id`` is refused (None: it is welcome),
        counting this process's connections and ``elsewhere``'s (the other processes' from the
        address, to the game)."""
        if self._addresses[address] + elsewhere[0] >= self.per_address:
            return f"too many connections from your address (at most {self.per_address})"
        if len(self._rooms.get(game_id, ())) + elsewhere[1] >= self.per_game:
            return f"too many connections to this game (at most {self.per_game})"
        return None

    async def refusal_anywhere(self, game_id: str, address: str) -> str | None:
        """:meth:`refusal` for the whole site: in Redis mode the other processes' connections
        count too (if Redis does not answer, this process's alone)."""
        if self.counts is None:
            return self.refusal(game_id, address)
        local = self.refusal(game_id, address)
        if local is not None:
            return local  # no need to ask Redis
        from_address, to_game = await asyncio.gather(
            self.counts.others(ADDRESS_COUNT, address), self.counts.others(GAME_COUNT, game_id)
        )
        return self.refusal(game_id, address, elsewhere=(from_address, to_game))

    def _count(self, game_id: str, address: str) -> None:
        if self.counts is not None:
            self.counts.set(ADDRESS_COUNT, address, self._addresses.get(address, 0))
            self.counts.set(GAME_COUNT, game_id, len(self._rooms.get(game_id, ())))

    def join(self, game_id: str, socket: Socket, seat: Color | None, address: str = "") -> Connection:
        conn = Connection(socket, None, address)
        metrics.WEBSOCKETS.inc()
        self._rooms.setdefault(game_id, {})[socket] = conn
        self._seats.setdefault(game_id, Counter())
        self._addresses[address] += 1
        self._count(game_id, address)
        self.set_seat(game_id, conn, seat)
        return conn

    def set_seat(self, game_id: str, conn: Connection, seat: Color | None) -> bool:
        """Give ``conn`` the seat it proved; True if the game's presence changed."""
        before = self.online(game_id)
        seats = self._seats[game_id]
        if conn.seat == seat:
            return False
        if conn.seat is not None:
            seats[conn.seat] -= 1
        conn.seat = seat
        if seat is not None:
            seats[seat] += 1
        if self.bus is not None:
            self._spawn(self._publish_seats(game_id))
        return self.online(game_id) != before

    def leave(self, game_id: str, socket: Socket) -> bool:
        """Forget ``socket``; True if the game's presence changed."""
        room = self._rooms.get(game_id)
        if room is None:
            return False
        conn = room.pop(socket, None)
        if conn is None:
            return False
        conn.stop()
        metrics.WEBSOCKETS.dec()
        changed = self.set_seat(game_id, conn, None)
        self._addresses[conn.address] -= 1
        if self._addresses[conn.address] <= 0:
            del self._addresses[conn.address]
        if not room:
            del self._rooms[game_id]
            del self._seats[game_id]
        self._count(game_id, conn.address)
        return changed

    def online(self, game_id: str) -> dict[Color, bool]:
        """Whether each seat has at least one connection (in any process)."""
        return self._online_since(game_id, time.monotonic() - self.seats_ttl_s)

    def _online_since(self, game_id: str, fresh: float) -> dict[Color, bool]:
        """:meth:`online`, counting the other processes heard of since ``fresh``."""
        seats = self._seats.get(game_id)
        here = {color: bool(seats and seats[color] > 0) for color in Color}
        remote = self._remote.get(game_id)
        if remote:
            for heard, white, black in remote.values():
                if heard >= fresh:
                    here[Color.WHITE] = here[Color.WHITE] or white > 0
                    here[Color.BLACK] = here[Color.BLACK] or black > 0
        return here

    def _online_pair(self, game_id: str) -> list[bool]:
        """:meth:`online` as an envelope carries it: ``[white, black]``."""
        online = self.online(game_id)
        return [online[Color.WHITE], online[Color.BLACK]]

    def watchers(self, game_id: str) -> int:
        return len(self._rooms.get(game_id, {}))

    async def broadcast(
        self,
        game_id: str,
        message: str,
        *,
        coalesce: bool = False,
        changed: bool = False,
        note: dict[str, Any] | None = None,
    ) -> None:
        """Send ``message`` to every connection of the game (``coalesce``: it is a whole state),
        in this process and, with a bus, in the others (``changed``: the stored game changed,
        their caches of it are stale, unless ``note`` (a move note, see
        :mod:`exochess.web.live.pubsub`) lets them bring their copy up to date)."""
        await self.deliver(game_id, message, coalesce=coalesce)
        if self.bus is not None:
            envelope = {"k": game_id, "m": message, "c": coalesce, "ch": changed}
            if note is not None:
                envelope["a"] = note
            if coalesce:  # a state, which tells who is online as this process knows it
                envelope["on"] = self._online_pair(game_id)
            # queued, not awaited: what changed is stored already, and the caller (a player's
            # move) need not wait for Redis; the bus sends its envelopes in order
            self.bus.post(envelope)

    def poke(self, key: str) -> None:
        """Tell the other processes that what ``key`` names changed in the database, without a
        message: each of them reads it again for its own connections (a tournament's view,
        which every process recounts from the same rows, rather than one process's view
        travelling and racing with the others').  Nothing without a bus."""
        if self.bus is not None:
            self.bus.post({"k": key, "p": 1})

    async def receive(self, envelope: dict[str, Any]) -> None:
        """Handle an envelope from another process (the bus calls this)."""
        key = envelope.get("k")
        if not isinstance(key, str):
            return
        if envelope.get("p"):
            for listener in self.poke_listeners:
                listener(key)
            return
        seats = envelope.get("s")
        if isinstance(seats, list) and len(seats) == 2:
            origin = str(envelope.get("o"))
            before = self.online(key)
            if any(seats):
                self._remote.setdefault(key, {})[origin] = (time.monotonic(), int(seats[0]), int(seats[1]))
            else:
                self._remote.get(key, {}).pop(origin, None)
                if not self._remote.get(key, True):
                    del self._remote[key]
            if self.online(key) != before:
                if self.on_remote is not None:
                    await self.on_remote(key, False, False, None)
                if self.on_presence is not None:
                    await self.on_presence(key)
            return
        message = envelope.get("m")
        if isinstance(message, str):
            await self.deliver(key, message, coalesce=bool(envelope.get("c")))
            told = envelope.get("on")
            if told is not None and told != self._online_pair(key) and self.on_presence is not None:
                # the state went out with its sender's view of the seats, older than this
                # process's: what this process knows follows it (see on_presence)
                await self.on_presence(key)
        if self.on_remote is not None:
            await self.on_remote(key, bool(envelope.get("ch")), isinstance(message, str), envelope.get("a"))

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def deliver(self, game_id: str, message: str, *, coalesce: bool = False) -> None:
        """Send ``message`` to the connections of this process only."""
        await self.deliver_each(game_id, lambda _conn: message, coalesce=coalesce)

    async def deliver_each(
        self, game_id: str, message_of: Callable[[Connection], str | None], *, coalesce: bool = False
    ) -> None:
        """Send each connection of this process in the room its own message (``message_of``
        returns it, or None for nothing: a tournament's pages); a connection too far behind is
        closed."""
        for socket, conn in list(self._rooms.get(game_id, {}).items()):
            message = message_of(conn)
            if message is not None and not conn.push(message, coalesce=coalesce):
                self.leave(game_id, socket)
                with contextlib.suppress(Exception):
                    await socket.close(code=1013, reason="too slow")
