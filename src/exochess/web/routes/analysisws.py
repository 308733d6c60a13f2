"""The analysis websocket ``/ws/analysis``: a live analysis streamed as the engine deepens.

Protocol (JSON text frames).  The client sends ``start`` (``variant``, ``fen``, ``moves``: the
position as the analysis board has it; ``game``: the game it comes from, if any; ``lines``: how
many best lines, 3 by default; ``movetime_ms``: optional, at most the server's cap), ``stop``
and ``ping``; each may carry a ``ref`` that the reply echoes.  The server answers ``started``
(``id``: the analysis's number on this connection), then sends ``info`` for every completed
iteration (``id``, ``depth``, ``seldepth``, ``score_cp``, ``mate``, ``nodes``, ``nps``,
``time_ms``, ``side_to_move`` and ``lines``: each ``{multipv, depth, score_cp, mate, pv}``,
best first, scores for the side to move), and ``done`` (``id``, ``reason``: ``finished`` or
``stopped``).  Errors are ``error`` (``error``: the message in the page's language, ``status``:
what the HTTP API would answer, ``id`` when an analysis was under way).

A connection runs one analysis at a time: a new ``start`` stops the running one, and ``stop``
or closing the socket frees its engine worker at once (the pool's cancellation).  Each ``start``
counts against the ``analyses`` rate limit of the client address, and the analysis against the
engine pool's bounds (per owner, and the queue: 429 or 503 with the seconds to wait).  A
``start`` naming a game being played between two people is refused (403, fair play).

Both engine backends stream every iteration: the one-process pool up its worker's pipe, Redis
mode from an ``exochess worker`` over a pub/sub channel of the analysis's own
(:mod:`exochess.web.game.livestream`), where a stop reaches the worker through a key it reads
while it searches, and a worker that dies mid-search ends the analysis with an ``error``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from exochess.web.accounts.sessions import current_user
from exochess.web.compute.fairshare import owner_of
from exochess.web.domain import N_, EngineDisabled, GameServiceError
from exochess.web.game.analysis import analysis_line
from exochess.web.game.fairplay import refuse_engine_help
from exochess.web.game.service import GameService
from exochess.web.http.deps import LimitsDep, Service
from exochess.web.http.errors import status_of
from exochess.web.http.i18n import localized, request_language
from exochess.web.http.schemas import ANALYSIS_MESSAGES, Ping, WsAnalyse
from exochess.web.limits import CLOSE_FLOOD, MessageLimit, RateLimits, client_key
from exochess.web.routes.ws import read_message

log = logging.getLogger("exochess.web")
router = APIRouter()


class AnalysisSocket:
    """One connection's live analysis: at most one at a time, its updates sent in order."""

    def __init__(self, websocket: WebSocket, service: GameService, limits: RateLimits) -> None:
        self.websocket = websocket
        self.service = service
        self.limits = limits
        self.address = websocket.client.host if websocket.client is not None else ""
        user = current_user(websocket)
        self.owner = owner_of(user.id if user else None, self.address or "?")
        self.lang = request_language(websocket)
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.ids = itertools.count(1)
        self.task: asyncio.Task[None] | None = None

    def emit(self, message: dict[str, Any]) -> None:
        self.outbox.put_nowait(message)

    def error(self, exc: GameServiceError, **extra: Any) -> dict[str, Any]:
        text = localized(exc.template, exc.params, self.lang)
        return {"type": "error", "error": text, "status": status_of(exc), **extra}

    async def sender(self) -> None:
        """Send the outbox's messages in order (one writer for the socket)."""
        while True:
            message = await self.outbox.get()
            await self.websocket.send_text(json.dumps(message))

    async def stop(self) -> None:
        """Stop the running analysis, if any (its ``done`` is sent before this returns)."""
        task, self.task = self.task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def start(self, message: WsAnalyse) -> dict[str, Any]:
        """Check and start the analysis ``message`` asks for; the reply to send."""
        await self.stop()
        pool = self.service.pool
        if pool is None:
            raise EngineDisabled(N_("the engine is disabled on this server"))
        if message.game is not None:
            # fair play: the same guard as a game's one-shot evaluation (POST .../evaluate)
            refuse_engine_help((await self.service.get(message.game, view=False)).row)
        refusal = await self.limits.hit("analyses", client_key(self.address))
        if refusal is not None:
            return {
                "type": "error",
                "error": refusal.message(" from your address"),
                "status": 429,
                "retry_after": refusal.retry_s,
                "ref": message.ref,
            }
        variant, start_fen, texts = await self.service.cpu_free.run(
            "replaying the moves",
            analysis_line,
            message.variant,
            message.fen,
            message.moves,
            owner=self.owner,
        )
        # refused now (429/503) rather than after the reply: the backend's own check
        await pool.check_analysis(self.owner)
        number = next(self.ids)
        self.task = asyncio.create_task(self._run(number, message, variant, start_fen, texts))
        return {"type": "started", "id": number, "ref": message.ref}

    async def _run(
        self, number: int, message: WsAnalyse, variant: str, start_fen: str, texts: list[str]
    ) -> None:
        pool = self.service.pool
        assert pool is not None

        def on_info(data: dict[str, Any]) -> None:
            self.emit({"type": "info", "id": number, **data})

        try:
            await pool.analyse_live(
                variant,
                start_fen,
                texts,
                on_info,
                owner=self.owner,
                multipv=message.lines,
                movetime_ms=message.movetime_ms,
            )
        except asyncio.CancelledError:
            self.emit({"type": "done", "id": number, "reason": "stopped"})
            raise
        except GameServiceError as exc:
            self.emit(self.error(exc, id=number))
            return
        self.emit({"type": "done", "id": number, "reason": "finished"})

    async def handle(self, raw: str) -> dict[str, Any] | None:
        """The reply to one client message."""
        message = read_message(raw, ANALYSIS_MESSAGES)
        if isinstance(message, dict):
            return message
        try:
            if isinstance(message, Ping):
                return {"type": "pong", "ref": message.ref}
            if isinstance(message, WsAnalyse):
                return await self.start(message)
            await self.stop()
            return None  # the analysis's own "done" says it stopped
        except GameServiceError as exc:
            return self.error(exc, ref=message.ref)


@router.websocket("/ws/analysis")
async def analysis_socket(websocket: WebSocket, service: Service, limits: LimitsDep) -> None:
    await websocket.accept()
    session = AnalysisSocket(websocket, service, limits)
    sender = asyncio.create_task(session.sender())
    # the game websocket's limit: a person sends a few messages a second at most
    limit = MessageLimit(limits, "game-messages")
    try:
        while True:
            raw = await websocket.receive_text()
            if limit.check() != "ok":
                await session.stop()
                await websocket.close(code=CLOSE_FLOOD, reason=limit.reason())
                break
            reply = await session.handle(raw)
            if reply is not None:
                session.emit(reply)
    except WebSocketDisconnect:
        pass
    except Exception:  # a binary frame, a closed transport...: drop this connection only
        log.debug("analysis websocket closed on error", exc_info=True)
    finally:
        await session.stop()
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await sender
