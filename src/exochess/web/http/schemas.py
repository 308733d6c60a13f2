"""Pydantic models of the JSON API: request bodies, the replies with a fixed shape, websocket messages.

Numbers and texts are strict (``true`` is no ply, ``5`` is no move text): a client that sends
the wrong type gets a 400 naming the field rather than a silently converted value.  Unknown
fields are ignored, as they always were.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StrictBool, StrictInt, StrictStr

from exochess.variants import default_variant
from exochess.web.compute.enginepool import RANDOM_LEVEL
from exochess.web.domain import Color, GameStatus, Opponent, PlayerKind, SeatChoice, TakebackAction
from exochess.web.game.newgames import MAX_LEVEL

MIN_MOVETIME_MS = 50
MAX_MOVETIME_MS = 10_000

# --- request bodies ---------------------------------------------------------------------------


class NewGame(BaseModel):
    """``POST /api/games``."""

    variant: StrictStr
    opponent: Opponent
    color: SeatChoice = SeatChoice.WHITE
    level: Annotated[StrictInt | None, Field(ge=RANDOM_LEVEL, le=MAX_LEVEL)] = None
    fen: StrictStr | None = None
    time_control: StrictStr = "-"
    """``"-"`` (no clock), ``"3+2"`` (minutes + increment seconds) or ``"3d"`` (days per move)."""


class NewChallenge(BaseModel):
    """``POST /api/challenges``: a challenge for the lobby."""

    variant: StrictStr
    time_control: StrictStr = "-"
    color: SeatChoice = SeatChoice.RANDOM
    """The poster's colour."""
    name: StrictStr | None = None
    """The poster's display name (a guest's; a signed-in poster plays under their username)."""
    player: StrictStr | None = None
    """The poster's player token (random, kept by the browser; see ``web/social/lobby.py``); a
    signed-in poster's account takes its place."""
    rated: StrictBool = False
    """A rated challenge: only a signed-in poster with a time control may post one."""


class ChallengeAnswer(BaseModel):
    """``POST /api/challenges/{id}/accept`` (``name`` required) and ``.../cancel``."""

    player: StrictStr | None = None
    name: StrictStr | None = None


class SeatAction(BaseModel):
    """A request made from a seat: resign, rematch (and the base of the others)."""

    secret: StrictStr | None = None


class MoveRequest(SeatAction):
    """``POST /api/games/{id}/moves``: ``ply``, if given, must be the game's current ply."""

    move: StrictStr
    ply: StrictInt | None = None
    lag_ms: Annotated[StrictInt, Field(ge=0, le=60_000)] = 0
    """The client's measured network delay (half a round trip); at most
    :data:`~exochess.web.game.clock.MAX_LAG_CREDIT_MS` of it is credited to its clock."""


class TakebackRequest(SeatAction):
    """``POST /api/games/{id}/takeback``."""

    action: TakebackAction


class PositionRequest(BaseModel):
    """``POST /api/position``: ``moves`` played from ``fen`` (or the variant's start)."""

    variant: StrictStr = Field(default_factory=lambda: default_variant().name)
    fen: StrictStr | None = None
    moves: list[StrictStr] = Field(default_factory=list)
    prefix: list[StrictStr] = Field(default_factory=list)
    """First actions of a move already entered: ``legal`` is then the tree after them."""


class FenCheck(BaseModel):
    """``POST /api/editor/check``: is ``fen`` a position of ``variant``?"""

    variant: StrictStr
    fen: Annotated[StrictStr, Field(max_length=2000)]


class ImportRequest(BaseModel):
    """``POST /api/import`` and ``/api/import/read``: a PGN text (its first game is read)."""

    pgn: StrictStr


class ImportedGame(BaseModel):
    """``POST /api/import``: the stored game."""

    id: str
    url: str
    moves: int


class AnalyseRequest(PositionRequest):
    """``POST /api/analyse``: the position, searched for ``movetime_ms``."""

    movetime_ms: Annotated[StrictInt, Field(ge=MIN_MOVETIME_MS, le=MAX_MOVETIME_MS)] = 1000


# --- replies -------------------------------------------------------------------------------------


class SeatLink(BaseModel):
    secret: str
    url: str


class CreatedGame(BaseModel):
    """The reply to ``POST /api/games``: the creator's seat(s), and the game's first state."""

    id: str
    seats: dict[Color, SeatLink]
    you: Color
    watch_url: str
    state: dict[str, Any]


class Rematch(BaseModel):
    id: str
    color: Color
    secret: str | None
    """None when the seat was proved by the signed-in account (which holds the new seat too)."""
    url: str


class PostedChallenge(BaseModel):
    """The reply to posting a challenge: the challenge, and the poster's seat secret of the
    game it will become (keep it: it is not sent again)."""

    challenge: dict[str, Any]
    secret: str


