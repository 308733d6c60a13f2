"""The JSON API under ``/api``.  Errors are raised, never returned: see :mod:`exochess.web.http.errors`.

A game's state is answered as the service's cached JSON text (it is the same text the
websocket broadcasts, and encoding it once per change matters with many watchers); the routes
that answer it declare :class:`~exochess.web.game.statemodel.GameState` as their response
model, so OpenAPI documents it (FastAPI does not re-validate a ``Response``).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from exochess.variants import all_variants
from exochess.web.accounts.ratings import DELETED_NAME, ratings_before
from exochess.web.accounts.sessions import current_user
from exochess.web.compute.fairshare import owner_of
from exochess.web.domain import InvalidRequest
from exochess.web.game.analysis import analysis_line, analysis_position, checked_fen
from exochess.web.game.fairplay import refuse_engine_help
from exochess.web.game.live import LiveGame, new_id
from exochess.web.game.newgames import MAX_LEVEL
from exochess.web.game.pgnexport import game_pgn
from exochess.web.game.pgnimport import check_size, import_fields, read_pgn
from exochess.web.game.positions import variant_json
from exochess.web.game.service import GameService
from exochess.web.game.statemodel import GameState
from exochess.web.game.timecontrol import NO_CLOCK, TimeControl
from exochess.web.http.deps import ChatDep, ReportsDep, Service, Settings
from exochess.web.http.disconnect import client_address, unless_disconnected
from exochess.web.http.schemas import (
    AnalyseRequest,
    CreatedGame,
    FenCheck,
    GameList,
    GameSummary,
    ImportedGame,
    ImportRequest,
    MoveRequest,
    NewGame,
    PositionRequest,
    Rematch,
    SeatAction,
    SeatLink,
    TakebackRequest,
    VariantList,
)

router = APIRouter(prefix="/api")

MAX_LISTED = 100
MAX_PREFIX = 64
"""Actions of a chain a legal-move request may name (an Interweave chain is far shorter)."""
EVALUATE_MS = 1000


def request_owner(request: Request) -> str:
    """Who the request's engine and CPU work is charged to: the account, else the address."""
    return owner_of(_uid(request), client_address(request))


def _uid(request: Request) -> int | None:
    """The signed-in account's id: it proves the seats the account holds, without a secret."""
    user = current_user(request)
    return user.id if user is not None else None


def state_reply(service: GameService, live: LiveGame) -> Response:
    """A game's state, as the cached JSON text (see the module docstring)."""
    return Response(service.reader.state_text(live), media_type="application/json")


@router.get("/variants")
async def variants(settings: Settings) -> VariantList:
    return VariantList(
        variants=[variant_json(v) for v in all_variants()], engine=settings.has_engine, max_level=MAX_LEVEL
    )


@router.post("/games", status_code=201)
async def create_game(body: NewGame, request: Request, service: Service, settings: Settings) -> CreatedGame:
    try:
        time_control = TimeControl.parse(body.time_control, any_minutes=settings.tiny_clocks)
    except ValueError as exc:
        raise InvalidRequest(str(exc)) from exc
    owner = request_owner(request)
    pool = service.pool if body.opponent == "computer" and isinstance(body.level, int) else None
    # a long game needs a place among the long moves: refused here, with Retry-After, rather
    # than left waiting for its computer's moves; its moves are charged to its owner (issue 41)
    key = await pool.reserve(owner, body.level) if pool is not None and body.level is not None else None
    try:
        live, seats, you = await service.create(
            body.variant,
            body.opponent,
            body.level,
            body.color,
            body.fen,
            time_control,
            _uid(request),
            owner=owner,
        )
    except BaseException:
        if pool is not None:
            await pool.claim(key, "", owner)
        raise
    if pool is not None:
        # before the computer's first move is asked (no await in EnginePool.claim)
        await pool.claim(key, live.row.id, owner)
    base = f"/game/{live.row.id}"
    return CreatedGame(
        id=live.row.id,
        seats={c: SeatLink(secret=s, url=f"{base}#seat={c}&secret={s}") for c, s in seats.items()},
        you=you,
        watch_url=base,
        state=service.reader.state(live),
    )


