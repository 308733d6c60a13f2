"""The lobby: its page, the challenge API under ``/api/challenges`` and the websocket ``/ws/lobby``.

Lobby websocket protocol (JSON text frames).  The server sends ``lobby`` (``challenges`` and
``games``, the whole view, as ``GET /api/lobby``) on connecting and whenever it changes, and
``accepted`` (``challenge``, ``game``, ``poster_color``) when a challenge becomes a game.  The
client sends ``hello`` (``player``: its token; the player's real-time challenges live while one
of its sockets is open), ``post`` (the fields of ``POST /api/challenges``), ``accept`` (``id``,
``name``, ``player``), ``cancel`` (``id``, ``player``) and ``ping``; the replies are ``hello``,
``posted`` (``challenge``, ``secret``), ``start`` (``game``, ``color``, ``secret``, ``url``),
``cancelled`` (``id``), ``pong`` or ``error`` (``error``, ``status``), each echoing the ``ref``
of the message.

A socket opened with a session cookie acts as its account throughout (``name`` and ``player``
are then not needed): the session is read once, when the socket opens.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Annotated, Any

from anyio import to_thread
from fastapi import APIRouter, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, Response

from exochess.variants import all_variants
from exochess.web.accounts.ratings import load_rating
from exochess.web.accounts.sessions import current_user
from exochess.web.accounts.users import User
from exochess.web.domain import N_, GameServiceError, InvalidRequest, SecretRequired, TooFast
from exochess.web.game.timecontrol import CORRESPONDENCE_DAYS, REALTIME_PRESETS
from exochess.web.http.deps import LobbyDep
from exochess.web.http.disconnect import client_address
from exochess.web.http.errors import status_of
from exochess.web.http.i18n import localized, request_language
from exochess.web.http.schemas import (
    LOBBY_MESSAGES,
    AcceptedChallenge,
    ChallengeAnswer,
    ChallengeList,
    LobbyAccept,
    LobbyCancel,
    LobbyHello,
    LobbyPost,
    NewChallenge,
    Ping,
    PostedChallenge,
)
from exochess.web.http.templating import render
from exochess.web.limits import CLOSE_FLOOD, MessageLimit
from exochess.web.routes.pages import tr
from exochess.web.routes.ws import CLOSE_TOO_MANY, read_message
from exochess.web.social.lobby import LOBBY_ROOM, Lobby, in_rating_range, poster_key

log = logging.getLogger("exochess.web")
router = APIRouter()

SOCKET_STRIKES = 20
"""Messages over the limit answered with "slow down"; the next one closes the connection."""
MAX_RANGE = 3000
"""The widest rating range a filter may ask for (beyond it every rating is in)."""


def _game_url(game_id: str) -> str:
    return f"/game/{game_id}"


async def my_ratings(lobby: Lobby, user: User | None) -> dict[str, dict[str, Any]]:
    """The signed-in player's rating in each game (the starting one where they have none):
    the lobby's rating-range filter centres on it."""
    if user is None:
        return {}
    engine = lobby.service.storage.engine

    def read() -> dict[str, dict[str, Any]]:
        with engine.connect() as conn:
            out = {}
            for v in all_variants():
                r = load_rating(conn, user.id, v.name)
                out[v.name] = {"rating": round(r.rating), "provisional": r.provisional}
            return out

    return await to_thread.run_sync(read)


@router.get("/lobby", response_class=HTMLResponse)
async def lobby_page(request: Request, lobby: LobbyDep) -> HTMLResponse:
    me = current_user(request)
    return render(
        request,
        "lobby.html",
        title=tr(request, "Lobby"),
        presets=REALTIME_PRESETS,
        days=CORRESPONDENCE_DAYS,
        my_ratings=await my_ratings(lobby, me),
    )


@router.get("/api/lobby")
async def lobby_view(lobby: LobbyDep) -> Response:
    """The open challenges and the live games (the lobby websocket's ``lobby`` message)."""
    return Response(await lobby.current_text(), media_type="application/json")


@router.get("/api/challenges")
async def list_challenges(
    request: Request,
    lobby: LobbyDep,
    rating_range: Annotated[int | None, Query(ge=0, le=MAX_RANGE)] = None,
) -> ChallengeList:
    """The open challenges; with ``rating_range`` (signed in only), those whose poster is rated
    within that many points of the caller's rating in the challenge's game, and the caller's own."""
    challenges = json.loads(await lobby.current_text())["challenges"]
    if rating_range is not None:
        me = current_user(request)
        if me is None:
            raise SecretRequired(N_("sign in to filter challenges by rating: a guest has no rating"))
        mine = {v: r["rating"] for v, r in (await my_ratings(lobby, me)).items()}
        challenges = [
            c
            for c in challenges
            if c["player"]["account"] == me.name or in_rating_range(c, mine, rating_range)
        ]
    return ChallengeList(challenges=challenges)


@router.post("/api/challenges", status_code=201)
async def post_challenge(body: NewChallenge, request: Request, lobby: LobbyDep) -> PostedChallenge:
    challenge, secret = await lobby.post(
        variant=body.variant,
        time_control=body.time_control,
        color=body.color,
        name=body.name,
        player=body.player,
        address=client_address(request) or "",
        user=current_user(request),
        rated=body.rated,
    )
    return PostedChallenge(challenge=challenge, secret=secret)


