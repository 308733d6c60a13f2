"""What the routes share, as FastAPI dependencies: the game service and the site's settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, cast

from fastapi import Depends
from starlette.requests import HTTPConnection

from exochess.web.service import GameService


@dataclass(frozen=True)
class SiteSettings:
    """Fixed when the app is built."""

    has_engine: bool
    glyphs: dict[str, dict[str, str]]
    """SVG markup of every piece of every game, for the pages' boards."""


def get_service(conn: HTTPConnection) -> GameService:
    """The running game service (made by the app's lifespan)."""
    return cast(GameService, conn.app.state.service)


def get_settings(conn: HTTPConnection) -> SiteSettings:
    return cast(SiteSettings, conn.app.state.settings)


Service = Annotated[GameService, Depends(get_service)]
Settings = Annotated[SiteSettings, Depends(get_settings)]
