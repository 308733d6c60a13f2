"""The move note: one stored move as the other server processes need it (Redis mode).

A process that stores a move publishes the game's new state for the websockets, and with it
this note (the ``a`` of an envelope, see :mod:`exochess.web.live.pubsub`).  A receiver whose cached
game is exactly one ply behind plays the move on its copy and checks the position after it
against the note's FEN, instead of reading the whole game again from the database.  Kept apart
from :mod:`exochess.web.live.pubsub` so that the game service needs no Redis client to write one.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from exochess.web.domain import Stamp


@dataclass(frozen=True)
class MoveNote:
    """One stored move, as another process needs it to play it on its cached game."""

    ply: int
    """The game's ply before the move (the move is number ``ply``, 0-based)."""
    move: str
    """The move's canonical text."""
    fen: str
    """The position after the move: the receiver's check that its copy matches the origin's."""
    stamp: Stamp
    """The clock columns stored with the move."""

    def to_json(self) -> dict[str, Any]:
        stamp = self.stamp
        return {
            "p": self.ply,
            "mv": self.move,
            "f": self.fen,
            "t": [stamp.white_ms, stamp.black_ms, stamp.at.isoformat()],
        }

    @classmethod
    def from_json(cls, data: object) -> MoveNote | None:
        """The note in ``data`` (an envelope's ``a``), or None if it is missing or malformed
        (the receiver then reads the game from the database)."""
        if not isinstance(data, dict):
            return None
        ply, move, fen, stamp = data.get("p"), data.get("mv"), data.get("f"), data.get("t")
        if not (
            isinstance(ply, int)
            and isinstance(move, str)
            and isinstance(fen, str)
            and isinstance(stamp, list)
            and len(stamp) == 3
        ):
            return None
        white_ms, black_ms, at = stamp
        if not all(
            ms is None or (isinstance(ms, int) and not isinstance(ms, bool)) for ms in (white_ms, black_ms)
        ) or not isinstance(at, str):
            return None
        try:
            moment = dt.datetime.fromisoformat(at)
        except ValueError:
            return None
        return cls(ply, move, fen, Stamp(white_ms, black_ms, moment))
