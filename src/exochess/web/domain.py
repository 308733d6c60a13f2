"""The words of the game service: seat colours, player kinds, statuses, and the errors it raises.

Nothing here knows about HTTP: :mod:`exochess.web.http.errors` maps each error class to a
status code in one table, for the JSON API and the websocket alike.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from exochess.phrase import Phrase


class Color(StrEnum):
    """A seat at the board."""

    WHITE = "white"
    BLACK = "black"

    @classmethod
    def of(cls, white: bool) -> Color:
        """The colour of the side whose ``turn`` flag is ``white``."""
        return cls.WHITE if white else cls.BLACK

    @classmethod
    def to_move(cls, start_fen: str, ply: int) -> Color:
        """The side to move after ``ply`` plies of a game set up from ``start_fen`` (a stored
        FEN, whose second field, White when missing, is the side that moves first)."""
        fields = start_fen.split()
        white_first = len(fields) < 2 or fields[1] == "w"
        return cls.of(white_first == (ply % 2 == 0))

    @property
    def other(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE


class PlayerKind(StrEnum):
    """Who plays a seat."""

    HUMAN = "human"
    ENGINE = "engine"


class GameStatus(StrEnum):
    """Whether moves may still be played (stored as this text in the ``games`` table)."""

    ACTIVE = "active"
    FINISHED = "finished"
    ABORTED = "aborted"
    """Called off before both sides had moved (by a player, or by the server when the first
    move did not come in time): no result, and not in the list of everybody's games."""


class Opponent(StrEnum):
    """Whom the creator of a game plays against."""

    COMPUTER = "computer"
    FRIEND = "friend"


class SeatChoice(StrEnum):
    """The creator's colour as asked for on the new-game form."""

    WHITE = "white"
    BLACK = "black"
    RANDOM = "random"


class TakebackAction(StrEnum):
    """The three steps of taking back a move."""

    OFFER = "offer"
    ACCEPT = "accept"
    DECLINE = "decline"


class ChallengeStatus(StrEnum):
    """Whether a lobby challenge waits for an opponent (cancelled ones are deleted)."""

    OPEN = "open"
    ACCEPTED = "accepted"


def N_(message: str) -> str:
    """Marks an English text for the message catalogues (``make messages`` finds it) where it
    is translated later, by whoever shows it to a player (see :mod:`exochess.web.http.i18n`)."""
    return message


class GameServiceError(Exception):
    """A request the game service refuses; the message is written for the player.

    ``message`` is English with ``{name}`` fields filled from ``params``: the site shows it
    in the player's language by translating that text and then filling the fields
    (:func:`exochess.web.http.i18n.localized`).

    >>> GameOver("the game is over ({reason})", reason="Black resigned").message
    'the game is over (Black resigned)'
    """

    def __init__(self, message: str, **params: object) -> None:
        if isinstance(message, Phrase) and not params:
            # a sentence of the library (a move refused, a FEN error): translated like ours
            params = dict(message.params)
            message = message.template
        self.template = message
        self.params = params
        self.message = message.format(**params) if params else message
        super().__init__(self.message)


class InvalidRequest(GameServiceError):
    """The request itself is wrong: unknown variant, bad FEN, bad level, unreadable move text."""


class SecretRequired(GameServiceError):
    """Acting in a game needs a seat secret and none was given."""


class WrongSeat(GameServiceError):
    """The secret opens no seat of this game, or the seat is the computer's."""


class GameNotFound(GameServiceError):
    """No game has this id."""

    def __init__(self, game_id: str) -> None:
        super().__init__(N_("unknown game id {game_id}"), game_id=repr(game_id))
        self.game_id = game_id


class LessonNotFound(GameServiceError):
    """No game, stage, exercise or practice position of that name has a lesson."""


class PuzzleNotFound(GameServiceError):
    """No game of that name has puzzles, or it has no puzzle of that id or theme."""


class ChallengeNotFound(GameNotFound):
    """No lobby challenge has this id (or it was cancelled or expired)."""

    def __init__(self, challenge_id: str) -> None:
        GameServiceError.__init__(
            self,
            N_("unknown challenge id {challenge_id} (cancelled, expired or never posted)"),
            challenge_id=repr(challenge_id),
        )
        self.game_id = challenge_id


class TournamentNotFound(GameNotFound):
    """No tournament has this id."""

    def __init__(self, tournament_id: str) -> None:
        GameServiceError.__init__(self, N_("unknown tournament id {id}"), id=repr(tournament_id))
        self.game_id = tournament_id


class PlayerNotFound(GameNotFound):
    """No account has this name (or it was deleted)."""

    def __init__(self, name: str) -> None:
        GameServiceError.__init__(self, N_("no player is called {name}"), name=repr(name))
        self.game_id = name


class Conflict(GameServiceError):
    """The request does not fit the game's current state."""


class GameOver(Conflict):
    """The game (or the analysed position) is finished."""


class NotYourTurn(Conflict):
    """The other side is to move."""


class StalePosition(Conflict):
    """The client acted on an older ply, or another writer stored a change first."""


class IllegalMove(GameServiceError):
    """Well-formed move text that is not legal in the position."""


class TooFast(GameServiceError):
    """The client sends more than its share (chat lines, lobby messages): it should slow down."""


class TooLarge(GameServiceError):
    """More input than the service accepts (e.g. moves in an analysis request)."""


class EngineWithheld(GameServiceError):
    """No engine may look at this game now: it is between people and not over (fair play)."""


class EngineDisabled(GameServiceError):
    """This server runs without engine workers."""


class EngineFailed(EngineDisabled):
    """The engine could not answer (its worker died, or it ran far past its time)."""


class ServerBusy(GameServiceError):
    """Too much work of this kind is already waiting: the client should try again after
    ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int = 1, **params: object) -> None:
        super().__init__(message, **params)
        self.retry_after = retry_after


class EngineBusy(ServerBusy):
    """The engine's queue is full."""


class TooManyEngineJobs(EngineBusy):
    """This client already has as many engine jobs queued or running as it may."""


class TooManyAttempts(ServerBusy):
    """The client tried too often (e.g. failed logins): its own doing, unlike a busy server."""


class StorageUnavailable(GameServiceError):
    """The database is busy or unreachable; nothing was changed, the client may try again."""


class PositionTooLarge(GameServiceError):
    """A position with too many legal moves (or too slow to list them) to serve."""


@dataclass(frozen=True)
class Stamp:
    """The clock columns of one stored move: both clocks after it (None without real-time
    clocks) and the time it arrived (UTC, naive)."""

    white_ms: int | None
    black_ms: int | None
    at: dt.datetime


INVISIBLE = frozenset("\u034f\u115f\u1160\u2800\u3164\uffa0")
"""Characters that show nothing although they are not format characters (fillers, blanks)."""


def has_hidden_characters(text: str) -> bool:
    """Whether ``text`` holds a character that changes how the rest reads without being seen:
    format characters (right-to-left overrides and isolates, zero-width spaces and joiners,
    the byte-order mark), control, private-use or surrogate code points, or a blank filler."""
    return any(c in INVISIBLE or unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs") for c in text)
