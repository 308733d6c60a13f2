"""Redis pub/sub between server processes: every stored change, sent to every server.

Without Redis a server is alone and its :class:`~exochess.web.live.hub.Hub` delivers to its own
websockets only.  With ``$EXOCHESS_REDIS_URL`` each hub also hands what it broadcasts to a
:class:`RedisBus`, which publishes it on one channel as a small JSON *envelope*; every other
process receives the envelope, delivers its message to its own websockets, and brings its
cached copy of the game up to date: from the move note when the change is one move that follows
on, otherwise by reading the game again from the database.

An envelope is a small JSON object with short keys, sent as one line; the message for the
websockets, when there is one, follows the line's newline as it is (a state is already JSON
text: escaped inside the envelope it cost each process a second encoding and decoding of the
whole state for every move).  JSON text has no raw newline, so the first one ends the header.
The keys:

- ``o``: the origin (a random id per process; a process ignores its own envelopes);
- ``k``: the hub key (a game id, or a channel such as ``"lobby"``);
- ``m``: the message text for the websockets (after the header on the wire), or none (an
  engine worker stored a move and has no state to send: each server brings its copy up to
  date, from the move note when there is one, and sends its own);
- ``c``: the message is a whole state (coalesced per connection, see the hub);
- ``ch``: the stored game changed (caches of the key are invalidated);
- ``a``: with ``ch``, when the change is exactly one move added to the game: that move as a
  :class:`~exochess.web.live.movenote.MoveNote`, so that the other processes play it on their copy
  of the game instead of reading the game again from the database;
- ``on``: with a state (``c``), whether each seat of the game ``k`` was online as the origin
  knew it (``[white, black]``): a receiver whose own view differs tells its websockets its own
  after the state (the state's presence is the origin's);
- ``s``: instead of a message, the origin's count of connections per seat of the game
  ``k`` (``[white, black]``), so that presence is shared across processes;
- ``p``: instead of a message, a *poke*: what the key names (a tournament's room) changed in the
  database; each receiver reads it again for its own websockets (see ``Hub.poke``);
- ``ts``: when the origin published it (Unix seconds): the receiver's
  ``exochess_bus_lag_seconds`` is how long after that it took the envelope up (comparable
  between processes whose clocks agree, as on one machine).

Ordering: Redis delivers one publisher's envelopes in order.  Between publishers the order of
stored changes is the database's (the guarded update of :mod:`exochess.web.storage.store`); a
receiver forwards a state as it comes (so it is fast).  A move note is played on the receiver's
copy only when it follows that copy's last ply and the position after it is the note's FEN;
otherwise (a ply missed, the copy busy, any other change) the copy is marked stale and read
again from the database before it is used.  Moves are still stored only through the guarded
update, so a copy that is behind can make a move fail, never store one twice.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from exochess.web import metrics

log = logging.getLogger("exochess.web")

CHANNEL = "exochess:changes"
"""The one pub/sub channel all processes of a site share."""
RETRY_MAX_S = 2.0
"""Longest wait between two attempts to subscribe again after Redis went away."""
BATCH_MAX = 256
"""Most envelopes sent in one pipeline (one round trip to Redis)."""
REPLY_TIMEOUT_S = 2.0
"""Longest wait for Redis to take a write or reply to an envelope written: past it the sender's
connection is given up (its waiting callers are told False) and the next batch opens another
(Redis hung, or the network to it is cut without the connection closing)."""
OUTBOX_MAX = 4096
"""Most envelopes waiting to be sent (Redis slow or away); past it new ones are dropped and
counted as errors: a receiver that misses a move reads the game again when it next needs it."""

Envelope = dict[str, Any]
_Outgoing = tuple[bytes | None, asyncio.Future[bool] | None, float]
"""An envelope on its way out: its bytes, the future of a caller waiting for it, and when it
was queued (``time.perf_counter``)."""


def connect(url: str) -> aioredis.Redis:
    """A Redis client for commands (publish, queue), failing fast while Redis is down: a
    server must answer its clients, not wait for a lost connection."""
    client: aioredis.Redis = aioredis.Redis.from_url(
        url,
        socket_connect_timeout=1.0,
        socket_timeout=2.0,
        retry_on_timeout=False,
    )
    return client


def encode(envelope: Envelope) -> bytes:
    """``envelope`` on the wire: its keys but ``m`` as a JSON line, then ``m`` (a string)
    unchanged after the newline."""
    message = envelope.get("m")
    header = {key: value for key, value in envelope.items() if key != "m"}
    line = json.dumps(header, separators=(",", ":")).encode()
    if isinstance(message, str):
        return line + b"\n" + message.encode()
    return line


def decode(data: object) -> Envelope | None:
    """The envelope in ``data`` (bytes from Redis) with its ``m`` (None if there is none), or
    None if ``data`` is not an envelope."""
    if isinstance(data, str):
        data = data.encode()
    if not isinstance(data, bytes):
        return None
    line, newline, message = data.partition(b"\n")
    try:
        envelope = json.loads(line)
        if newline:
            envelope["m"] = message.decode()
    except (ValueError, TypeError):  # UnicodeDecodeError is a ValueError
        return None
    return envelope if isinstance(envelope, dict) else None


class RedisBus:
    """Publishes envelopes and, once :meth:`start` ed, hands every foreign one to ``on_message``.

    The subscription reconnects by itself after Redis restarts; ``on_resync`` is then called,
    since changes published while it was away were missed.

    Envelopes leave through one sender task on a connection of their own, in the order of the
    :meth:`post` and :meth:`publish` calls.  The sender writes whatever was queued and goes
    back for more at once: it does not wait for Redis's replies, which a reader task of the
    connection takes up (each ``PUBLISH`` has one reply, in order) to settle the callers of
    :meth:`publish`.  So an envelope waits for at most one wake-up of the sender, never for
    the round trip of the envelopes before it.  Earlier forms were slower under load: a
    ``PUBLISH`` per call on the shared client (redis-py's asyncio pool hands out connections
    under a lock that it holds while it checks the connection, which takes a pass of the event
    loop, so a busy loop sent about one command per pass), then a pipeline per batch, each
    batch waiting for the previous one's replies (50-83 ms mean per envelope at 200 games; see
    benchmarks.md, "Cluster", 2026-11-26).  A connection on which Redis takes no write or
    gives no reply for :data:`REPLY_TIMEOUT_S` is given up, its waiting callers told False.
    """

    def __init__(self, url: str, origin: str | None = None) -> None:
        self.url = url
        self.origin = origin or secrets.token_hex(6)
        self.redis = connect(url)
        """For commands (presence counts, readiness pings); envelopes have their own client."""
        self._connections = aioredis.ConnectionPool.from_url(
            url, socket_connect_timeout=1.0, retry_on_timeout=False
        )
        """Only makes the sender's connection (see :class:`_Link`); never lends one out."""
        self._link: _Link | None = None
        self._outbox: list[_Outgoing] = []
        """Envelopes to send, each with the future of a caller waiting for it (or none) and
        when it was queued; an entry without bytes only marks a point of the queue (see
        :meth:`close`)."""
        self._inflight: list[_Outgoing] = []
        """The batch being written (its callers are told if the bus closes meanwhile)."""
        self._wake = asyncio.Event()
        self._sender: asyncio.Task[None] | None = None
        self.on_message: Callable[[Envelope], Awaitable[None]] | None = None
        self.on_resync: Callable[[], Awaitable[None]] | None = None
        self.subscribed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    def post(self, envelope: Envelope) -> None:
        """Queue ``envelope`` for the other processes without waiting for it to leave (a
        failure is logged and counted by the sender).  The hub's broadcasts go this way: a
        move is stored before it is announced, so its player's answer need not wait for
        Redis, and the envelopes still leave in the order they were posted."""
        self._queue(envelope, None)

    async def publish(self, envelope: Envelope) -> bool:
        """Send ``envelope`` to the other processes and wait: True once Redis took it, False
        (logged, counted) if Redis is down or the bus is closed.

        A lost envelope is not retried: what it said is stored, and the other processes'
        clients get it with the next change or when they reconnect.
        """
        if self._closed:
            return False
        sent: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._queue(envelope, sent)
        return await asyncio.shield(sent)  # a caller cancelled does not cancel the batch

    def _queue(self, envelope: Envelope | None, sent: asyncio.Future[bool] | None) -> None:
        if self._closed:
            return
        if envelope is not None and len(self._outbox) >= OUTBOX_MAX:
            metrics.ERRORS.labels("redis").inc()
            if sent is not None:
                sent.set_result(False)
            return
        stamped = None if envelope is None else {**envelope, "o": self.origin, "ts": round(time.time(), 4)}
        data = None if stamped is None else encode(stamped)
        self._outbox.append((data, sent, time.perf_counter()))
        self._wake.set()
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send(), name="redis-bus-sender")

    async def _send(self) -> None:
        """Write the outbox, in batches of up to :data:`BATCH_MAX`, until the bus closes."""
        while not self._closed:
            if not self._outbox:
                self._wake.clear()
                await self._wake.wait()
                continue
            batch, self._outbox = self._outbox[:BATCH_MAX], self._outbox[BATCH_MAX:]
            self._inflight = batch
            taken = time.perf_counter()
            for data, _sent, queued in batch:
                if data is not None:
                    metrics.BUS_SEND.labels("wait").observe(taken - queued)
            link = self._link
            if link is not None and link.broken:  # its reader told its callers already
                await link.close()
                link = self._link = None
            try:
                if link is None:
                    link = self._link = await _Link.open(self._connections)
                await link.write(batch)
            except (RedisError, OSError) as exc:
                self._lost(link, batch, exc)
            except Exception:  # never leave the batch's callers waiting
                log.exception("redis publish failed")
                self._lost(link, batch, None)
            self._inflight = []

    def _lost(self, link: _Link | None, batch: list[_Outgoing], exc: BaseException | None) -> None:
        """The batch (and what ``link`` still awaited replies for) could not be sent: tell its
        callers False, count and log it; the next batch opens a new connection."""
        envelopes = (link.fail() if link is not None else 0) + _fail(batch)
        if exc is not None:
            log.warning("redis publish failed (%d envelopes): %s", envelopes, exc)

    async def ping(self) -> bool:
        """Whether Redis answers now."""
        try:
            return bool(await self.redis.ping())
        except (RedisError, OSError):
            return False

    def start(self) -> None:
        """Start listening (in the running event loop)."""
        self._task = asyncio.create_task(self._listen(), name="redis-bus")

    async def _listen(self) -> None:
        delay = 0.1
        first = True
        while not self._closed:
            # a client of its own without a read timeout: a quiet channel is not an error
            client: aioredis.Redis = aioredis.Redis.from_url(
                self.url,
                socket_connect_timeout=1.0,
                health_check_interval=10,
                **_wide_subscription(self.url),
            )
            try:
                async with client.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    self.subscribed.set()
                    delay = 0.1
                    if not first:
                        log.info("redis subscription restored")
                        if self.on_resync is not None:
                            await self.on_resync()
                    first = False
                    async for message in pubsub.listen():
                        await self._handle(message)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                if self.subscribed.is_set():
                    log.warning("redis subscription lost: %s", exc)
                    metrics.ERRORS.labels("redis").inc()
                self.subscribed.clear()
                first = False
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX_S)

    async def _handle(self, message: dict[str, Any]) -> None:
        if message.get("type") != "message":
            return
        envelope = decode(message["data"])
        if envelope is None:
            log.warning("unreadable envelope on %s", CHANNEL)
            return
        if envelope.get("o") == self.origin:
            return
        if self.on_message is None:
            return
        started = time.time()
        sent = envelope.get("ts")
        if isinstance(sent, (int, float)) and not isinstance(sent, bool):
            metrics.BUS_LAG.observe(max(0.0, started - sent))
        try:
            await self.on_message(envelope)
        except Exception:  # one bad envelope must not end the subscription
            log.exception("envelope handling failed")
        metrics.BUS_HANDLE.observe(time.time() - started)

    async def drained(self, timeout_s: float = REPLY_TIMEOUT_S) -> None:
        """Wait (at most ``timeout_s``) until Redis has taken every envelope posted before now.

        For what must follow an announcement: an engine worker's note of its reply must not
        reach the other servers before the note of the move it answers, which it overtakes
        when the job is queued while that note still waits in the outbox (the other servers
        then read the game again instead of playing both notes)."""
        link = self._link
        if (
            self._sender is not None
            and not self._sender.done()
            and (self._outbox or self._inflight or (link is not None and link.awaiting))
        ):
            done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            self._queue(None, done)
            with contextlib.suppress(TimeoutError, asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(done), timeout_s)

    async def close(self, flush_s: float = 2.0) -> None:
        """Stop listening and sending; what was posted before is sent first, for up to
        ``flush_s`` (a server shutting down announces the moves it stored)."""
        await self.drained(flush_s)
        self._closed = True
        for task in (self._task, self._sender):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self._link is not None:
            self._link.fail()
        for entry in [*self._inflight, *self._outbox]:  # their callers: not sent
            _settle(entry, False)
        self._outbox.clear()
        if self._link is not None:
            await self._link.close()
            self._link = None
        with contextlib.suppress(Exception):
            await self.redis.aclose()
        with contextlib.suppress(Exception):
            await self._connections.aclose()


