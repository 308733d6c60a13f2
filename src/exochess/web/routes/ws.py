"""The game websocket ``/ws/games/{id}``: live states for players and spectators, moves from players.

Protocol (JSON text frames).  The server sends ``hello`` (``you``: the proved seat or null),
``state`` (the same object as ``GET /api/games/{id}``) on connecting and after every change,
``presence`` (``online``: which seats have a connection, ``absent_since``: since when each
unconnected seat has been gone, ms since 1970) when that changes, ``ack`` for a stored move,
``pong`` (with ``now``, the server's time in ms since 1970, for the clocks), ``error``
(``error``: the message, ``status``: the HTTP code the API would answer, when there is one),
and ``chat`` (``lines``: chat lines, oldest first; ``history``: true for the lines sent on
connecting, after the first state, when there are any).  The client sends ``ping``, ``auth``
(``secret``), ``move`` (``move``, optional ``ply``, ``secret`` and ``lag_ms``) and ``chat``
(``text``: a line, from a connection that proved its seat; spectators only read) and
``berserk`` (optional ``secret``; an arena game, before the player's first move: answered by an
``ack``, the new state going to everyone); each may carry a ``ref`` that the reply echoes.
Secrets never travel in the URL (it ends up in access logs).  A connection beyond the caps
of :class:`~exochess.web.live.hub.Hub` is closed with code 4429 and the reason.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ValidationError

from exochess.web.accounts.sessions import current_user
from exochess.web.domain import GameNotFound, GameServiceError, SecretRequired, WrongSeat
from exochess.web.game.clock import epoch_ms
from exochess.web.game.live import LiveGame
from exochess.web.game.service import GameService
from exochess.web.http.deps import ChatDep, LimitsDep, Service
from exochess.web.http.errors import status_of, validation_message
from exochess.web.http.i18n import N_, localized, request_language
from exochess.web.http.schemas import CLIENT_MESSAGES, Auth, Ping, WsBerserk, WsChat, WsMove
from exochess.web.http.security import BadJSON, parse_json_text
from exochess.web.limits import CLOSE_FLOOD, MessageLimit
from exochess.web.live.hub import Connection
from exochess.web.social.chat import Chat
from exochess.web.storage.store import now as storage_now

MAX_MESSAGE = 16 * 1024
"""Largest websocket message handled (characters)."""
CLOSE_UNKNOWN_GAME = 4404
CLOSE_TOO_MANY = 4429
"""Close code when a cap on connections (per game or per client address) is reached."""

log = logging.getLogger("exochess.web")
M = TypeVar("M", bound=BaseModel)

router = APIRouter()


@dataclass
class _Session:
    """One connection's proved seat secret (from an ``auth`` message)."""

    live: LiveGame
    conn: Connection
    secret: str | None
    user_id: int | None = None
    """The signed-in account of the connection (it proves the seats the account holds)."""
    lang: str = "en"
    """The page's language (cookie or Accept-Language of the upgrade request), for error texts."""


def _error(message: str, **extra: Any) -> dict[str, Any]:
    """An error message; replies to a readable message add its ``ref`` (and a ``status``)."""
    return {"type": "error", "error": message, **extra}


