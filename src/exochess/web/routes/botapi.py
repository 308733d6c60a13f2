"""The public API for programs, shaped as lichess's bot and board APIs (issue 47; docs/api.md).

* tokens: ``GET/POST /api/account/tokens``, ``POST /api/account/tokens/{id}/revoke`` (the
  signed-in account's page only: a token cannot make tokens);
* ``POST /api/bot/account/upgrade``: the account becomes a BOT, for good;
* streams of newline-delimited JSON (``application/x-ndjson``), a bare newline every
  :data:`KEEPALIVE_S` seconds without news: ``GET /api/stream/event`` (the account's
  challenges and games), ``GET /api/{bot,board}/game/stream/{id}`` (``gameFull``, then
  ``gameState`` after every change and ``chatLine``s; it ends with the game);
* ``POST /api/{bot,board}/game/{id}/move/{move}`` (``?ply=N``: only if the game is still at
  that ply), ``/resign``, ``/abort``, ``/chat``;
* ``POST /api/challenge/{username}``, ``/api/challenge/{id}/accept|decline|cancel``;
* ``GET /api/bot/online`` (ndjson) and the ``/bots`` page.

The ``bot`` routes are for bot accounts (scope ``bot:play``), the ``board`` routes for the
others (scope ``board:play``), as on lichess.  Bodies may be JSON or a form, as lichess's
clients send them.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any, Literal, cast
from urllib.parse import parse_qsl

import orjson
from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from pydantic import BaseModel, Field
from sqlalchemy import select

from exochess.variants import all_variants, names_text
from exochess.web.accounts.bots import bot_accounts, upgrade_to_bot
from exochess.web.accounts.ratings import BOT_TITLE
from exochess.web.accounts.tokens import SCOPES, ApiTokens, TokenNotFound, check_scopes
from exochess.web.accounts.users import User
from exochess.web.domain import N_, Color, GameStatus, InvalidRequest, TakebackAction, TooFast, WrongSeat
from exochess.web.game.clock import epoch_ms
from exochess.web.game.timecontrol import CORRESPONDENCE_DAYS, REALTIME_PRESETS
from exochess.web.http.bearer import Actor, actor_with, token_with
from exochess.web.http.deps import ChatDep, Service, Settings
from exochess.web.http.disconnect import client_address
from exochess.web.http.templating import render
from exochess.web.routes.accounts import UserDep
from exochess.web.routes.pages import tr
from exochess.web.social.apiview import chat_line, game_full, game_state, opponent_gone
from exochess.web.social.challenges import DirectChallenges, parse_clock
from exochess.web.social.events import StreamSocket, UserEvents, events_key, game_json
from exochess.web.storage.store import games

router = APIRouter()

KEEPALIVE_S = 6.0
"""Seconds without a line after which a stream sends a bare newline (lichess: about 6)."""
NDJSON = "application/x-ndjson"
ACTIVE_LISTED = 50
"""Ongoing games a new event stream announces (``gameStart``) at most."""

Events = Annotated[Actor, Depends(actor_with())]
Challenger = Annotated[Actor, Depends(actor_with("challenge:write", "bot:play"))]
BotPlayer = Annotated[Actor, Depends(token_with("bot:play"))]
BoardPlayer = Annotated[Actor, Depends(token_with("board:play"))]


def _events(request: Request) -> UserEvents:
    return cast(UserEvents, request.app.state.events)


def _challenges(request: Request) -> DirectChallenges:
    return cast(DirectChallenges, request.app.state.challenges)


def _tokens(request: Request) -> ApiTokens:
    return cast(ApiTokens, request.app.state.tokens)


def line(data: dict[str, Any]) -> bytes:
    """One ndjson line."""
    return orjson.dumps(data) + b"\n"


async def fields(request: Request) -> dict[str, Any]:
    """A body's fields, from JSON or a form (empty without a body)."""
    body = await request.body()
    if not body.strip():
        return {}
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media == "application/json":
        try:
            data = json.loads(body)
        except ValueError as exc:
            raise InvalidRequest(N_("malformed JSON: {reason}"), reason=str(exc)) from exc
        if not isinstance(data, dict):
            raise InvalidRequest(N_("the JSON body must be an object"))
        return data
    return dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True))


