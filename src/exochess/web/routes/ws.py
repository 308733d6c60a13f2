"""The game websocket ``/ws/games/{id}``: live states for players and spectators, moves from players.

Protocol (JSON text frames).  The server sends ``hello`` (``you``: the proved seat or null),
``state`` (the same object as ``GET /api/games/{id}``) after every change, ``ack`` for a stored
move, ``pong``, and ``error`` (``error``: the message, ``status``: the HTTP code the API would
answer, when there is one).  The client sends ``ping``, ``auth`` (``secret``) and ``move``
(``move``, optional ``ply`` and ``secret``); each may carry a ``ref`` that the reply echoes.
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
from exochess.web.service import GameService, LiveGame

MAX_MESSAGE = 16 * 1024
"""Largest websocket message handled (characters)."""
CLOSE_UNKNOWN_GAME = 4404

log = logging.getLogger("exochess.web")

router = APIRouter()


@dataclass
class _Session:
    """One connection's proved seat secret (from the URL or an ``auth`` message)."""

    live: LiveGame
    conn: Connection
    secret: str | None


def _error(message: str, **extra: Any) -> dict[str, Any]:
    """An error message; replies to a readable message add its ``ref`` (and a ``status``)."""
    return {"type": "error", "error": message, **extra}


@router.websocket("/ws/games/{game_id}")
async def game_socket(websocket: WebSocket, game_id: str, service: Service) -> None:
    await websocket.accept()
    try:
        live = await service.get(game_id)
    except GameNotFound as exc:
        await websocket.send_text(json.dumps(_error(exc.message)))
        await websocket.close(code=CLOSE_UNKNOWN_GAME)
        return
    # The secret may come in the URL (?secret=) or, kept out of access logs, in an
    # {"type": "auth", "secret": ...} message (what the pages do).
    secret = websocket.query_params.get("secret")
    seat = live.seat_of(secret) if secret else None
    if secret and seat is None:
        await websocket.send_text(json.dumps(_error("wrong seat secret for this game")))
        secret = None
    session = _Session(live, service.hub.join(game_id, websocket, seat), secret)
    try:
        await session.conn.send(json.dumps({"type": "hello", "you": seat}))
        await service.publish(live)  # presence changed: everyone gets the state
        while True:
            raw = await websocket.receive_text()
            reply = await _handle(service, session, raw)
            if reply is not None:
                await session.conn.send(json.dumps(reply))
                if reply["type"] == "hello":
                    await service.publish(live)
    except WebSocketDisconnect:
        pass
    except Exception:  # a binary frame, a closed transport...: drop this connection only
        log.debug("websocket closed on error", exc_info=True)
    finally:
        service.hub.leave(game_id, websocket)
        if not service.closed:
            try:
                await service.publish(live)
            except Exception:
                log.debug("publish after leave failed", exc_info=True)


async def _handle(service: GameService, session: _Session, raw: str) -> dict[str, Any] | None:
    """The reply to one client message."""
    if len(raw) > MAX_MESSAGE:
        return _error(f"message too large (over {MAX_MESSAGE} bytes)")
    try:
        data = json.loads(raw)
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
            return _authenticate(session, message)
        return await _move(service, session, message)
    except GameServiceError as exc:
        return _error(exc.message, status=status_of(exc), ref=ref)


def _authenticate(session: _Session, message: Auth) -> dict[str, Any]:
    secret = message.secret
    seat = session.live.seat_of(secret) if isinstance(secret, str) else None
    if seat is None:
        raise WrongSeat("wrong seat secret for this game")
    session.secret = secret
    session.conn.seat = seat
    return {"type": "hello", "you": seat, "ref": message.ref}


async def _move(service: GameService, session: _Session, message: WsMove) -> dict[str, Any]:
    secret = message.secret if message.secret is not None else session.secret
    await service.play(session.live.row.id, secret, message.move, message.ply)
    return {"type": "ack", "ref": message.ref}
