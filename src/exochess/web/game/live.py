"""A game in memory (:class:`LiveGame`): its stored row, its board, its lock and what is cached
for its watchers; and the shape of game ids.

Every change to a live game is stored first, then applied here on the event loop with the
methods below, each of which drops the cached state.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
import secrets
from dataclasses import dataclass, field

from exochess.board import Board
from exochess.web.accounts.ratings import PlayerInfo
from exochess.web.domain import N_, Color, GameStatus, PlayerKind, SecretRequired, Stamp, WrongSeat
from exochess.web.game.clock import Clock, Timing
from exochess.web.game.history import HistoryJson
from exochess.web.game.legalview import LegalView
from exochess.web.game.timecontrol import TimeControl, stored_time_control
from exochess.web.storage.store import Finish, GameRow, secret_matches

LegalKey = tuple[int, str, str]
"""What a legal-move view was computed for: (ply, FEN, status)."""


@dataclass
class LiveGame:
    """A game in memory: its stored row, the board after its moves, and the FEN after each ply."""

    row: GameRow
    board: Board
    fens: list[str]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    state_cache: str | None = None
    history: HistoryJson = field(default_factory=HistoryJson)
    """The moves and lost pieces of the state, encoded a ply at a time."""
    legal_view: tuple[LegalKey, LegalView] | None = None
    """The legal-move tree of the current position, computed off the event loop (as JSON text:
    the collector neither tracks nor walks it)."""
    legal_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    absent_since: dict[Color, dt.datetime | None] = field(default_factory=dict)
    """Since when each seat has had no connection (None: it has one).  Kept in memory: a seat
    counts as gone since the game was loaded until it connects."""
    players: dict[Color, PlayerInfo | None] = field(default_factory=dict)
    """The accounts holding the seats, as shown to everyone (loaded with the game)."""
    stale: bool = False
    """Another process changed the stored game (Redis mode): read it again before use."""

    def seat_of(self, secret: str | None, user_id: int | None = None) -> Color | None:
        """The seat this secret opens (its digest compared in constant time), or else the seat
        the signed-in account ``user_id`` holds, if any."""
        if not secret:
            for color in Color:
                if user_id is not None and self.row.user_of(color) == user_id:
                    return color
            return None
        for color, stored in ((Color.WHITE, self.row.white_secret), (Color.BLACK, self.row.black_secret)):
            if secret_matches(secret, stored):
                return color
        return None

    def seat(self, secret: str | None, user_id: int | None = None) -> Color:
        """The seat ``secret`` opens, or without one the seat the signed-in ``user_id`` holds;
        raises when there is none."""
        if not secret:
            seat = self.seat_of(None, user_id)
            if seat is None and user_id is not None:
                # an account known to play elsewhere, not a missing credential: 403, not 401
                raise WrongSeat(N_("you do not play in this game"))
            if seat is None:
                raise SecretRequired(N_("a seat secret is required to act in this game"))
            return seat
        seat = self.seat_of(secret)
        if seat is None:
            raise WrongSeat(N_("wrong seat secret for this game"))
        return seat

    def kind_of(self, color: Color) -> PlayerKind:
        return self.row.kind_of(color)

    def to_move(self) -> Color:
        return Color.of(self.board.turn)

    @property
    def active(self) -> bool:
        return self.row.status == GameStatus.ACTIVE

    @property
    def time_control(self) -> TimeControl:
        return stored_time_control(self.row.time_control)

    def clock(self, timing: Timing) -> Clock | None:
        """The game's clocks after its last move (None without a time control)."""
        row = self.row
        last = row.stamps[-1] if row.stamps else None
        return Clock.of(
            self.time_control,
            row.created,
            len(row.moves),
            last,
            self.to_move(),
            timing,
            computer=self.computer_seat(),
            berserked=row.berserked,
        )

    def computer_seat(self) -> Color | None:
        """The seat the computer plays (None in a game between people)."""
        for color in Color:
            if self.row.kind_of(color) == PlayerKind.ENGINE:
                return color
        return None

    def legal_key(self) -> LegalKey:
        """What the legal-move view of the position now would be computed for."""
        return (self.board.ply(), self.board.fen(), self.row.status)

    def record_move(self, board: Board, text: str, fen: str, stamp: Stamp) -> None:
        """One more stored move: ``board`` (already after it), the move's text, the FEN after
        it and its clock stamp."""
        self.board = board
        self.fens.append(fen)
        self.row.moves.append(text)
        self.row.stamps.append(stamp)
        self.row.ply = board.ply()
        self.row.takeback_offer = None
        self.state_cache = None

    def mark_finished(self, values: Finish, status: GameStatus = GameStatus.FINISHED) -> None:
        """The stored result: ``values``' columns and ``status``."""
        row = self.row
        row.status = status
        row.result = values["result"]
        row.termination = values["termination"]
        row.reason = values["reason"]
        row.end_white_ms = values.get("end_white_ms")
        row.end_black_ms = values.get("end_black_ms")
        row.takeback_offer = None
        self.state_cache = None

    def take_back_to(self, target: int) -> None:
        """The moves from ply ``target`` on are gone (stored so)."""
        while self.board.ply() > target:
            self.board.pop()
            self.fens.pop()
            self.row.moves.pop()
            if self.row.stamps:
                self.row.stamps.pop()
        self.row.ply = target
        self.row.takeback_offer = None
        self.state_cache = None


def new_id() -> str:
    """A fresh game id (see :data:`GAME_ID`)."""
    return secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")


GAME_ID = re.compile(r"[A-Za-z0-9]{8}")
"""What :func:`new_id` makes (6 random bytes in URL-safe base64, ``-`` and ``_`` replaced): an
id of another shape names no game, and is answered without a database read."""


def is_game_id(text: object) -> bool:
    """Whether ``text`` has the shape of a game id (not whether that game exists)."""
    return isinstance(text, str) and GAME_ID.fullmatch(text) is not None
