"""The HTML pages, rendered with Jinja2 in the request's language; the scripts they load talk
to the JSON API."""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from markupsafe import Markup

from exochess.errors import UnknownVariantError
from exochess.rulesdoc import page_language, render_html
from exochess.variants import find_variant
from exochess.web.deps import Service
from exochess.web.i18n import COOKIE, COOKIE_MAX_AGE, LANGUAGES, N_, request_language, translations
from exochess.web.positions import variant_json
from exochess.web.service import MAX_LEVEL
from exochess.web.templating import render, translated_variant

router = APIRouter(default_response_class=HTMLResponse)


def tr(request: Request, message: str) -> str:
    """``message`` in the request's language (for titles made here rather than in templates)."""
    return translations(request_language(request)).gettext(message)


@router.get("/")
async def home(request: Request) -> HTMLResponse:
    return render(request, "home.html", title="exochess")


@router.get("/rules/{variant}")
async def rules(request: Request, variant: str) -> HTMLResponse:
    try:
        v = find_variant(variant)
    except UnknownVariantError as exc:
        raise HTTPException(404, N_("There is no game of that name.")) from exc
    lang = request_language(request)
    shown = page_language(v, lang)
    # the rules page is HTML we render ourselves from the game's own rules text
    body = Markup(render_html(v, shown))
    return render(request, "rules.html", title=tr(request, "%(game)s rules") % {"game": v.title},
                  variant=translated_variant(variant_json(v), lang), body=body, rules_lang=shown)


@router.get("/new")
async def new_game(request: Request, variant: str = "", fen: str = "") -> HTMLResponse:
    return render(request, "new.html", title=tr(request, "New game"), max_level=MAX_LEVEL,
                  selected=variant, fen=fen)


@router.get("/game/{game_id}")
async def game_page(request: Request, service: Service, game_id: str) -> HTMLResponse:
    live = await service.get(game_id)  # an unknown id becomes the 404 page (see errors.py)
    state = service.state(live)
    state["variant"] = translated_variant(state["variant"], request_language(request))
    title = tr(request, "%(game)s game") % {"game": live.board.variant.title}
    return render(request, "game.html", title=title, game_id=game_id, state=state)


@router.get("/games")
async def games_page(request: Request) -> HTMLResponse:
    return render(request, "games.html", title=tr(request, "Games"))


@router.get("/analysis")
async def analysis_page(request: Request, variant: str = "fugue", fen: str = "") -> HTMLResponse:
    return render(request, "analysis.html", title=tr(request, "Analysis board"), selected=variant, fen=fen)


@router.get("/lang/{code}")
async def choose_language(code: str, next: str = "/") -> RedirectResponse:
    """The header's language switch: remembers the choice in a cookie and goes back to the
    page it was made on (a path of this site only, never another site's URL)."""
    if code not in LANGUAGES:
        raise HTTPException(404, N_("There is no such language on this site."))
    target = urlsplit(next)
    local = next.startswith("/") and not next.startswith("//") and not target.scheme and not target.netloc
    response = RedirectResponse(next if local and "\\" not in next else "/", status_code=303)
    response.set_cookie(COOKIE, code, max_age=COOKIE_MAX_AGE, samesite="lax", path="/")
    return response