def _flag(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    text = str(value).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off", ""):
        return False
    raise InvalidRequest(N_("rated must be true or false"))


# --- tokens (the account's own page) -----------------------------------------------------------


class NewToken(BaseModel):
    description: str = Field(max_length=200, description="what the token is for (shown on the account page)")
    scopes: list[str] = Field(description=f"among {', '.join(SCOPES)}")


@router.get("/api/account/tokens")
async def list_tokens(user: UserDep, request: Request, service: Service) -> dict[str, Any]:
    """The signed-in account's live tokens (never the tokens themselves)."""
    found = await service.db(_tokens(request).list, user)
    return {
        "tokens": [
            {
                "id": t.id,
                "description": t.description,
                "scopes": list(t.scopes),
                "created": t.created.isoformat() + "Z",
                "last_used": t.last_used.isoformat() + "Z" if t.last_used else None,
            }
            for t in found
        ],
        "scopes": list(SCOPES),
    }


@router.post("/api/account/tokens", status_code=201)
async def create_token(body: NewToken, user: UserDep, request: Request, service: Service) -> dict[str, Any]:
    """A new token: shown in this answer only (``token``), stored as its digest."""
    scopes = check_scopes(body.scopes)
    token, info = await service.db(_tokens(request).create, user, body.description, scopes)
    return {"id": info.id, "token": token, "description": info.description, "scopes": list(info.scopes)}


@router.post("/api/account/tokens/{token_id}/revoke")
async def revoke_token(token_id: int, user: UserDep, request: Request, service: Service) -> dict[str, Any]:
    if not await service.db(_tokens(request).revoke, user, token_id):
        raise TokenNotFound(token_id)
    return {"revoked": token_id}


# --- bot accounts ------------------------------------------------------------------------------


@router.post("/api/bot/account/upgrade")
async def upgrade(actor: BotPlayer, service: Service) -> dict[str, Any]:
    """Make the token's account a BOT account, for good; 409 once it has played a game."""
    await service.db(upgrade_to_bot, service.storage.engine, actor.user)
    return {"ok": True}


async def _online_bots(request: Request, service: Any) -> list[dict[str, Any]]:
    bots = await service.db(bot_accounts, service.storage.engine)
    online = await _events(request).online([b.id for b in bots])
    # a house bot is the server's own engine: there whenever the server plays the computer
    if service.pool is not None:
        online |= {b.id for b in bots if service.new_games.house_level(b.id) is not None}
    return [
        {"id": b.name.lower(), "username": b.name, "title": BOT_TITLE, "online": b.id in online} for b in bots
    ]


@router.get("/api/bot/online")
async def online_bots(request: Request, service: Service) -> Response:
    """The bots with an event stream open, and the house bots, as ndjson (lichess's ``GET
    /api/bot/online``)."""
    bots = [b for b in await _online_bots(request, service) if b["online"]]
    return Response(b"".join(line(b) for b in bots), media_type=NDJSON)


@router.get("/bots", response_class=HTMLResponse)
async def bots_page(request: Request, service: Service) -> HTMLResponse:
    """Every bot account, those online first, each with a form to challenge it."""
    bots = sorted(await _online_bots(request, service), key=lambda b: (not b["online"], b["id"]))
    return render(
        request,
        "bots.html",
        title=tr(request, "Bots"),
        bots=bots,
        variants=[{"name": v.name, "title": v.title or v.name} for v in all_variants()],
        presets=REALTIME_PRESETS,
        days=CORRESPONDENCE_DAYS,
    )


# --- streams -----------------------------------------------------------------------------------


async def _room_for(service: Any, key: str, address: str) -> None:
    """Refuse a stream past the hub's caps (connections per client address, per game), which
    streams share with the websockets."""
    refusal = await service.hub.refusal_anywhere(key, address)
    if refusal is not None:
        raise TooFast(N_("too many streams and connections: {reason}"), reason=refusal)


def _active_games(engine: Any, user_id: int, limit: int) -> list[str]:
    with engine.connect() as conn:
        q = (
            select(games.c.id)
            .where(
                (games.c.white_user == user_id) | (games.c.black_user == user_id),
                games.c.status == GameStatus.ACTIVE,
            )
            .order_by(games.c.created.desc())
            .limit(limit)
        )
        return [r[0] for r in conn.execute(q)]


@router.get("/api/stream/event", response_class=StreamingResponse)
async def stream_events(actor: Events, request: Request, service: Service) -> StreamingResponse:
    """The account's events as ndjson: first a ``gameStart`` for every game it is playing and a
    ``challenge`` for every open challenge to or from it, then each ``challenge``,
    ``challengeCanceled``, ``challengeDeclined``, ``gameStart`` and ``gameFinish`` as it
    happens; a bare newline every few seconds without one."""
    events = _events(request)
    user = actor.user
    address = client_address(request) or ""
    await _room_for(service, events_key(user.id), address)
    socket, _conn = events.open(user.id, address)
    try:
        first: list[bytes] = []
        for game_id in await service.db(_active_games, service.storage.engine, user.id, ACTIVE_LISTED):
            live = await service.get(game_id)
            color = live.seat_of(None, user.id)
            if color is not None and live.active:
                first.append(line({"type": "gameStart", "game": game_json(live, color)}))
        for challenge in await _challenges(request).pending(user.id):
            first.append(line({"type": "challenge", "challenge": challenge}))
    except BaseException:
        events.close_stream(user.id, socket)
        raise

    async def body() -> AsyncIterator[bytes]:
        try:
            for item in first:
                yield item
            yield b"\n"  # the headers and a first byte go out at once, as lichess's do
            async for message in socket.messages(KEEPALIVE_S):
                yield b"\n" if message is None else message.encode() + b"\n"
        finally:
            events.close_stream(user.id, socket)

    return StreamingResponse(body(), media_type=NDJSON)


async def _game_stream(
    game_id: str, user: User, request: Request, service: Any, chat: Any
) -> StreamingResponse:
    live = await service.get(game_id)
    seat = live.seat_of(None, user.id)
    if seat is None:
        raise WrongSeat(N_("you do not play in this game"))
    hub = service.hub
    address = client_address(request) or ""
    await _room_for(service, live.row.id, address)
    socket = StreamSocket()
    # joined before the first state is read: a change in between comes after it, not lost
    hub.join(live.row.id, socket, seat, address)
    try:
        await service.reader.announce_presence(live)
        state = service.reader.state(live)
        history = await chat.history(live.row.id)
    except BaseException:
        hub.leave(live.row.id, socket)
        raise
    created = epoch_ms(live.row.created)

    async def body() -> AsyncIterator[bytes]:
        try:
            full = game_full(state, epoch_ms_now(), created)
            yield line(full)
            for entry in history:
                yield line(chat_line(entry))
            sent = full["state"]
            if sent["status"] != "started":
                return
            latest, gone = state, _gone_line(state, state, seat, None)
            if gone is not None and gone["gone"]:
                yield line(gone)
            async for message in socket.messages(KEEPALIVE_S):
                if message is None:
                    yield b"\n"
                    continue
                kind = message[:40]
                presence = None
                if '"type":"state"' in kind or '"type": "state"' in kind:
                    latest = presence = orjson.loads(message)
                    now_state = game_state(latest, epoch_ms_now())
                    if any(now_state[k] != sent[k] for k in STATE_KEYS):
                        sent = now_state
                        yield line(now_state)
                        if now_state["status"] != "started":
                            return  # the game is over: lichess ends the stream too
                elif '"type": "presence"' in kind or '"type":"presence"' in kind:
                    presence = orjson.loads(message)
                elif '"type": "chat"' in kind or '"type":"chat"' in kind:
                    for entry in json.loads(message).get("lines", []):
                        yield line(chat_line(entry))
                if presence is not None:
                    now_gone = _gone_line(latest, presence, seat, gone)
                    if now_gone is not None:
                        gone = now_gone
                        yield line(now_gone)
        finally:
            if hub.leave(live.row.id, socket) and not service.closed:
                await service.reader.announce_presence(live)

    return StreamingResponse(body(), media_type=NDJSON)


STATE_KEYS = ("moves", "status", "wtakeback", "btakeback")
"""What makes a new ``gameState`` line (not a presence change, which is ``opponentGone``'s)."""


def _gone_line(
    state: dict[str, Any], presence: dict[str, Any], seat: Color, last: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The ``opponentGone`` line owed after ``presence`` (a state or presence message), or None
    when the opponent's presence is what ``last`` said (or no claim is possible in the game)."""
    gone = opponent_gone(
        state, presence.get("online") or {}, presence.get("absent_since") or {}, seat.value, epoch_ms_now()
    )
    if gone is None or (last is None and not gone["gone"]):
        return None
    if last is not None and last["gone"] == gone["gone"]:
        return None
    return gone


def epoch_ms_now() -> int:
    return int(time.time() * 1000)


def _is_bot(actor: Actor) -> Actor:
    if not actor.bot:
        raise WrongSeat(N_("this endpoint is for bot accounts (upgrade with POST /api/bot/account/upgrade)"))
    return actor


def _is_board(actor: Actor) -> Actor:
    if actor.bot:
        raise WrongSeat(N_("a bot account plays through the /api/bot endpoints"))
    return actor


@router.get("/api/bot/game/stream/{game_id}", response_class=StreamingResponse)
async def bot_game_stream(
    game_id: str, actor: BotPlayer, request: Request, service: Service, chat: ChatDep
) -> StreamingResponse:
    """The game as ndjson: ``gameFull``, then a ``gameState`` after each move or the end, and
    ``chatLine``s; the stream ends with the game."""
    return await _game_stream(game_id, _is_bot(actor).user, request, service, chat)


@router.get("/api/board/game/stream/{game_id}", response_class=StreamingResponse)
async def board_game_stream(
    game_id: str, actor: BoardPlayer, request: Request, service: Service, chat: ChatDep
) -> StreamingResponse:
    """As the bot's game stream, for a person's account (scope ``board:play``)."""
    return await _game_stream(game_id, _is_board(actor).user, request, service, chat)


# --- acting in a game ----------------------------------------------------------------------------


async def _move(game_id: str, move: str, ply: int | None, user: User, service: Any) -> dict[str, Any]:
    if len(move) > 400:
        raise InvalidRequest(N_("move text too long"))
    await service.play(game_id, None, move, ply, user_id=user.id)
    return {"ok": True}


async def _chat(game_id: str, user: User, request: Request, service: Any, chat: Any) -> dict[str, Any]:
    data = await fields(request)
    room = data.get("room", "player")
    if room not in ("player", "spectator"):
        raise InvalidRequest(N_("room must be 'player' or 'spectator'"))
    live = await service.get(game_id)
    seat = live.seat_of(None, user.id)
    if seat is None:
        raise WrongSeat(N_("you do not play in this game"))
    await chat.say(live.row.id, seat, data.get("text"))
    return {"ok": True}


PlyQuery = Annotated[int | None, Query(ge=0, le=100_000, description="only if the game is still at this ply")]
MOVE_PATH = "{move:path}"  # the move text may hold '/', which a client encodes as %2F


@router.post("/api/bot/game/{game_id}/move/" + MOVE_PATH)
async def bot_move(
    game_id: str, move: str, actor: BotPlayer, service: Service, ply: PlyQuery = None
) -> dict[str, Any]:
    """Play ``move`` (canonical move text, URL-encoded) in the bot's game."""
    return await _move(game_id, move, ply, _is_bot(actor).user, service)


@router.post("/api/board/game/{game_id}/move/" + MOVE_PATH)
async def board_move(
    game_id: str, move: str, actor: BoardPlayer, service: Service, ply: PlyQuery = None
) -> dict[str, Any]:
    return await _move(game_id, move, ply, _is_board(actor).user, service)


GameAction = Callable[[Any, str, int], Awaitable[object]]
"""An ending a player asks for: (the game service, the game's id, the player's account id)."""


def _player_action(name: str, act: GameAction, summary: str, description: str) -> None:
    """Register ``POST /api/bot/game/{game_id}/<name>`` (bots) and its ``/api/board/`` twin
    (people): the same act, each behind its own token scope and account kind."""

    async def for_bot(game_id: str, actor: BotPlayer, service: Service) -> dict[str, Any]:
        await act(service, game_id, _is_bot(actor).user.id)
        return {"ok": True}

    async def for_board(game_id: str, actor: BoardPlayer, service: Service) -> dict[str, Any]:
        await act(service, game_id, _is_board(actor).user.id)
        return {"ok": True}

    for kind, endpoint in (("bot", for_bot), ("board", for_board)):
        router.add_api_route(
            f"/api/{kind}/game/{{game_id}}/{name}",
            endpoint,
            methods=["POST"],
            name=f"{kind}_{name.replace('-', '_')}",
            summary=summary,
            description=description,
        )


_player_action(
    "resign", lambda s, g, u: s.resign(g, None, u), "Resign", "Resign the game: the opponent wins."
)
_player_action(
    "abort",
    lambda s, g, u: s.abort(g, None, u),
    "Abort",
    "Call the game off without a result (409 once both sides have moved).",
)
_player_action(
    "claim-victory",
    lambda s, g, u: s.claim(g, None, u),
    "Claim victory",
    "Claim the win once the opponent has been gone longer than the game's absence limit (the game "
    "stream's opponentGone line says when).",
)


@router.post("/api/board/game/{game_id}/takeback/{accept}")
async def board_takeback(
    game_id: str, accept: Literal["yes", "no"], actor: BoardPlayer, service: Service
) -> dict[str, Any]:
    """As lichess's: ``yes`` accepts the opponent's takeback offer, or else offers one; ``no``
    declines the opponent's offer (games without a clock only, as on the site)."""
    user = _is_board(actor).user
    live = await service.get(game_id)
    seat = live.seat_of(None, user.id)
    if seat is None:
        raise WrongSeat(N_("you do not play in this game"))
    if accept == "no":
        action = TakebackAction.DECLINE
    elif live.row.takeback_offer == seat.other:
        action = TakebackAction.ACCEPT
    else:
        action = TakebackAction.OFFER
    await service.takeback(game_id, None, action, user.id)
    return {"ok": True}


CHAT_BODY = {
    "requestBody": {
        "content": {
            "application/x-www-form-urlencoded": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "room": {"type": "string", "enum": ["player", "spectator"]},
                        "text": {"type": "string"},
                    },
                    "required": ["text"],
                }
            }
        }
    }
}


