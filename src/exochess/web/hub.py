"""Websocket fan-out: every connection watching a game gets each new state."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Protocol


class Socket(Protocol):
    async def send_text(self, data: str) -> None: ...


class Hub:
    """Connections by game id, each with the seat (colour) it proved, or None for a spectator."""

    def __init__(self) -> None:
        self._rooms: dict[str, dict[Socket, str | None]] = defaultdict(dict)

    def join(self, game_id: str, socket: Socket, seat: str | None) -> None:
        self._rooms[game_id][socket] = seat

    def leave(self, game_id: str, socket: Socket) -> None:
        room = self._rooms.get(game_id)
        if room is not None:
            room.pop(socket, None)
            if not room:
                del self._rooms[game_id]

    def online(self, game_id: str) -> dict[str, bool]:
        seats = set(self._rooms.get(game_id, {}).values())
        return {"white": "white" in seats, "black": "black" in seats}

    def watchers(self, game_id: str) -> int:
        return len(self._rooms.get(game_id, {}))

    async def broadcast(self, game_id: str, message: str) -> None:
        room = list(self._rooms.get(game_id, {}).keys())
        if not room:
            return
        results = await asyncio.gather(*(s.send_text(message) for s in room), return_exceptions=True)
        for socket, result in zip(room, results, strict=True):
            if isinstance(result, BaseException):
                self.leave(game_id, socket)
