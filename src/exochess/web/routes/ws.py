"""The game websocket ``/ws/games/{id}``: live states for players and spectators, moves from players.

Protocol (JSON text frames).  The server sends ``hello`` (``you``: the proved seat or null),
``state`` (the same object as ``GET /api/games/{id}``) on connecting and after every change,
``presence`` (``online``: which seats have a connection) when that changes, ``ack`` for a stored
move, ``pong``, and ``error`` (``error``: the message, ``status``: the HTTP code the API would
answer, when there is one).  The client sends ``ping``, ``auth`` (``secret``) and ``move``
(``move``, optional ``ply`` and ``secret``); each may carry a ``ref`` that the reply echoes.
Secrets never travel in the URL (it ends up in access logs).  A connection beyond the caps
of :class:`~exochess.web.hub.Hub` is closed with code 4429 and the reason.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from exochess.web.deps import Service
from exochess.web.domain import GameNotFound, GameServiceError, WrongSeat
from exochess.web.errors import status_of, validation_message
from exochess.web.hub import Connection
from exochess.web.schemas import CLIENT_MESSAGES, Auth, Ping, WsMove
from exochess.web.security import BadJSON, parse_json_text
from exochess.web.service import GameService, LiveGame

MAX_MESSAGE = 16 * 1024
"""Largest websocket message handled (characters)."""
CLOSE_UNKNOWN_GAME = 4404
CLOSE_TOO_MANY = 4429
"""Close code when a cap on connections (per game or per client address) is reached."""

log = logging.getLogger("exochess.web")

router = APIRouter()


@dataclass
class _Session:
    """One connection's proved seat secret (from an ``auth`` message)."""

    live: LiveGame
    conn: Connection
    secret: str | None


def _error(message: str, **extra: Any) -> dict[str, Any]:
    """An error message; replies to a readable message add its ``ref`` (and a ``status``)."""
    return {"type": "error", "error": message, **extra}


@router.websocket("/ws/games/{game_id}")
async def game_socket(websocket: WebSocket, game_id: str, service: Service) -> None:
    await websocket.accept()
    hub = service.hub
    address = websocket.client.host if websocket.client is not None else ""
    refusal = hub.refusal(game_id, address)  # checked first: it costs no database read
    if refusal is not None:
        await websocket.close(code=CLOSE_TOO_MANY, reason=refusal)
        return
    try:
        live = await service.get(game_id)
    except GameNotFound as exc:
        await websocket.send_text(json.dumps(_error(exc.message)))
        await websocket.close(code=CLOSE_UNKNOWN_GAME)
        return
    refusal = hub.refusal(game_id, address)  # again: others may have joined during the load
    if refusal is not None:
        await websocket.close(code=CLOSE_TOO_MANY, reason=refusal)
        return
    session = _Session(live, hub.join(game_id, websocket, None, address), None)
    try:
        await session.conn.send(json.dumps({"type": "hello", "you": None}))
        if "secret" in websocket.query_params:
            # a URL ends up in access logs: the seat is claimed with an auth message instead
            await session.conn.send(json.dumps(_error(
                'seat secrets are not accepted in the URL: send {"type": "auth", "secret": ...}'
            )))
        # the newcomer alone gets the state; the others' view has not changed.  Read after
        # joining: a change another server process announced before the join reached nobody
        # here, but marked the game stale, and get() reads it again
        await session.conn.send(service.state_text(await service.get(game_id)))
        while True:
            raw = await websocket.receive_text()
            before = hub.online(game_id)
            reply = await _handle(service, session, raw)
            if reply is not None:
                await session.conn.send(json.dumps(reply))
            if hub.online(game_id) != before:  # a seat was claimed
                await service.announce_presence(live)
    except WebSocketDisconnect:
        pass
    except Exception:  # a binary frame, a closed transport...: drop this connection only
        log.debug("websocket closed on error", exc_info=True)
    finally:
        if hub.leave(game_id, websocket) and not service.closed:
            try:
                await service.announce_presence(live)
            except Exception:
                log.debug("presence after leave failed", exc_info=True)


async def _handle(service: GameService, session: _Session, raw: str) -> dict[str, Any] | None:
    """The reply to one client message."""
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
    model = CLIENT_MESSAGES.get(kind) if isinstance(kind, str) else None
    if model is None:
        return _error(f"unknown message type {kind!r}", ref=ref)
    try:
        message = model.model_validate(data)
    except ValidationError as exc:
        return _error(validation_message(exc.errors()), status=400, ref=ref)
    try:
        if isinstance(message, Ping):
            return {"type": "pong", "ref": ref}
        if isinstance(message, Auth):
            return _authenticate(service, session, message)
        return await _move(service, session, message)
    except GameServiceError as exc:
        return _error(exc.message, status=status_of(exc), ref=ref)


def _authenticate(service: GameService, session: _Session, message: Auth) -> dict[str, Any]:
    secret = message.secret
    seat = session.live.seat_of(secret) if isinstance(secret, str) else None
    if seat is None:
        raise WrongSeat("wrong seat secret for this game")
    session.secret = secret
    service.hub.set_seat(session.live.row.id, session.conn, seat)
    return {"type": "hello", "you": seat, "ref": message.ref}


async def _move(service: GameService, session: _Session, message: WsMove) -> dict[str, Any]:
    secret = message.secret if message.secret is not None else session.secret
    await service.play(session.live.row.id, secret, message.move, message.ply)
    return {"type": "ack", "ref": message.ref}