@router.post("/api/bot/game/{game_id}/chat", openapi_extra=CHAT_BODY)
async def bot_chat(
    game_id: str, actor: BotPlayer, request: Request, service: Service, chat: ChatDep
) -> dict[str, Any]:
    """Say ``text`` in the game's chat (form or JSON: ``room``, ``text``)."""
    return await _chat(game_id, _is_bot(actor).user, request, service, chat)


@router.post("/api/board/game/{game_id}/chat", openapi_extra=CHAT_BODY)
async def board_chat(
    game_id: str, actor: BoardPlayer, request: Request, service: Service, chat: ChatDep
) -> dict[str, Any]:
    return await _chat(game_id, _is_board(actor).user, request, service, chat)


# --- challenges ------------------------------------------------------------------------------------

CHALLENGE_BODY = {
    "requestBody": {
        "content": {
            "application/x-www-form-urlencoded": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "variant": {
                            "type": "string",
                            "description": f"a game's name: {names_text()}",
                        },
                        "clock.limit": {"type": "integer", "description": "seconds per side (real time)"},
                        "clock.increment": {"type": "integer", "description": "seconds added per move"},
                        "days": {"type": "integer", "description": "days per move (correspondence)"},
                        "rated": {"type": "boolean"},
                        "color": {"type": "string", "enum": ["random", "white", "black"]},
                    },
                    "required": ["variant"],
                }
            }
        }
    }
}