SUBSCRIPTION_BUFFER = 1 << 18
"""Bytes the subscription's stream may hold before it stops reading the socket (asyncio's
default is 64 KiB, and it stops at twice that).  Every process reads every envelope, its own
too, and an envelope carries a whole state (25-45 KB in the middle of a game): with the
default, a pass of the event loop took about 7 envelopes from the socket (uvloop; 3.6 with
asyncio's own loop), fewer than two busy servers publish per pass, so envelopes queued in the
socket and at Redis and reached the other server late (benchmarks.md, "Cluster", 2026-11-26).
256 KiB takes about 18 per pass; much more lets one pass handle a long burst of envelopes
while the moves of its own players wait (4 MiB was slower)."""


class _WideConnection(aioredis.Connection):
    """A TCP connection whose stream holds :data:`SUBSCRIPTION_BUFFER` bytes."""

    def _connection_arguments(self) -> Mapping[str, Any]:
        return {**super()._connection_arguments(), "limit": SUBSCRIPTION_BUFFER}


def _wide_subscription(url: str) -> dict[str, Any]:
    """The connection class for the subscription at ``url``: the wide one over TCP; redis-py
    picks its own for ``rediss://`` (the URL's choice wins) and Unix sockets, which keep the
    default buffer."""
    if url.partition("://")[0].lower() == "redis":
        return {"connection_class": _WideConnection}
    return {}


