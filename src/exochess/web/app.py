"""The FastAPI application: JSON API, websockets and Jinja2 pages."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from exochess.board import Board
from exochess.errors import ExochessError, FenError, UnknownVariantError
from exochess.rulesdoc import render_html
from exochess.variants import all_variants, find_variant
from exochess.web.enginepool import EnginePool
from exochess.web.hub import Connection, Hub
from exochess.web.pgnexport import game_pgn
from exochess.web.positions import glyphs, position_json, variant_json
from exochess.web.service import MAX_LEVEL, ApiError, GameService, LiveGame
from exochess.web.storage import Storage

HERE = Path(__file__).parent
MAX_BODY = 16 * 1024
"""Largest request body or websocket message accepted (bytes)."""
MAX_ANALYSIS_MOVES = 1000
DEFAULT_DB = "sqlite:///exochess.sqlite"

log = logging.getLogger("exochess.web")


def database_url() -> str:
    return os.environ.get("EXOCHESS_DATABASE_URL", DEFAULT_DB)


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def read_json(request: Request) -> dict[str, Any]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():  # bounded even without a Content-Length header
        size += len(chunk)
        if size > MAX_BODY:
            raise ApiError(413, f"request body too large (over {MAX_BODY} bytes)")
        chunks.append(chunk)
    body = b"".join(chunks)
    if not body.strip():
        raise ApiError(400, "a JSON object body is required")
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(400, f"malformed JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ApiError(400, "the JSON body must be an object")
    return data


def create_app(
    database: str | None = None, *, engine_workers: int = 2, use_engine_pool: bool = True
) -> FastAPI:
    """Build the site.  ``database`` is an SQLAlchemy URL (default: env or ./exochess.sqlite)."""
    url = database or database_url()
    hub = Hub()
    holder: dict[str, GameService] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        storage = Storage(url)
        pool = EnginePool(engine_workers) if use_engine_pool else None
        service = GameService(storage, pool, hub)
        holder["service"] = service
        app.state.service = service
        if pool is not None:
            app.state.warm_task = asyncio.create_task(pool.warm())
        await service.resume_engine_games()
        try:
            yield
        finally:
            service.close()
            if pool is not None:
                pool.shutdown()
            storage.close()

    app = FastAPI(title="exochess", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.add_middleware(GZipMiddleware, minimum_size=2048)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    def svc() -> GameService:
        return holder["service"]

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error(exc.status, exc.message)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if request.url.path.startswith("/api/") or exc.status_code != 404:
            return error(exc.status_code, str(exc.detail))
        return templates.TemplateResponse(
            request, "error.html", {"message": "This page does not exist."}, status_code=404
        )

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return error(400, f"bad request: {exc.errors()}")

    @app.exception_handler(Exception)
    async def _internal_error(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error", exc_info=exc)
        return error(500, "internal server error")

    @app.middleware("http")
    async def _limit_body(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        length = request.headers.get("content-length")
        if length is not None:
            try:
                too_big = int(length) > MAX_BODY
            except ValueError:
                return error(400, "bad Content-Length header")
            if too_big:
                return error(413, f"request body too large (over {MAX_BODY} bytes)")
        return await call_next(request)

    def variants_ctx() -> list[dict[str, Any]]:
        return [variant_json(v) for v in all_variants()]

    glyph_table = {v.name: glyphs(v) for v in all_variants()}

    def page(request: Request, name: str, **ctx: Any) -> HTMLResponse:
        ctx.setdefault("variants", variants_ctx())
        ctx.setdefault("glyphs", glyph_table)
        ctx.setdefault("has_engine", use_engine_pool)
        return templates.TemplateResponse(request, name, ctx)

    # --- pages ---------------------------------------------------------------------------

    @app.get("/", response_class=HTMLResponse)
    async def home(request: Request) -> HTMLResponse:
        return page(request, "home.html", title="exochess")

    @app.get("/rules/{variant}", response_class=HTMLResponse)
    async def rules(request: Request, variant: str) -> Response:
        try:
            v = find_variant(variant)
        except UnknownVariantError as exc:
            return templates.TemplateResponse(request, "error.html", {"message": str(exc)}, status_code=404)
        body = render_html(v)
        return page(request, "rules.html", title=f"{v.title} rules", variant=variant_json(v), body=body)

    @app.get("/new", response_class=HTMLResponse)
    async def new_game(request: Request) -> HTMLResponse:
        return page(request, "new.html", title="New game", max_level=MAX_LEVEL,
                    selected=request.query_params.get("variant", ""),
                    fen=request.query_params.get("fen", ""))

    @app.get("/game/{game_id}", response_class=HTMLResponse)
    async def game_page(request: Request, game_id: str) -> Response:
        try:
            live = await svc().get(game_id)
        except ApiError as exc:
            return templates.TemplateResponse(
                request, "error.html", {"message": exc.message}, status_code=404
            )
        return page(request, "game.html", title=f"{live.board.variant.title} game", game_id=game_id,
                    state_json=svc().state_text(live))

    @app.get("/games", response_class=HTMLResponse)
    async def games_page(request: Request) -> HTMLResponse:
        return page(request, "games.html", title="Games")

    @app.get("/analysis", response_class=HTMLResponse)
    async def analysis_page(request: Request) -> HTMLResponse:
        return page(request, "analysis.html", title="Analysis board",
                    selected=request.query_params.get("variant", "fugue"),
                    fen=request.query_params.get("fen", ""))

    # --- API -------------------------------------------------------------------------------

    @app.get("/api/variants")
    async def api_variants() -> dict[str, Any]:
        return {"variants": variants_ctx(), "engine": use_engine_pool, "max_level": MAX_LEVEL}

    @app.post("/api/games", status_code=201)
    async def api_create(request: Request) -> JSONResponse:
        data = await read_json(request)
        fen = data.get("fen")
        if fen is not None and not isinstance(fen, str):
            raise ApiError(400, "'fen' must be a string")
        variant = data.get("variant")
        if not isinstance(variant, str):
            raise ApiError(400, "'variant' is required (e.g. \"fugue\")")
        live, seats, you = await svc().create(
            variant, str(data.get("opponent", "")), data.get("level"), str(data.get("color", "white")), fen
        )
        base = f"/game/{live.row.id}"
        body = {
            "id": live.row.id,
            "seats": {c: {"secret": s, "url": f"{base}#seat={c}&secret={s}"} for c, s in seats.items()},
            "you": you,
            "watch_url": base,
            "state": svc().state(live),
        }
        return JSONResponse(body, status_code=201)

    @app.get("/api/games")
    async def api_games(ids: str | None = None, limit: int = 30) -> dict[str, Any]:
        id_list = [i for i in ids.split(",") if i][:100] if ids else None
        rows = await svc().db(svc().storage.recent_games, max(1, min(limit, 100)), id_list)
        return {
            "games": [
                {
                    "id": r.id, "variant": r.variant, "white": r.white, "black": r.black,
                    "level": r.level, "ply": r.ply, "status": r.status, "result": r.result,
                    "reason": r.reason, "updated": r.updated.isoformat() + "Z",
                }
                for r in rows
            ]
        }

    @app.get("/api/games/{game_id}")
    async def api_game(game_id: str) -> Response:
        live = await svc().get(game_id)
        return Response(svc().state_text(live), media_type="application/json")

    @app.post("/api/games/{game_id}/moves")
    async def api_move(game_id: str, request: Request) -> Response:
        data = await read_json(request)
        live = await svc().play(game_id, data.get("secret"), data.get("move"), data.get("ply"))
        return Response(svc().state_text(live), media_type="application/json")

    @app.post("/api/games/{game_id}/resign")
    async def api_resign(game_id: str, request: Request) -> Response:
        data = await read_json(request)
        live = await svc().resign(game_id, data.get("secret"))
        return Response(svc().state_text(live), media_type="application/json")

    @app.post("/api/games/{game_id}/takeback")
    async def api_takeback(game_id: str, request: Request) -> Response:
        data = await read_json(request)
        live = await svc().takeback(game_id, data.get("secret"), data.get("action"))
        return Response(svc().state_text(live), media_type="application/json")

    @app.post("/api/games/{game_id}/rematch")
    async def api_rematch(game_id: str, request: Request) -> JSONResponse:
        data = await read_json(request)
        new, color, secret = await svc().rematch(game_id, data.get("secret"))
        return JSONResponse({
            "id": new.row.id, "color": color, "secret": secret,
            "url": f"/game/{new.row.id}#seat={color}&secret={secret}",
        })

    @app.get("/api/games/{game_id}/pgn")
    async def api_pgn(game_id: str) -> Response:
        live = await svc().get(game_id)
        text = game_pgn(live.row, live.board)
        return Response(text, media_type="application/x-chess-pgn",
                        headers={"Content-Disposition": f'attachment; filename="exochess-{game_id}.pgn"'})

    @app.post("/api/games/{game_id}/evaluate")
    async def api_evaluate(game_id: str, request: Request) -> dict[str, Any]:
        live = await svc().get(game_id)
        row = live.row
        if live.board.is_game_over():
            raise ApiError(409, "the game is over: there is nothing to evaluate")
        return await svc().evaluate(row.variant, row.start_fen, list(row.moves), 1000)

    def analysis_board(data: dict[str, Any]) -> Board:
        variant = data.get("variant", "fugue")
        fen = data.get("fen")
        moves = data.get("moves", [])
        if not isinstance(variant, str):
            raise ApiError(400, "'variant' must be a string")
        if fen is not None and not isinstance(fen, str):
            raise ApiError(400, "'fen' must be a string")
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise ApiError(400, "'moves' must be a list of move texts")
        if len(moves) > MAX_ANALYSIS_MOVES:
            raise ApiError(413, f"at most {MAX_ANALYSIS_MOVES} moves")
        try:
            board = Board(variant, fen=fen.strip() if fen and fen.strip() else None)
            for i, text in enumerate(moves):
                try:
                    board.push_text(text)
                except ExochessError as exc:
                    raise ApiError(422, f"move {i + 1} ({text}): {exc}") from exc
        except (UnknownVariantError, FenError) as exc:
            raise ApiError(400, str(exc)) from exc
        return board

    @app.post("/api/position")
    async def api_position(request: Request) -> dict[str, Any]:
        board = analysis_board(await read_json(request))
        return position_json(board)

    @app.post("/api/analyse")
    async def api_analyse(request: Request) -> dict[str, Any]:
        data = await read_json(request)
        board = analysis_board(data)
        ms = data.get("movetime_ms", 1000)
        if not isinstance(ms, int) or isinstance(ms, bool) or not 50 <= ms <= 10000:
            raise ApiError(400, "'movetime_ms' must be an integer from 50 to 10000")
        if board.is_game_over():
            raise ApiError(409, "the game is over in this position")
        return await svc().evaluate(board.variant.name, board.starting_fen,
                                    [str(m) for m in board.move_stack], ms)

    # --- websocket ---------------------------------------------------------------------------

    @app.websocket("/ws/games/{game_id}")
    async def ws_game(websocket: WebSocket, game_id: str) -> None:
        await websocket.accept()
        service = svc()
        try:
            live = await service.get(game_id)
        except ApiError as exc:
            await websocket.send_text(json.dumps({"type": "error", "error": exc.message}))
            await websocket.close(code=4404)
            return
        # The secret may come in the URL (?secret=) or, kept out of access logs, in an
        # {"type": "auth", "secret": ...} message (what the pages do).
        secret = websocket.query_params.get("secret")
        seat = live.seat_of(secret) if secret else None
        if secret and seat is None:
            await websocket.send_text(
                json.dumps({"type": "error", "error": "wrong seat secret for this game"})
            )
            secret = None
        conn = hub.join(game_id, websocket, seat)
        session: dict[str, str | None] = {"secret": secret}
        try:
            await conn.send(json.dumps({"type": "hello", "you": seat}))
            await service.publish(live)  # presence changed: everyone gets the state
            while True:
                raw = await websocket.receive_text()
                reply = await handle_ws(service, live, conn, session, raw)
                if reply is not None:
                    await conn.send(json.dumps(reply))
                    if reply["type"] == "hello":
                        await service.publish(live)
        except WebSocketDisconnect:
            pass
        except Exception:  # a binary frame, a closed transport...: drop this connection only
            log.debug("websocket closed on error", exc_info=True)
        finally:
            hub.leave(game_id, websocket)
            if not service.closed:
                try:
                    await service.publish(live)
                except Exception:
                    log.debug("publish after leave failed", exc_info=True)

    async def handle_ws(
        service: GameService, live: LiveGame, conn: Connection, session: dict[str, str | None], raw: str
    ) -> dict[str, Any] | None:
        if len(raw) > MAX_BODY:
            return {"type": "error", "error": f"message too large (over {MAX_BODY} bytes)"}
        try:
            data = json.loads(raw)
        except ValueError as exc:
            return {"type": "error", "error": f"malformed JSON: {exc}"}
        if not isinstance(data, dict):
            return {"type": "error", "error": "a message must be a JSON object"}
        kind = data.get("type")
        ref = data.get("ref")
        try:
            if kind == "ping":
                return {"type": "pong", "ref": ref}
            if kind == "auth":
                secret = data.get("secret")
                seat = live.seat_of(secret) if isinstance(secret, str) else None
                if seat is None:
                    return {"type": "error", "error": "wrong seat secret for this game", "status": 403,
                            "ref": ref}
                session["secret"] = secret
                conn.seat = seat
                return {"type": "hello", "you": seat, "ref": ref}
            if kind == "move":
                await service.play(
                    live.row.id, data.get("secret", session["secret"]), data.get("move"), data.get("ply")
                )
                return {"type": "ack", "ref": ref}
            return {"type": "error", "error": f"unknown message type {kind!r}", "ref": ref}
        except ApiError as exc:
            return {"type": "error", "error": exc.message, "status": exc.status, "ref": ref}

    return app
