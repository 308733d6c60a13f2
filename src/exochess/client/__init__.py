"""A small client of an exochess site's public API, for programs that play there (issue 47).

The API is shaped as lichess's bot and board APIs (the site's docs/api.md); this module wraps
it in typed calls over ``httpx`` (the ``client`` extra: ``pip install 'exochess[client]'``).
It never imports the site's own package: a client needs only the HTTP API.

>>> from exochess.client import Client
>>> client = Client("https://exochess.example", "exo_...")  # doctest: +SKIP
>>> for event in client.stream_events():  # doctest: +SKIP
...     if event["type"] == "challenge":
...         client.accept(event["challenge"]["id"])

Streams yield one ``dict`` per line and skip the keep-alive blank lines; a stream that stays
silent longer than ``stream_timeout`` seconds (the server sends a blank line every few seconds)
raises :class:`StreamDropped`, as does a dropped connection, so the caller can open it again.
:mod:`exochess.client.bot` is a whole bot built on this (``exochess bot``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal, TypedDict
from urllib.parse import quote

import httpx

from exochess.errors import ExochessError

__all__ = [
    "ApiError",
    "Client",
    "GameState",
    "StreamDropped",
    "moves_of",
    "side_to_move",
]

DEFAULT_TIMEOUT_S = 30.0
STREAM_TIMEOUT_S = 30.0
"""Seconds a stream may stay silent (the server's keep-alives come every 6) before it is
taken for dropped."""


class ApiError(ExochessError):
    """The site refused a request: ``status`` and the site's ``{"error": ...}`` message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message


class StreamDropped(ExochessError):
    """A stream ended without its game ending, or fell silent: open it again."""


class GameState(TypedDict, total=False):
    """A ``gameState`` line (the ``state`` of a ``gameFull`` too): clocks in milliseconds."""

    type: str
    moves: str
    """The moves so far, in canonical move text, separated by single spaces."""
    wtime: int
    btime: int
    winc: int
    binc: int
    status: str
    """``started`` while the game is played; else lichess's word for how it ended."""
    winner: str
    termination: str | None
    reason: str | None


def moves_of(state: GameState) -> list[str]:
    """The moves of a game state, as a list."""
    return state.get("moves", "").split()


def side_to_move(initial_fen: str, plies: int) -> Literal["white", "black"]:
    """Whose turn it is after ``plies`` moves from ``initial_fen`` (``startpos``: White begins;
    else the FEN's second field)."""
    fields = initial_fen.split()
    white_first = initial_fen == "startpos" or len(fields) < 2 or fields[1] == "w"
    return "white" if white_first == (plies % 2 == 0) else "black"


def _error(response: httpx.Response) -> ApiError:
    try:
        message = str(response.json().get("error", response.text))
    except ValueError:
        message = response.text[:200] or response.reason_phrase
    return ApiError(response.status_code, message)


class Client:
    """One account's API calls, with its personal token (``Authorization: Bearer``).

    ``bot`` selects the endpoints: ``/api/bot/...`` for a bot account (scope ``bot:play``),
    ``/api/board/...`` for a person's (scope ``board:play``).
    """

    def __init__(
        self,
        url: str,
        token: str,
        *,
        bot: bool = True,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        stream_timeout_s: float = STREAM_TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base = "/api/bot" if bot else "/api/board"
        self.stream_timeout_s = stream_timeout_s
        self.http = httpx.Client(
            base_url=url.rstrip("/"),
            headers={"Authorization": f"Bearer {token}", "User-Agent": "exochess-client"},
            timeout=timeout_s,
            transport=transport,
        )

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- plumbing ------------------------------------------------------------------------------

    def _call(self, method: str, path: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
        try:
            response = self.http.request(method, path, data=data)
        except httpx.HTTPError as exc:
            raise ApiError(0, f"cannot reach the site: {exc}") from exc
        if response.status_code >= 400:
            raise _error(response)
        if not response.content.strip():
            return {}
        out: dict[str, Any] = response.json()
        return out

    def stream(self, path: str, *, keepalives: bool = False) -> Iterator[dict[str, Any]]:
        """The ndjson lines of a stream at ``path``, keep-alives skipped (or, with
        ``keepalives``, yielded as ``{}``: a loop over the stream then wakes every few seconds);
        :class:`StreamDropped` when it falls silent or the connection drops, :class:`ApiError`
        when it is refused."""
        timeout = httpx.Timeout(DEFAULT_TIMEOUT_S, read=self.stream_timeout_s)
        try:
            with self.http.stream("GET", path, timeout=timeout) as response:
                if response.status_code >= 400:
                    response.read()
                    raise _error(response)
                for text in response.iter_lines():
                    if text.strip():
                        yield json.loads(text)
                    elif keepalives:
                        yield {}
        except httpx.HTTPError as exc:
            raise StreamDropped(f"stream {path} dropped: {exc}") from exc

    # --- the account ---------------------------------------------------------------------------

    def account(self) -> dict[str, Any]:
        """The token's account: ``id``, ``username``, ``title`` (``BOT`` for a bot)."""
        return self._call("GET", "/api/account")

    def upgrade_to_bot(self) -> None:
        """Make the account a BOT account, for good (only before it has played a game)."""
        self._call("POST", "/api/bot/account/upgrade")

    # --- streams -------------------------------------------------------------------------------

    def stream_events(self, *, keepalives: bool = False) -> Iterator[dict[str, Any]]:
        """The account's events: ``challenge``, ``challengeCanceled``, ``challengeDeclined``,
        ``gameStart``, ``gameFinish`` (on opening: the games being played, the open challenges)."""
        return self.stream("/api/stream/event", keepalives=keepalives)

    def stream_game(self, game_id: str, *, keepalives: bool = False) -> Iterator[dict[str, Any]]:
        """A game: ``gameFull``, then ``gameState`` after every change, and ``chatLine``s; it
        ends (without :class:`StreamDropped`) when the game is over."""
        return self.stream(f"{self.base}/game/stream/{quote(game_id, safe='')}", keepalives=keepalives)

    # --- acting in a game ----------------------------------------------------------------------

    def move(self, game_id: str, move: str, *, ply: int | None = None) -> None:
        """Play ``move`` (canonical move text); with ``ply``, only if the game is still at that
        ply (a move sent again after a dropped connection is then refused, never played twice)."""
        path = f"{self.base}/game/{quote(game_id, safe='')}/move/{quote(move, safe='')}"
        if ply is not None:
            path += f"?ply={ply}"
        self._call("POST", path)

    def resign(self, game_id: str) -> None:
        self._call("POST", f"{self.base}/game/{quote(game_id, safe='')}/resign")

    def abort(self, game_id: str) -> None:
        self._call("POST", f"{self.base}/game/{quote(game_id, safe='')}/abort")

    def claim_victory(self, game_id: str) -> None:
        """Claim the win once the opponent has been gone longer than the game allows (the game
        stream's ``opponentGone`` line gives the seconds left: ``claimWinInSeconds``)."""
        self._call("POST", f"{self.base}/game/{quote(game_id, safe='')}/claim-victory")

    def takeback(self, game_id: str, accept: bool) -> None:
        """A person's account only (board API), games without a clock: ``accept`` True accepts
        the opponent's takeback offer or else offers one; False declines the offer."""
        answer = "yes" if accept else "no"
        self._call("POST", f"/api/board/game/{quote(game_id, safe='')}/takeback/{answer}")

    def chat(self, game_id: str, text: str, room: str = "player") -> None:
        self._call("POST", f"{self.base}/game/{quote(game_id, safe='')}/chat", {"room": room, "text": text})

    # --- challenges ----------------------------------------------------------------------------

    def challenge(
        self,
        username: str,
        variant: str,
        *,
        limit_s: int | None = None,
        increment_s: int = 0,
        days: int | None = None,
        rated: bool = False,
        color: str = "random",
    ) -> dict[str, Any]:
        """Challenge ``username`` to ``variant`` (a game's name): a real-time clock of
        ``limit_s`` seconds plus ``increment_s`` a move, or ``days`` per move, or neither (no
        clock).  The challenge; its answer comes on both accounts' event streams."""
        data: dict[str, Any] = {"variant": variant, "rated": "true" if rated else "false", "color": color}
        if limit_s is not None:
            data["clock.limit"] = limit_s
            data["clock.increment"] = increment_s
        if days is not None:
            data["days"] = days
        return self._call("POST", f"/api/challenge/{quote(username, safe='')}", data)

    def accept(self, challenge_id: str) -> str:
        """Accept a challenge: the new game's id."""
        return str(self._call("POST", f"/api/challenge/{quote(challenge_id, safe='')}/accept")["game"])

    def decline(self, challenge_id: str, reason: str = "generic") -> None:
        self._call("POST", f"/api/challenge/{quote(challenge_id, safe='')}/decline", {"reason": reason})

    def cancel(self, challenge_id: str) -> None:
        self._call("POST", f"/api/challenge/{quote(challenge_id, safe='')}/cancel")

    # --- tournaments ---------------------------------------------------------------------------

    def join_tournament(self, tournament_id: str, kind: Literal["arena", "swiss"] = "arena") -> None:
        """Enter the arena (or, with ``kind="swiss"``, the Swiss event) ``tournament_id``: its
        games then come as ``gameStart`` events like any other.  A bot account may join only an
        event open to bots (403 otherwise); an arena pairs a bot only while its event stream is
        open."""
        self._call("POST", f"{_EVENT_PATHS[kind]}/{quote(tournament_id, safe='')}/join")

    def withdraw_tournament(self, tournament_id: str, kind: Literal["arena", "swiss"] = "arena") -> None:
        """Leave the event's pairings (the games played so far still count)."""
        self._call("POST", f"{_EVENT_PATHS[kind]}/{quote(tournament_id, safe='')}/withdraw")


_EVENT_PATHS = {"arena": "/api/tournament", "swiss": "/api/swiss"}
"""Where each kind of tournament is joined (lichess's paths)."""