@router.get("/games")
async def list_games(service: Service, ids: str | None = None, limit: int = 30) -> GameList:
    """The most recently changed games (``limit`` at most 100), or those among ``ids``."""
    id_list = [i for i in ids.split(",") if i][:MAX_LISTED] if ids else None
    rows = await service.db(service.storage.recent_games, max(1, min(limit, MAX_LISTED)), id_list)
    games = []
    for r in rows:
        turn, deadline = service.clocks.turn_and_deadline(r)
        games.append(
            GameSummary(
                id=r.id,
                variant=r.variant,
                white=r.white,
                black=r.black,
                level=r.level,
                ply=r.ply,
                status=r.status,
                result=r.result,
                reason=r.reason,
                time_control=r.time_control or NO_CLOCK.text,
                turn=turn,
                deadline=deadline,
                white_name=r.white_name,
                black_name=r.black_name,
                updated=r.updated.isoformat() + "Z",
            )
        )
    return GameList(games=games)


@router.get("/games/{game_id}", response_model=GameState)
async def game_state(game_id: str, service: Service) -> Response:
    return state_reply(service, await service.get(game_id))


@router.post("/games/{game_id}/moves", response_model=GameState)
async def play(game_id: str, body: MoveRequest, request: Request, service: Service) -> Response:
    return state_reply(
        service, await service.play(game_id, body.secret, body.move, body.ply, body.lag_ms, _uid(request))
    )


@router.post("/games/{game_id}/resign", response_model=GameState)
async def resign(game_id: str, body: SeatAction, request: Request, service: Service) -> Response:
    live = await service.resign(game_id, body.secret, _uid(request))
    return state_reply(service, live)


@router.post("/games/{game_id}/berserk", response_model=GameState)
async def berserk(game_id: str, body: SeatAction, request: Request, service: Service) -> Response:
    """Berserk: half your time and no increment, for an arena's bonus point if you win (an arena
    tournament's game, before your first move)."""
    return state_reply(service, await service.berserk(game_id, body.secret, _uid(request)))


@router.post("/games/{game_id}/abort", response_model=GameState)
async def abort(game_id: str, body: SeatAction, service: Service) -> Response:
    """Call the game off (no result): either player, until both sides have moved."""
    live = await service.abort(game_id, body.secret)
    return state_reply(service, live)


@router.post("/games/{game_id}/claim", response_model=GameState)
async def claim(game_id: str, body: SeatAction, service: Service) -> Response:
    """Claim the win of a real-time game whose opponent has been gone past the absence limit."""
    return state_reply(service, await service.claim(game_id, body.secret))


@router.post("/games/{game_id}/takeback", response_model=GameState)
async def takeback(game_id: str, body: TakebackRequest, request: Request, service: Service) -> Response:
    return state_reply(service, await service.takeback(game_id, body.secret, body.action, _uid(request)))


@router.post("/games/{game_id}/rematch")
async def rematch(game_id: str, body: SeatAction, request: Request, service: Service) -> Rematch:
    new, color, secret = await service.rematch(game_id, body.secret, _uid(request), request_owner(request))
    url = f"/game/{new.row.id}" + (f"#seat={color}&secret={secret}" if secret else "")
    return Rematch(id=new.row.id, color=color, secret=secret, url=url)


@router.get("/games/{game_id}/pgn")
async def pgn(
    game_id: str, service: Service, chat: ChatDep, with_chat: Annotated[bool, Query(alias="chat")] = False
) -> Response:
    """The game as PGN; with ``?chat=1``, its chat lines as comments."""
    live = await service.get(game_id)
    lines = await chat.all_lines(game_id) if with_chat else None
    # a long game's PGN is CPU work: off the loop, on a copy (the live board may move meanwhile)
    names = {color: info["name"] or DELETED_NAME for color, info in live.players.items() if info}
    elos = await service.db(ratings_before, service.storage.engine, live.row)
    text = await service.cpu_games.run(
        "writing the PGN", game_pgn, live.row, live.board.copy(), names, lines, elos
    )
    return Response(
        text,
        media_type="application/x-chess-pgn",
        headers={"Content-Disposition": f'attachment; filename="exochess-{game_id}.pgn"'},
    )


@router.post("/games/{game_id}/evaluate")
async def evaluate(
    game_id: str, request: Request, service: Service, body: SeatAction | None = None
) -> dict[str, Any]:
    """The engine's view of the game: for its players (``secret``) while a game against the
    computer lasts, then for anyone; never while a game between people is on (403)."""
    live = await service.get(game_id)
    refuse_engine_help(live.row)
    secret = body.secret if body is not None else None
    work = service.computer.evaluate_game(live, secret, _uid(request), EVALUATE_MS, client_address(request))
    return await unless_disconnected(request, work)


@router.post("/games/{game_id}/report")
@router.post("/game/{game_id}/report", include_in_schema=False)
async def request_report(game_id: str, request: Request, reports: ReportsDep) -> dict[str, Any]:
    """Ask for the computer's report of a finished game (anyone may; it is queued once and
    shared): its status as ``GET`` answers it.  403 while a game between people is on, 409 for
    a game against the computer still played or one without moves (docs/analysis.md)."""
    return await reports.request(game_id, request_owner(request))


