"""The Jinja2 templates and what every page gets: the games (for the menu), the piece glyphs,
whether the engine runs, and the request's language with its translations.  Shared by the page
routes and the error handlers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from exochess.variants import all_variants
from exochess.web.accounts.sessions import current_user
from exochess.web.game.positions import variant_json
from exochess.web.http.deps import site_settings
from exochess.web.http.i18n import LANGUAGES, N_, js_messages, request_language, translations


# Texts in templates are written ``{{ _("...") }}`` (and ``ngettext``); these callables look up
# the page's own language (the ``lang`` of the render context), so one environment serves all
# languages at once.
@jinja2.pass_context
def _gettext(context: jinja2.runtime.Context, message: str) -> str:
    return translations(context.get("lang", "en")).gettext(message)


@jinja2.pass_context
def _ngettext(context: jinja2.runtime.Context, singular: str, plural: str, n: int) -> str:
    return translations(context.get("lang", "en")).ngettext(singular, plural, n)


_environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent.parent / "templates"),
    autoescape=True,
    extensions=["jinja2.ext.i18n"],
)
_environment.install_gettext_callables(  # type: ignore[attr-defined]
    gettext=_gettext, ngettext=_ngettext, newstyle=True
)
templates = Jinja2Templates(env=_environment)


def translated_variant(v: dict[str, Any], lang: str) -> dict[str, Any]:
    """A game's page data with its words (description, note, piece names and legend) in ``lang``; the
    English texts are the message ids (extracted from the registry, see babel.cfg)."""
    tr = translations(lang).gettext
    out = dict(v)
    for key in ("description", "starting_position_note"):
        if out.get(key):
            out[key] = tr(out[key])
    out["piece_names"] = {letter: tr(name) for letter, name in v["piece_names"].items()}
    # the legend beside the board: each piece's name and what it does
    out["pieces"] = [
        {**p, "name": tr(p["name"]), "description": tr(p["description"]) if p["description"] else ""}
        for p in v.get("pieces", [])
    ]
    return out


def render(request: Request, name: str, status_code: int = 200, **ctx: Any) -> HTMLResponse:
    """Render the page ``name`` in the request's language with the common context (the
    caller's ``ctx`` wins)."""
    settings = site_settings(request)
    lang = request_language(request)
    ctx.setdefault("lang", lang)
    ctx.setdefault("languages", LANGUAGES)
    ctx.setdefault("js_messages", js_messages(lang))
    ctx.setdefault("variants", [translated_variant(variant_json(v), lang) for v in all_variants()])
    ctx.setdefault("glyphs", settings.glyphs)
    ctx.setdefault("has_engine", settings.has_engine)
    ctx.setdefault("user", current_user(request))
    response = templates.TemplateResponse(request, name, ctx, status_code=status_code)
    response.headers["Content-Language"] = lang
    # the same URL answers in the language of the cookie or of Accept-Language
    response.headers["Vary"] = "Accept-Language, Cookie"
    return response


def error_page(request: Request, status: int, message: str) -> HTMLResponse:
    """The HTML error page (a missing game, variant or URL), with the usual menu; ``message``
    is an English message id, translated here."""
    lang = request_language(request)
    tr = translations(lang).gettext
    return render(request, "error.html", status, title=tr(N_("Not found")), message=tr(message))