class _Link:
    """The sender's connection to Redis: envelopes written without waiting, their replies read
    by a task of its own.

    Redis answers the commands of one connection in order, so the replies settle the written
    envelopes in order; an entry without bytes (a mark of :meth:`RedisBus.close`) is settled
    once every envelope written before it is.  A connection that fails fails everything it
    still awaits a reply for (those envelopes may or may not have reached the others)."""

    def __init__(self, connection: aioredis.Connection) -> None:
        self.connection = connection
        self.awaiting: collections.deque[tuple[_Outgoing, float]] = collections.deque()
        """Written, waiting for a reply, each with when it was written (``perf_counter``)."""
        self.broken = False
        self.reader = asyncio.create_task(self._read(), name="redis-bus-replies")
        self._watch: asyncio.TimerHandle | None = None
        """Checks, :data:`REPLY_TIMEOUT_S` after a write, that Redis replied."""

    @classmethod
    async def open(cls, pool: aioredis.ConnectionPool) -> _Link:
        # a connection of its own, made with the URL's settings (address, password, database)
        connection: aioredis.Connection = pool.make_connection()  # type: ignore[no-untyped-call]
        await connection.connect()  # type: ignore[no-untyped-call]
        return cls(connection)

    async def write(self, batch: list[_Outgoing]) -> None:
        """Write ``batch``'s envelopes as ``PUBLISH`` commands; returns once they are handed to
        the socket (unless its buffer is full, at once), not when Redis answers."""
        commands = [("PUBLISH", CHANNEL, data) for data, _sent, _queued in batch if data is not None]
        if commands:
            async with asyncio.timeout(REPLY_TIMEOUT_S):  # a socket that takes nothing more
                await self.connection.send_packed_command(
                    self.connection.pack_commands(commands), check_health=False
                )
        written = time.perf_counter()
        self.awaiting.extend((entry, written) for entry in batch)
        self._settle_marks()
        if self.awaiting and self._watch is None:
            self._watch = asyncio.get_running_loop().call_later(REPLY_TIMEOUT_S, self._overdue)

    def _overdue(self) -> None:
        """Give the connection up if the oldest reply is :data:`REPLY_TIMEOUT_S` late."""
        self._watch = None
        if self.broken or not self.awaiting:
            return
        late = time.perf_counter() - self.awaiting[0][1]
        if late < REPLY_TIMEOUT_S:
            self._watch = asyncio.get_running_loop().call_later(REPLY_TIMEOUT_S - late, self._overdue)
            return
        log.warning("redis did not reply for %.1f s: the publishing connection is given up", late)
        self.fail()

    async def _read(self) -> None:
        try:
            while True:
                try:
                    await self.connection.read_response()
                    ok = True
                except ResponseError:  # Redis refused that one command, the connection is fine
                    ok = False
                self._settle(ok)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the connection is gone: the sender opens another
            if self.awaiting:
                log.warning("redis publish connection lost: %s", exc)
            self.fail()

    def _settle(self, ok: bool) -> None:
        self._settle_marks()
        if self.awaiting:
            entry, _written = self.awaiting.popleft()
            if ok:
                _settle(entry, True)
            else:
                _fail([entry])
        self._settle_marks()

    def _settle_marks(self) -> None:
        while self.awaiting and self.awaiting[0][0][0] is None:
            _settle(self.awaiting.popleft()[0], True)

    def fail(self) -> int:
        """Give up on the connection; what still awaited a reply is told False and counted as
        errors (returns how many envelopes)."""
        self.broken = True
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        if not self.reader.done() and self.reader is not asyncio.current_task():
            self.reader.cancel()
        failed = [entry for entry, _written in self.awaiting]
        self.awaiting.clear()
        return _fail(failed)

    async def close(self) -> None:
        self.fail()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.reader
        with contextlib.suppress(Exception):
            await self.connection.disconnect(nowait=True)


def _settle(entry: _Outgoing, ok: bool) -> None:
    _data, sent, _queued = entry
    if sent is not None and not sent.done():
        sent.set_result(ok)


def _fail(entries: list[_Outgoing]) -> int:
    """Tell ``entries``' callers False; count their envelopes as errors (returns how many)."""
    envelopes = sum(1 for data, _sent, _queued in entries if data is not None)
    if envelopes:
        metrics.ERRORS.labels("redis").inc(envelopes)
    for entry in entries:
        _settle(entry, False)
    return envelopes
