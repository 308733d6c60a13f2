"""The game state every watcher receives, as a typed model (:class:`GameState`).

The routes that answer with a game's state declare it as their ``response_model``, so OpenAPI
documents it; :class:`~exochess.web.game.jsonview.JsonView` encodes it with ``orjson``, the parts
kept encoded (the moves, the legal-move tree, the annotations) inserted as fragments.  The
state is encoded once per change and sent as it is, so the model is never built at run time:
``tests/web/test_web_state_model.py`` checks every encoded state against it, field for field.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from exochess.web.domain import Color, GameStatus, PlayerKind
from exochess.web.game.timecontrol import TimeControlKind


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AccountState(_Strict):
    """The account holding a seat."""

    name: str | None = Field(description="None: the account was deleted")
    rating: int
    provisional: bool = Field(description="shown as 1500?")
    diff: int | None = Field(description="the change this finished rated game made to the rating")
    title: str | None = Field(default=None, description='"BOT" for a bot account, else None')


class SeatState(_Strict):
    """Who plays a seat."""

    kind: PlayerKind
    level: int | None = Field(description="the computer's level (None for a person)")
    name: str | None = Field(description="the display name given at the seat, if any")
    user: AccountState | None


class TimeControlState(_Strict):
    """The game's time control (``"-"``, ``"M+S"`` or ``"Nd"``)."""

    text: str
    kind: TimeControlKind
    label: str
    speed: str
    base_ms: int
    increment_ms: int
    days: int


class ClockState(_Strict):
    """The clocks as they stood after the last move (docs/web.md, "Clocks"): a client counts the
    running side down from ``since``, or to ``deadline``.  Once the game is over, the times
    left at its end (a flag shows the loser's 0, a resignation the running clock where it
    stopped)."""

    white_ms: int
    black_ms: int
    increment_ms: int = Field(description="the time control's increment")
    white_increment_ms: int = Field(description="White's increment (none after a berserk)")
    black_increment_ms: int = Field(description="Black's increment (none after a berserk)")
    running: Color | None = Field(description="whose clock runs (None before the start, after the end)")
    to_move: Color
    since: int = Field(description="ms since 1970")
    deadline: int | None = Field(description="ms since 1970 (None once the game is over)")
    expiry: Literal["abort", "flag"]
    absence_ms: int


class PgnNotesState(_Strict):
    """An imported game's PGN comments and clocks, by ply (text keys, as JSON writes them)."""

    comments: dict[str, str] = Field(description="the comment after ply n (0: before the first move)")
    clocks: dict[str, int] = Field(description="the mover's milliseconds left after ply n ([%clk])")


class GameState(_Strict):
    """A live game as its watchers see it (HTTP and websocket ``state`` messages alike)."""

    type: Literal["state"]
    id: str
    variant: dict[str, Any] = Field(description="the game's variant, as /api/variants lists it")
    start_fen: str
    fen: str
    ply: int
    turn: Color
    status: GameStatus
    result: str | None
    termination: str | None
    reason: str | None
    players: dict[Color, SeatState]
    takeback_offer: Color | None
    rematch_id: str | None
    time_control: TimeControlState
    clock: ClockState | None
    rated: bool
    imported: bool = Field(default=False, description="read from a PGN, not played here (never rated)")
    berserkable: bool = Field(
        default=False, description="an arena tournament's game: a player may berserk before moving"
    )
    berserk: dict[Color, bool] = Field(description="which seats berserked (half the time, no increment)")
    pgn_notes: PgnNotesState | None = Field(
        default=None, description="an imported game's PGN comments and clocks (None: a game played here)"
    )
    online: dict[Color, bool]
    absent_since: dict[Color, int | None] = Field(description="since when each seat is gone (ms since 1970)")
    legal_count: int
    legal_error: str | None = Field(description="why the legal moves are not listed (a position too large)")
    fens: list[str] = Field(description="the FEN after each ply, from the start")
    moves: list[dict[str, Any]] = Field(description="each move with its actions and square changes")
    captured: dict[Color, list[str]] = Field(description="the pieces each side lost (FEN letters)")
    legal: list[dict[str, Any]] = Field(description="the tree of legal actions (docs/web.md)")
    annotations: dict[str, Any] | None = Field(description="the position's rule states")