@router.websocket("/ws/games/{game_id}")
async def game_socket(
    websocket: WebSocket, game_id: str, service: Service, chat: ChatDep, limits: LimitsDep
) -> None:
    await websocket.accept()
    hub = service.hub
    address = websocket.client.host if websocket.client is not None else ""
    refusal = await hub.refusal_anywhere(game_id, address)  # first: it costs no database read
    if refusal is not None:
        await websocket.close(code=CLOSE_TOO_MANY, reason=refusal)
        return
    try:
        live = await service.get(game_id)
    except GameNotFound as exc:
        message = localized(exc.template, exc.params, request_language(websocket))
        await websocket.send_text(json.dumps(_error(message)))
        await websocket.close(code=CLOSE_UNKNOWN_GAME)
        return
    refusal = hub.refusal(game_id, address)  # again: others may have joined during the load
    if refusal is not None:
        await websocket.close(code=CLOSE_TOO_MANY, reason=refusal)
        return
    user = current_user(websocket)
    # the seat the signed-in account holds is this connection's without an auth message
    seat = live.seat_of(None, user.id) if user is not None else None
    session = _Session(
        live,
        hub.join(game_id, websocket, seat, address),
        None,
        user.id if user else None,
        request_language(websocket),
    )
    try:
        await session.conn.send(json.dumps({"type": "hello", "you": seat}))
        if seat is not None:
            await service.reader.announce_presence(live)
        if "secret" in websocket.query_params:
            # a URL ends up in access logs: the seat is claimed with an auth message instead
            await session.conn.send(
                json.dumps(
                    _error('seat secrets are not accepted in the URL: send {"type": "auth", "secret": ...}')
                )
            )
        # the newcomer alone gets the state; the others' view has not changed.  Read after
        # joining: a change another server process announced before the join reached nobody
        # here, but marked the game stale, and get() reads it again
        await session.conn.send(service.reader.state_text(await service.get(game_id)))
        lines = await chat.history(game_id)
        if lines:  # a game without chat costs its watchers no extra message
            await session.conn.send(json.dumps({"type": "chat", "lines": lines, "history": True}))
        limit = MessageLimit(limits, "game-messages")
        while True:
            raw = await websocket.receive_text()
            if limit.check() != "ok":  # pings count too: a flood is closed, not answered
                log.info("game websocket closed: message flood", extra={"game": game_id})
                await session.conn.finish()  # the answers so far first, then the close
                await websocket.close(code=CLOSE_FLOOD, reason=limit.reason())
                break
            before = hub.online(game_id)
            reply = await _handle(service, chat, session, raw)
            if reply is not None:
                await session.conn.send(json.dumps(reply))
            if hub.online(game_id) != before:  # a seat was claimed
                await service.reader.announce_presence(live)
    except WebSocketDisconnect:
        pass
    except Exception:  # a binary frame, a closed transport...: drop this connection only
        log.debug("websocket closed on error", exc_info=True)
    finally:
        if hub.leave(game_id, websocket) and not service.closed:
            try:
                await service.reader.announce_presence(live)
            except Exception:
                log.debug("presence after leave failed", exc_info=True)


def read_message(raw: str, models: Mapping[str, type[M]]) -> M | dict[str, Any]:
    """The client message ``raw`` as the model its ``type`` names, or the error to answer."""
    if len(raw) > MAX_MESSAGE:
        return _error(f"message too large (over {MAX_MESSAGE} bytes)")
    try:
        data = parse_json_text(raw)  # refuses deep nesting and lone surrogates
    except BadJSON as exc:
        return _error(str(exc), status=400)
    except ValueError as exc:
        return _error(f"malformed JSON: {exc}")
    if not isinstance(data, dict):
        return _error("a message must be a JSON object")
    ref = data.get("ref")
    kind = data.get("type")
    model = models.get(kind) if isinstance(kind, str) else None
    if model is None:
        return _error(f"unknown message type {kind!r}", ref=ref)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        return _error(validation_message(exc.errors()), status=400, ref=ref)


async def _handle(service: GameService, chat: Chat, session: _Session, raw: str) -> dict[str, Any] | None:
    """The reply to one client message."""
    message = read_message(raw, CLIENT_MESSAGES)
    if isinstance(message, dict):
        return message
    try:
        if isinstance(message, Ping):
            # the server's time lets the client count the clocks down in the server's time
            return {"type": "pong", "ref": message.ref, "now": epoch_ms(storage_now())}
        if isinstance(message, Auth):
            return _authenticate(service, session, message)
        if isinstance(message, WsChat):
            return await _chat(chat, session, message)
        if isinstance(message, WsBerserk):
            secret = message.secret if message.secret is not None else session.secret
            await service.berserk(session.live.row.id, secret, session.user_id)
            return {"type": "ack", "ref": message.ref}
        return await _move(service, session, message)
    except GameServiceError as exc:
        text = localized(exc.template, exc.params, session.lang)
        return _error(text, status=status_of(exc), ref=message.ref)


async def _chat(chat: Chat, session: _Session, message: WsChat) -> dict[str, Any]:
    seat = session.conn.seat
    if seat is None:
        raise SecretRequired(N_("spectators read the players' chat but cannot write in it"))
    line = await chat.say(session.live.row.id, seat, message.text)
    return {"type": "ack", "ref": message.ref, "chat": line["id"]}


def _authenticate(service: GameService, session: _Session, message: Auth) -> dict[str, Any]:
    secret = message.secret
    seat = session.live.seat_of(secret) if isinstance(secret, str) else None
    if seat is None:
        raise WrongSeat(N_("wrong seat secret for this game"))
    session.secret = secret
    service.hub.set_seat(session.live.row.id, session.conn, seat)
    return {"type": "hello", "you": seat, "ref": message.ref}


async def _move(service: GameService, session: _Session, message: WsMove) -> dict[str, Any]:
    secret = message.secret if message.secret is not None else session.secret
    await service.play(
        session.live.row.id, secret, message.move, message.ply, message.lag_ms, session.user_id
    )
    return {"type": "ack", "ref": message.ref}
