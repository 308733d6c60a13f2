"""The site's routers: HTML pages, the JSON API and the game websocket."""

from __future__ import annotations

from exochess.web.routes import api, pages, ws

__all__ = ["api", "pages", "ws"]
