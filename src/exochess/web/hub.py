"""Websocket fan-out: every connection watching a game gets each new state.

Each connection has its own outgoing queue and writer task, so a slow or stuck
client never delays a move's acknowledgement or the other watchers; a client
that falls too far behind is disconnected (it reconnects and gets the state).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from typing import Protocol

from exochess.web.domain import Color

QUEUE_LIMIT = 64


class Socket(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class Connection:
    """One websocket watching a game, with the seat it proved (None for a spectator)."""

    def __init__(self, socket: Socket, seat: Color | None) -> None:
        self.socket = socket
        self.seat = seat
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE_LIMIT)
        self.task = asyncio.create_task(self._writer())

    async def _writer(self) -> None:
        while True:
            message = await self.queue.get()
            if message is None:
                return
            try:
                await self.socket.send_text(message)
            except Exception:
                return

    def push(self, message: str) -> bool:
        if self.task.done():
            return False
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            return False
        return True

    async def send(self, message: str) -> None:
        """Send in order with the broadcasts (through the same queue), waiting for room."""
        await self.queue.put(message)

    def stop(self) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)
        if not self.task.done() and self.queue.full():
            self.task.cancel()


class Hub:
    """Connections by game id, each with the seat (colour) it proved, or None for a spectator."""

    def __init__(self) -> None:
        self._rooms: dict[str, dict[Socket, Connection]] = defaultdict(dict)

    def join(self, game_id: str, socket: Socket, seat: Color | None) -> Connection:
        conn = Connection(socket, seat)
        self._rooms[game_id][socket] = conn
        return conn

    def leave(self, game_id: str, socket: Socket) -> None:
        room = self._rooms.get(game_id)
        if room is None:
            return
        conn = room.pop(socket, None)
        if conn is not None:
            conn.stop()
        if not room:
            del self._rooms[game_id]

    def online(self, game_id: str) -> dict[Color, bool]:
        """Whether each seat has at least one connection."""
        seats = {c.seat for c in self._rooms.get(game_id, {}).values()}
        return {color: color in seats for color in Color}

    def watchers(self, game_id: str) -> int:
        return len(self._rooms.get(game_id, {}))

    async def broadcast(self, game_id: str, message: str) -> None:
        for socket, conn in list(self._rooms.get(game_id, {}).items()):
            if not conn.push(message):
                self.leave(game_id, socket)
                with contextlib.suppress(Exception):
                    await socket.close(code=1013, reason="too slow")
