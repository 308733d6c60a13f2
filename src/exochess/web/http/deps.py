"""What the routes share, as FastAPI dependencies: the game service, the game reports, the
lobby, the chat and the site's settings.

The dependencies are ``async def`` although they only read ``app.state``: FastAPI runs a plain
``def`` dependency in its worker-thread pool, a thread hop (and a GIL hand-over) for every
request, which under a flood of cheap requests cost more than the request itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, cast

from fastapi import Depends
from starlette.requests import HTTPConnection

from exochess.web.game.reports import Reports
from exochess.web.game.service import GameService
from exochess.web.limits import RateLimits
from exochess.web.social.chat import Chat
from exochess.web.social.lobby import Lobby


@dataclass(frozen=True)
class SiteSettings:
    """Fixed when the app is built."""

    has_engine: bool
    glyphs: dict[str, dict[str, str]]
    """SVG markup of every piece of every game, for the pages' boards."""
    tiny_clocks: bool = False
    """Accept any minutes with two decimals as a time control (the test setting
    ``EXOCHESS_TEST_TINY_CLOCKS``)."""


async def get_service(conn: HTTPConnection) -> GameService:
    """The running game service (made by the app's lifespan)."""
    return cast(GameService, conn.app.state.service)


async def get_reports(conn: HTTPConnection) -> Reports:
    """The game reports (made by the app's lifespan)."""
    return cast(Reports, conn.app.state.reports)


async def get_lobby(conn: HTTPConnection) -> Lobby:
    return cast(Lobby, conn.app.state.lobby)


async def get_chat(conn: HTTPConnection) -> Chat:
    return cast(Chat, conn.app.state.chat)


async def get_rate_limits(conn: HTTPConnection) -> RateLimits:
    """The site's one rate limiter (made with the app)."""
    return cast(RateLimits, conn.app.state.rate_limits)


def site_settings(conn: HTTPConnection) -> SiteSettings:
    """The site's settings (for code outside a route, such as the templates)."""
    return cast(SiteSettings, conn.app.state.settings)


async def get_settings(conn: HTTPConnection) -> SiteSettings:
    return site_settings(conn)


Service = Annotated[GameService, Depends(get_service)]
Settings = Annotated[SiteSettings, Depends(get_settings)]
LobbyDep = Annotated[Lobby, Depends(get_lobby)]
ChatDep = Annotated[Chat, Depends(get_chat)]
LimitsDep = Annotated[RateLimits, Depends(get_rate_limits)]
ReportsDep = Annotated[Reports, Depends(get_reports)]
