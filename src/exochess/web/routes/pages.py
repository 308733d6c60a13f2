"""The HTML pages, rendered with Jinja2; the scripts they load talk to the JSON API."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from exochess.errors import UnknownVariantError
from exochess.rulesdoc import render_html
from exochess.variants import find_variant
from exochess.web.deps import Service
from exochess.web.positions import variant_json
from exochess.web.service import MAX_LEVEL
from exochess.web.sessions import current_user
from exochess.web.templating import render

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
    return render(request, "new.html", title="New game", max_level=MAX_LEVEL, selected=variant, fen=fen)


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
    return render(request, "analysis.html", title="Analysis board", selected=variant, fen=fen)