@router.get("/games/{game_id}/report")
@router.get("/game/{game_id}/report", include_in_schema=False)
async def game_report(game_id: str, reports: ReportsDep) -> dict[str, Any]:
    """The game's report: ``status`` (``none``, ``queued``, ``running``, ``done``, ``failed``),
    ``done`` of ``total`` positions searched, and once done ``report``: White's win percentage
    at each position, each move's mark, loss, accuracy and the engine's better move and line,
    each player's accuracy and counts (docs/analysis.md)."""
    return await reports.view(game_id)


@router.get("/games/{game_id}/legal")
async def legal_after(
    game_id: str, service: Service, ply: int, prefix: Annotated[list[str] | None, Query()] = None
) -> dict[str, Any]:
    """The legal-move tree after the first actions ``prefix`` of the move at ``ply``: what a
    board asks for when the state's tree was cut (a node with ``"next": null``)."""
    live = await service.get(game_id)
    prefix = (prefix or [])[:MAX_PREFIX]
    view = await service.view.legal_after(live, ply, prefix)
    return {"ply": ply, "prefix": prefix, "legal": view["actions"], "legal_count": view["count"]}


@router.post("/position")
async def position(body: PositionRequest, request: Request, service: Service) -> Response:
    """The analysis board's position; with ``prefix``, ``legal`` is the tree after those actions.

    Built (and encoded) in a worker process: a client may send any position.
    """
    text = await service.cpu_free.run(
        "listing its legal moves",
        analysis_position,
        body.variant,
        body.fen,
        body.moves,
        body.prefix[:MAX_PREFIX],
        owner=request_owner(request),
    )
    return Response(text, media_type="application/json")


@router.post("/editor/check")
async def editor_check(body: FenCheck, request: Request, service: Service) -> dict[str, Any]:
    """The board editor's position: the library's own FEN of it and the side to move, or 400 with
    the library's reason (a missing royal is no error: see RULES.md, a diagram may lack one)."""
    result: dict[str, Any] = await service.cpu_free.run(
        "reading the FEN", checked_fen, body.variant, body.fen, owner=request_owner(request)
    )
    return result


@router.post("/import/read")
async def import_read(body: ImportRequest, request: Request, service: Service) -> dict[str, Any]:
    """A PGN's first game, read and checked (to open on the analysis board); 400 with the line
    and the reason for a bad one, 413 for one too long."""
    check_size(body.pgn)  # before it is sent to a worker
    result: dict[str, Any] = await service.cpu_free.run(
        "reading the PGN", read_pgn, body.pgn, owner=request_owner(request)
    )
    return result


@router.post("/import", status_code=201)
async def import_game(body: ImportRequest, request: Request, service: Service) -> ImportedGame:
    """Store a PGN's first game as an imported game: finished with its result, unrated, held
    by nobody, shown like any finished game (``imported`` in its state)."""
    check_size(body.pgn)
    game = await service.cpu_free.run("reading the PGN", read_pgn, body.pgn, owner=request_owner(request))
    fields = import_fields(game, new_id())
    await service.db(functools.partial(service.storage.import_game, **fields))
    return ImportedGame(id=fields["id"], url=f"/game/{fields['id']}", moves=len(fields["texts"]))


@router.post("/analyse")
async def analyse(body: AnalyseRequest, request: Request, service: Service) -> dict[str, Any]:
    """Analyse a free position; refused with 429/503 and Retry-After when the engine is saturated.

    The replay and the game-over check (which lists the legal moves) run in a worker process.
    """
    variant, start_fen, texts = await service.cpu_free.run(
        "replaying the moves", analysis_line, body.variant, body.fen, body.moves, owner=request_owner(request)
    )
    work = service.computer.evaluate(
        variant, start_fen, texts, body.movetime_ms, client_address(request), request_owner(request)
    )
    return await unless_disconnected(request, work)


@router.get("/engine")
async def engine_status(service: Service) -> dict[str, Any]:
    """The engine pool's load and counters (``{"enabled": false}`` without an engine)."""
    if service.pool is None:
        return {"enabled": False}
    # Redis mode: the workers and jobs as the queue holds them (this server's own counters
    # know nothing of the workers)
    live_stats = getattr(service.pool, "live_stats", None)
    stats = await live_stats() if live_stats is not None else service.pool.stats()
    return {"enabled": True, **dataclasses.asdict(stats)}