class AcceptedChallenge(BaseModel):
    """The reply to accepting a challenge: the new game, the acceptor's colour and secret."""

    game: str
    color: Color
    secret: str
    url: str
    """The game page (without the secret: the page is given it through the browser's storage)."""


class ChallengeList(BaseModel):
    challenges: list[dict[str, Any]]


class GameSummary(BaseModel):
    """One line of the games list."""

    id: str
    variant: str
    white: PlayerKind
    black: PlayerKind
    level: int | None
    ply: int
    status: GameStatus
    result: str | None
    reason: str | None
    time_control: str
    """The time control's text form (``"-"``, ``"3+2"``, ``"3d"``)."""
    turn: Color
    """The side to move."""
    deadline: int | None
    """While a timed game is played: when its side to move runs out of time (ms since 1970)."""
    white_name: str | None = None
    black_name: str | None = None
    updated: str
    """ISO 8601 in UTC, with a ``Z``."""


class GameList(BaseModel):
    games: list[GameSummary]


class VariantList(BaseModel):
    variants: list[dict[str, Any]]
    engine: bool
    max_level: int


# --- websocket messages (client to server) -----------------------------------------------------


class Ping(BaseModel):
    type: Literal["ping"]
    ref: Any = None


class Auth(BaseModel):
    """Prove a seat without putting the secret in the URL."""

    type: Literal["auth"]
    secret: Any = None
    ref: Any = None


class WsMove(BaseModel):
    """A move; the secret defaults to the one the connection proved."""

    type: Literal["move"]
    move: StrictStr
    ply: StrictInt | None = None
    secret: StrictStr | None = None
    lag_ms: Annotated[StrictInt, Field(ge=0, le=60_000)] = 0
    """As in :class:`MoveRequest`."""
    ref: Any = None


class WsChat(BaseModel):
    """A chat line from a player (the connection must have proved a seat)."""

    type: Literal["chat"]
    text: StrictStr
    ref: Any = None


class WsBerserk(BaseModel):
    """Berserk (an arena game, before the player's first move); the secret defaults to the one
    the connection proved."""

    type: Literal["berserk"]
    secret: StrictStr | None = None
    ref: Any = None


CLIENT_MESSAGES: dict[str, type[Ping | Auth | WsMove | WsChat | WsBerserk]] = {
    "ping": Ping,
    "auth": Auth,
    "move": WsMove,
    "chat": WsChat,
    "berserk": WsBerserk,
}
"""The model of each websocket message ``type``."""


# --- analysis websocket messages (client to server) --------------------------------------------


class WsAnalyse(BaseModel):
    """Start a live analysis of ``moves`` played from ``fen`` (or from the start of ``game``'s
    stored moves, with ``ply`` of them: a finished game's analysis); stops the one running."""

    type: Literal["start"]
    variant: StrictStr = Field(default_factory=lambda: default_variant().name)
    fen: StrictStr | None = None
    moves: Annotated[list[StrictStr], Field(max_length=1000)] = Field(default_factory=list)
    game: StrictStr | None = None
    """The game the position comes from, if any: refused while it is played between people."""
    lines: Annotated[StrictInt, Field(ge=1, le=5)] = 3
    movetime_ms: Annotated[StrictInt | None, Field(ge=MIN_MOVETIME_MS, le=600_000)] = None
    """At most the server's cap of a live analysis (30 s by default); none: the cap."""
    ref: Any = None


class WsStop(BaseModel):
    """Stop the running live analysis (its worker is free at once)."""

    type: Literal["stop"]
    ref: Any = None


ANALYSIS_MESSAGES: dict[str, type[Ping | WsAnalyse | WsStop]] = {
    "ping": Ping,
    "start": WsAnalyse,
    "stop": WsStop,
}
"""The model of each analysis websocket message ``type``."""


# --- lobby websocket messages (client to server) -----------------------------------------------


class LobbyHello(BaseModel):
    """Say which player this lobby socket is (its real-time challenges live while it is open)."""

    type: Literal["hello"]
    player: StrictStr | None = None
    ref: Any = None


class LobbyPost(NewChallenge):
    type: Literal["post"]
    ref: Any = None


class LobbyAccept(BaseModel):
    type: Literal["accept"]
    id: StrictStr
    name: StrictStr | None = None
    player: StrictStr | None = None
    ref: Any = None


class LobbyCancel(BaseModel):
    type: Literal["cancel"]
    id: StrictStr
    player: StrictStr | None = None
    ref: Any = None


LOBBY_MESSAGES: dict[str, type[Ping | LobbyHello | LobbyPost | LobbyAccept | LobbyCancel]] = {
    "ping": Ping,
    "hello": LobbyHello,
    "post": LobbyPost,
    "accept": LobbyAccept,
    "cancel": LobbyCancel,
}
"""The model of each lobby websocket message ``type``."""
