"""The HTML pages, rendered with Jinja2; the scripts they load talk to the JSON API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from exochess.errors import UnknownVariantError
from exochess.rulesdoc import render_html
from exochess.variants import all_variants, find_variant
from exochess.web.deps import Service, Settings
from exochess.web.positions import variant_json
from exochess.web.service import MAX_LEVEL

templates = Jinja2Templates(directory=str(Path(__file__).parent.parent / "templates"))

router = APIRouter(default_response_class=HTMLResponse)


def render(request: Request, settings: Settings, name: str, **ctx: Any) -> HTMLResponse:
    """A page with what every page needs: the games (for the menu) and the piece glyphs."""
    ctx.setdefault("variants", [variant_json(v) for v in all_variants()])
    ctx.setdefault("glyphs", settings.glyphs)
    ctx.setdefault("has_engine", settings.has_engine)
    return templates.TemplateResponse(request, name, ctx)


@router.get("/")
async def home(request: Request, settings: Settings) -> HTMLResponse:
    return render(request, settings, "home.html", title="exochess")


@router.get("/rules/{variant}")
async def rules(request: Request, settings: Settings, variant: str) -> HTMLResponse:
    try:
        v = find_variant(variant)
    except UnknownVariantError as exc:
        raise HTTPException(404, str(exc)) from exc
    # the rules page is HTML we render ourselves from the game's own rules text
    body = Markup(render_html(v))
    return render(
        request, settings, "rules.html", title=f"{v.title} rules", variant=variant_json(v), body=body
    )


@router.get("/new")
async def new_game(request: Request, settings: Settings, variant: str = "", fen: str = "") -> HTMLResponse:
    return render(
        request, settings, "new.html", title="New game", max_level=MAX_LEVEL, selected=variant, fen=fen
    )


@router.get("/game/{game_id}")
async def game_page(request: Request, settings: Settings, service: Service, game_id: str) -> HTMLResponse:
    live = await service.get(game_id)  # an unknown id becomes the 404 page (see errors.py)
    return render(request, settings, "game.html", title=f"{live.board.variant.title} game", game_id=game_id,
                  state=service.state(live))


@router.get("/games")
async def games_page(request: Request, settings: Settings) -> HTMLResponse:
    return render(request, settings, "games.html", title="Games")


@router.get("/analysis")
async def analysis_page(
    request: Request, settings: Settings, variant: str = "fugue", fen: str = ""
) -> HTMLResponse:
    return render(request, settings, "analysis.html", title="Analysis board", selected=variant, fen=fen)
