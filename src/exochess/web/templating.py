"""The Jinja2 templates and what every page gets: the games (for the menu), the piece glyphs,
whether the engine runs.  Shared by the page routes and the error handlers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from exochess.variants import all_variants
from exochess.web.deps import get_settings
from exochess.web.positions import variant_json
from exochess.web.sessions import current_user

_environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
    extensions=["jinja2.ext.i18n"],
)
# Texts in templates are written ``{{ _("...") }}`` (and ``ngettext``) so that they can be
# translated; until catalogues are installed they render as written.
_environment.install_null_translations(newstyle=True)  # type: ignore[attr-defined]
templates = Jinja2Templates(env=_environment)


def render(request: Request, name: str, status_code: int = 200, **ctx: Any) -> HTMLResponse:
    """Render the page ``name`` with the common context (the caller's ``ctx`` wins)."""
    settings = get_settings(request)
    ctx.setdefault("variants", [variant_json(v) for v in all_variants()])
    ctx.setdefault("glyphs", settings.glyphs)
    ctx.setdefault("has_engine", settings.has_engine)
    ctx.setdefault("user", current_user(request))
    return templates.TemplateResponse(request, name, ctx, status_code=status_code)


def error_page(request: Request, status: int, message: str) -> HTMLResponse:
    """The HTML error page (a missing game, variant or URL), with the usual menu."""
    return render(request, "error.html", status, title="Not found", message=message)
