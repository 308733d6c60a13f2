"""Chat in a game between its two players: stored with the game, sent on its websocket.

Spectators read the players' chat but cannot write in it (there is no spectator room).  A
line is one line of plain text of at most :data:`MAX_CHARS` characters; each seat may write a
few lines a second (the rate limit ``chat``, counted per seat).  Lines are stored and sent
as written: pages show them as text (never as HTML), and the PGN writer escapes them for its
comments.  Muting is the reader's affair, done in the browser.
"""

from __future__ import annotations

import json
from typing import Any

from exochess.web.domain import N_, Color, InvalidRequest, TooFast, has_hidden_characters
from exochess.web.game.service import GameService
from exochess.web.limits import RateLimits
from exochess.web.storage.store import ChatRow

MAX_CHARS = 140
CHAT = "chat"
"""The rate limit of a seat's lines (``limits/catalogue.py``: 4 at once, 2 a second)."""
HISTORY = 200
"""Lines a newcomer receives (the most recent ones)."""


def clean_line(value: object) -> str:
    """A chat line as stored: white space collapsed, 1 to :data:`MAX_CHARS` printable characters."""
    if not isinstance(value, str):
        raise InvalidRequest(N_("a chat line must be a text"))
    text = " ".join(value.split())
    if not text:
        raise InvalidRequest(N_("a chat line cannot be empty"))
    if len(text) > MAX_CHARS:
        raise InvalidRequest(
            N_("a chat line has at most {count} characters ({given} given)"), count=MAX_CHARS, given=len(text)
        )
    if has_hidden_characters(text):
        # right-to-left overrides and zero-width characters make a line read other than it is
        raise InvalidRequest(
            N_("a chat line may not contain control, invisible or direction-changing characters")
        )
    return text


def line_json(row: ChatRow) -> dict[str, Any]:
    """A chat line as the websocket sends it."""
    return {
        "id": row.id,
        "ply": row.ply,
        "color": row.color,
        "name": row.name,
        "text": row.text,
        "time": row.created.isoformat() + "Z",
    }


class Chat:
    """Stores and sends the chat lines of games."""

    def __init__(self, service: GameService, limits: RateLimits) -> None:
        self.service = service
        self.limits = limits
        """Lines per seat of a game (the limit ``chat``)."""

    async def say(self, game_id: str, seat: Color, text: object) -> dict[str, Any]:
        """Store the line ``text`` of the player of ``seat`` and send it to the game's watchers.

        The line is placed after the game's last stored move: the game is read through the
        service, which reloads it if another server process has stored a move since.
        """
        line = clean_line(text)
        live = await self.service.get(game_id)
        refusal = await self.limits.hit(CHAT, f"{live.row.id}:{seat}")
        if refusal is not None:
            item = refusal.item
            raise TooFast(
                N_("chat: at most {burst} lines at once and {rate} a second; wait a moment"),
                burst=item.amount,
                rate=f"{item.amount / item.get_expiry():g}",
            )
        row = await self.service.db(
            self.service.storage.add_chat, live.row.id, live.board.ply(), seat, live.row.name_of(seat), line
        )
        data = line_json(row)
        await self.service.hub.broadcast(live.row.id, json.dumps({"type": "chat", "lines": [data]}))
        return data

    async def history(self, game_id: str) -> list[dict[str, Any]]:
        """The game's most recent lines, oldest first."""
        rows = await self.service.db(self.service.storage.chat_lines, game_id, HISTORY)
        return [line_json(r) for r in rows]

    async def all_lines(self, game_id: str) -> list[ChatRow]:
        """Every line of the game (for its PGN)."""
        return await self.service.db(self.service.storage.chat_lines, game_id, 100_000)
