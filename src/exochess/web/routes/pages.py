"""The HTML pages, rendered with Jinja2 in the request's language; the scripts they load talk
to the JSON API."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup, escape

from exochess.engine.levels import level_elo
from exochess.errors import UnknownVariantError
from exochess.lessons import course_path, load_course
from exochess.rulesdoc import page_language, render_html
from exochess.svg import board as board_svg
from exochess.variant import Variant
from exochess.variants import all_variants, default_variant, find_variant
from exochess.variants.interweave.rules import RESERVE_TYPES
from exochess.web.accounts.sessions import current_user
from exochess.web.game.analysis import analysis_board
from exochess.web.game.newgames import MAX_LEVEL
from exochess.web.game.pgnimport import MAX_PGN_BYTES
from exochess.web.game.positions import variant_json
from exochess.web.game.timecontrol import (
    CORRESPONDENCE_DAYS,
    INCREMENT_CHOICES,
    MINUTE_CHOICES,
    REALTIME_PRESETS,
)
from exochess.web.http.deps import Service
from exochess.web.http.i18n import COOKIE, COOKIE_MAX_AGE, LANGUAGES, N_, request_language, translations
from exochess.web.http.templating import render, translated_variant
from exochess.web.puzzles.catalogue import daily_puzzles

router = APIRouter(default_response_class=HTMLResponse)


def tr(request: Request, message: str) -> str:
    """``message`` in the request's language (for titles made here rather than in templates)."""
    return translations(request_language(request)).gettext(message)


def learnable() -> list[str]:
    """The games that have a course (docs/lessons.md)."""
    return [v.name for v in all_variants() if course_path(v).is_file()]


@router.get("/")
async def home(request: Request) -> HTMLResponse:
    return render(
        request, "home.html", title="exochess", learnable=learnable(), daily_puzzles=daily_puzzles()
    )


_HEADING = re.compile(r'<h([23]) id="([^"]+)">(.*?)</h\1>')


def with_stage_links(variant: Variant, html: str, lang: str, label: str) -> str:
    """The rules page ``html`` with, after each section a lesson stage teaches, ``label`` and a
    link to that stage (its title in ``lang``).  Stages name the English page's heading ids; a translated
    page has the same sections in the same order, so headings are matched by position."""
    course = load_course(variant)
    if course is None:
        return html
    prefix = f"{variant.name}-"  # the page's ids carry the game's name (several pages, one site)
    english = [m.group(2).removeprefix(prefix) for m in _HEADING.finditer(render_html(variant, "en"))]
    here = [m.group(2) for m in _HEADING.finditer(html)]
    if len(english) != len(here):
        here = [prefix + h for h in english]  # a page with other sections: only matching ids are linked
    stages: dict[str, list[tuple[str, str]]] = {}
    for stage in course.stages:
        if stage.rules_section in english:
            local = here[english.index(stage.rules_section)]
            stages.setdefault(local, []).append((stage.id, stage.title.get(lang)))

    def add(m: re.Match[str]) -> str:
        links = stages.get(m.group(2))
        if not links:
            return m.group(0)
        items = ", ".join(
            f'<a href="/learn/{variant.name}/{sid}">{escape(title)}</a>' for sid, title in links
        )
        return f'{m.group(0)}\n<p class="learn-link">{escape(label)} {items}</p>'

    return _HEADING.sub(add, html)


@router.get("/rules/{variant}")
async def rules(request: Request, variant: str) -> HTMLResponse:
    try:
        v = find_variant(variant)
    except UnknownVariantError as exc:
        raise HTTPException(404, N_("There is no game of that name.")) from exc
    lang = request_language(request)
    shown = page_language(v, lang)
    # the rules page is HTML we render ourselves from the game's own rules text
    body = Markup(with_stage_links(v, render_html(v, shown), lang, tr(request, "Learn it on the board:")))
    return render(
        request,
        "rules.html",
        title=tr(request, "%(game)s rules") % {"game": v.title},
        variant=translated_variant(variant_json(v), lang),
        body=body,
        rules_lang=shown,
        has_lessons=course_path(v).is_file(),
    )