@router.post("/api/challenge/{username}", openapi_extra=CHALLENGE_BODY)
async def challenge(username: str, actor: Challenger, request: Request, settings: Settings) -> dict[str, Any]:
    """Challenge the account ``username`` (form or JSON: ``variant``, ``clock.limit`` and
    ``clock.increment`` in seconds or ``days``, ``rated``, ``color``): the challenge, whose
    answer both accounts' event streams tell."""
    data = await fields(request)
    nested = data.get("clock")
    clock: dict[str, Any] = nested if isinstance(nested, dict) else {}
    control = parse_clock(
        data.get("clock.limit", clock.get("limit")),
        data.get("clock.increment", clock.get("increment")),
        data.get("days"),
        tiny=settings.tiny_clocks,
    )
    variant = data.get("variant")
    if not isinstance(variant, str) or not variant:
        raise InvalidRequest(N_("variant is required: a game's name"))
    made = await _challenges(request).create(
        actor.user,
        username,
        variant=variant,
        time_control=control,
        rated=_flag(data.get("rated")),
        color=str(data.get("color") or "random"),
    )
    return {"challenge": made, **made}


@router.post("/api/challenge/{challenge_id}/accept")
async def accept(challenge_id: str, actor: Challenger, request: Request) -> dict[str, Any]:
    """Accept a challenge sent to you: the game starts (``gameStart`` on both event streams)."""
    game_id = await _challenges(request).accept(actor.user, challenge_id)
    return {"ok": True, "game": game_id}


@router.post("/api/challenge/{challenge_id}/decline")
async def decline(challenge_id: str, actor: Challenger, request: Request) -> dict[str, Any]:
    """Decline a challenge sent to you (``reason``: one of lichess's keys, default ``generic``)."""
    data = await fields(request)
    await _challenges(request).decline(actor.user, challenge_id, str(data.get("reason") or "generic"))
    return {"ok": True}


@router.post("/api/challenge/{challenge_id}/cancel")
async def cancel(challenge_id: str, actor: Challenger, request: Request) -> dict[str, Any]:
    """Withdraw a challenge you sent."""
    await _challenges(request).cancel(actor.user, challenge_id)
    return {"ok": True}


__all__ = ["router"]