@router.get("/api/challenges/{challenge_id}")
async def get_challenge(challenge_id: str, lobby: LobbyDep) -> dict[str, Any]:
    """One challenge: open, or accepted (then ``game`` and ``poster_color`` say where to play)."""
    return await lobby.challenge(challenge_id)


@router.post("/api/challenges/{challenge_id}/accept")
async def accept_challenge(
    challenge_id: str, body: ChallengeAnswer, request: Request, lobby: LobbyDep
) -> AcceptedChallenge:
    user = current_user(request)
    if body.name is None and user is None:
        raise InvalidRequest(N_("a display name is required (field 'name')"))
    game, color, secret = await lobby.accept(
        challenge_id,
        name=body.name,
        player=body.player,
        address=client_address(request) or "",
        user=user,
    )
    return AcceptedChallenge(game=game, color=color, secret=secret, url=_game_url(game))


@router.post("/api/challenges/{challenge_id}/cancel")
async def cancel_challenge(
    challenge_id: str, body: ChallengeAnswer, request: Request, lobby: LobbyDep
) -> dict[str, Any]:
    await lobby.cancel(
        challenge_id, player=body.player, address=client_address(request) or "", user=current_user(request)
    )
    return {"cancelled": challenge_id}


@dataclass
class _LobbySession:
    user: User | None = None
    """The signed-in account of the socket (read when it opened)."""
    key: str | None = None
    """The poster key this socket said hello with."""
    lang: str = "en"
    """The language its errors are answered in (the page's: cookie or Accept-Language)."""


@router.websocket("/ws/lobby")
async def lobby_socket(websocket: WebSocket, lobby: LobbyDep) -> None:
    await websocket.accept()
    hub = lobby.hub
    address = websocket.client.host if websocket.client is not None else ""
    refusal = await hub.refusal_anywhere(LOBBY_ROOM, address)
    if refusal is not None:
        await websocket.close(code=CLOSE_TOO_MANY, reason=refusal)
        return
    conn = hub.join(LOBBY_ROOM, websocket, None, address)
    session = _LobbySession(user=current_user(websocket), lang=request_language(websocket))
    throttle = MessageLimit(lobby.limits, "lobby-messages", strikes=SOCKET_STRIKES)
    try:
        await conn.send(await lobby.snapshot_text())
        while True:
            raw = await websocket.receive_text()
            verdict = throttle.check()
            if verdict == "close":  # still flooding after being told to slow down
                await conn.finish()  # the answers so far first, then the close
                await websocket.close(code=CLOSE_FLOOD, reason=throttle.reason())
                break
            if verdict == "slow":
                error = TooFast(N_("too many messages: slow down"))
                await conn.send(
                    json.dumps(
                        {
                            "type": "error",
                            "error": localized(error.template, error.params, session.lang),
                            "status": status_of(error),
                        }
                    )
                )
                continue
            reply = await _handle(lobby, session, raw, address)
            await conn.send(json.dumps(reply))
    except WebSocketDisconnect:
        pass
    except Exception:  # a binary frame, a closed transport...: drop this connection only
        log.debug("lobby websocket closed on error", exc_info=True)
    finally:
        hub.leave(LOBBY_ROOM, websocket)
        if session.key is not None and not lobby.service.closed:
            lobby.detach(session.key)


async def _handle(lobby: Lobby, session: _LobbySession, raw: str, address: str) -> dict[str, Any]:
    message = read_message(raw, LOBBY_MESSAGES)
    if isinstance(message, dict):
        return message
    ref = message.ref
    try:
        if isinstance(message, Ping):
            return {"type": "pong", "ref": ref}
        if isinstance(message, LobbyHello):
            key = poster_key(session.user, message.player)
            if key != session.key:
                lobby.attach(key)
                if session.key is not None:
                    lobby.detach(session.key)
                session.key = key
            return {"type": "hello", "ref": ref}
        if isinstance(message, LobbyPost):
            challenge, secret = await lobby.post(
                variant=message.variant,
                time_control=message.time_control,
                color=message.color,
                name=message.name,
                player=message.player,
                address=address,
                user=session.user,
                rated=message.rated,
            )
            return {"type": "posted", "challenge": challenge, "secret": secret, "ref": ref}
        if isinstance(message, LobbyAccept):
            game, color, secret = await lobby.accept(
                message.id,
                name=message.name,
                player=message.player,
                address=address,
                user=session.user,
            )
            return {
                "type": "start",
                "game": game,
                "color": color,
                "secret": secret,
                "url": _game_url(game),
                "ref": ref,
            }
        assert isinstance(message, LobbyCancel)
        await lobby.cancel(message.id, player=message.player, address=address, user=session.user)
        return {"type": "cancelled", "id": message.id, "ref": ref}
    except GameServiceError as exc:
        error = localized(exc.template, exc.params, session.lang)
        return {"type": "error", "error": error, "status": status_of(exc), "ref": ref}
