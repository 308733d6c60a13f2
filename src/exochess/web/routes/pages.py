"""The HTML pages, rendered with Jinja2; the scripts they load talk to the JSON API."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from exochess.errors import UnknownVariantError
from exochess.rulesdoc import render_html
from exochess.svg import board as board_svg
from exochess.variants import find_variant
from exochess.web.deps import Service
from exochess.web.positions import variant_json
from exochess.web.service import MAX_LEVEL, analysis_board
from exochess.web.sessions import current_user
from exochess.web.templating import render
from exochess.web.timecontrol import (
    CORRESPONDENCE_DAYS,
    INCREMENT_CHOICES,
    MINUTE_CHOICES,
    REALTIME_PRESETS,
)

router = APIRouter(default_response_class=HTMLResponse)


@router.get("/")
async def home(request: Request) -> HTMLResponse:
    return render(request, "home.html", title="exochess")


@router.get("/rules/{variant}")
async def rules(request: Request, variant: str) -> HTMLResponse:
    try:
        v = find_variant(variant)
    except UnknownVariantError as exc:
        raise HTTPException(404, str(exc)) from exc
    # the rules page is HTML we render ourselves from the game's own rules text
    body = Markup(render_html(v))
    return render(request, "rules.html", title=f"{v.title} rules", variant=variant_json(v), body=body)


@router.get("/new")
async def new_game(request: Request, variant: str = "", fen: str = "") -> HTMLResponse:
    return render(
        request, "new.html", title="New game", max_level=MAX_LEVEL, selected=variant, fen=fen,
        time_presets=REALTIME_PRESETS, time_minutes=MINUTE_CHOICES, time_increments=INCREMENT_CHOICES,
        time_days=CORRESPONDENCE_DAYS,
    )


@router.get("/game/{game_id}")
async def game_page(request: Request, service: Service, game_id: str) -> HTMLResponse:
    live = await service.get(game_id)  # an unknown id becomes the 404 page (see errors.py)
    user = current_user(request)
    # the seat the signed-in account holds: the page plays it without a secret in this browser
    account_seat = live.seat_of(None, user.id) if user is not None else None
    return render(request, "game.html", title=f"{live.board.variant.title} game", game_id=game_id,
                  state=service.state(live), account_seat=account_seat)


@router.get("/games")
async def games_page(request: Request) -> HTMLResponse:
    return render(request, "games.html", title="Games")


@router.get("/analysis")
async def analysis_page(request: Request, variant: str = "fugue", fen: str = "") -> HTMLResponse:
    # the line itself (?moves=...) is read and replayed by the page's script, like any move
    return render(request, "analysis.html", title="Analysis board", selected=variant, fen=fen)


MAX_DIAGRAM_FEN = 1000
"""Longest FEN a diagram is drawn from (a 12x12 FEN is far shorter)."""


@router.get("/analysis/diagram.svg")
async def diagram(variant: str = "fugue", fen: str = "", flipped: bool = False) -> Response:
    """The position ``fen`` as the library's SVG diagram, to download (bad input: 400 and why)."""
    if len(fen) > MAX_DIAGRAM_FEN:
        raise HTTPException(400, f"FEN too long (at most {MAX_DIAGRAM_FEN} characters)")
    board = analysis_board(variant, fen, [])  # an unknown game or a bad FEN: InvalidRequest (400)
    text = board_svg(board, orientation=not flipped)
    return Response(text, media_type="image/svg+xml", headers={
        "Content-Disposition": f'attachment; filename="exochess-{board.variant.name}.svg"',
    })