@router.get("/new")
async def new_game(request: Request, variant: str = "", fen: str = "", opponent: str = "") -> HTMLResponse:
    return render(
        request,
        "new.html",
        title=tr(request, "New game"),
        max_level=MAX_LEVEL,
        selected=variant,
        level_elos={v.name: {n: level_elo(n, v) for n in range(1, MAX_LEVEL + 1)} for v in all_variants()},
        fen=fen,
        opponent="friend" if opponent == "friend" else "computer",
        time_presets=REALTIME_PRESETS,
        time_minutes=MINUTE_CHOICES,
        time_increments=INCREMENT_CHOICES,
        time_days=CORRESPONDENCE_DAYS,
    )


@router.get("/game/{game_id}")
async def game_page(request: Request, service: Service, game_id: str) -> HTMLResponse:
    live = await service.get(game_id)  # an unknown id becomes the 404 page (see errors.py)
    user = current_user(request)
    # the seat the signed-in account holds: the page plays it without a secret in this browser
    account_seat = live.seat_of(None, user.id) if user is not None else None
    state = service.reader.state(live)
    state["variant"] = translated_variant(state["variant"], request_language(request))
    title = tr(request, "%(game)s game") % {"game": live.board.variant.title}
    return render(request, "game.html", title=title, game_id=game_id, state=state, account_seat=account_seat)


@router.get("/games")
async def games_page(request: Request) -> HTMLResponse:
    return render(request, "games.html", title=tr(request, "Games"))


@router.get("/analysis")
async def analysis_page(request: Request, variant: str | None = None, fen: str = "") -> HTMLResponse:
    # the line itself (?moves=...) is read and replayed by the page's script, like any move
    return render(
        request,
        "analysis.html",
        title=tr(request, "Analysis board"),
        selected=default_variant().name if variant is None else variant,
        fen=fen,
    )


EXTRA_STATE: dict[str, dict[str, object]] = {"interweave": {"ep": True, "reserves": RESERVE_TYPES}}
"""The board editor's controls for a game's extra FEN fields (docs/formats.md): Interweave's
en-passant field and its six reserve counts (White's, then Black's, of these piece types)."""


@router.get("/editor")
async def editor_default() -> RedirectResponse:
    return RedirectResponse(f"/editor/{default_variant().name}", status_code=307)


@router.get("/editor/{variant}")
async def editor_page(request: Request, variant: str, fen: str = "") -> HTMLResponse:
    """The board editor: any position of ``variant`` (``?fen=`` the shared one)."""
    try:
        v = find_variant(variant)
    except UnknownVariantError as exc:
        raise HTTPException(404, N_("There is no game of that name.")) from exc
    return render(
        request,
        "editor.html",
        title=tr(request, "Board editor"),
        selected=v.name,
        fen=fen[:MAX_DIAGRAM_FEN],
        extra_state=EXTRA_STATE.get(v.name),
    )


@router.get("/import")
async def import_page(request: Request) -> HTMLResponse:
    """PGN import: paste or upload a game, open it on the analysis board or keep it."""
    return render(request, "import.html", title=tr(request, "Import PGN"), max_pgn=MAX_PGN_BYTES)


MAX_DIAGRAM_FEN = 1000
"""Longest FEN a diagram is drawn from (a 12x12 FEN is far shorter)."""


@router.get("/analysis/diagram.svg")
async def diagram(variant: str | None = None, fen: str = "", flipped: bool = False) -> Response:
    """The position ``fen`` as the library's SVG diagram, to download (bad input: 400 and why)."""
    if len(fen) > MAX_DIAGRAM_FEN:
        raise HTTPException(400, f"FEN too long (at most {MAX_DIAGRAM_FEN} characters)")
    # an unknown game or a bad FEN: InvalidRequest (400)
    board = analysis_board(default_variant().name if variant is None else variant, fen, [])
    text = board_svg(board, orientation=not flipped)
    return Response(
        text,
        media_type="image/svg+xml",
        headers={
            "Content-Disposition": f'attachment; filename="exochess-{board.variant.name}.svg"',
        },
    )


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
