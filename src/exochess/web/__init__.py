"""The exochess web site: FastAPI + websockets + SQLAlchemy, pages in Jinja2, plain JS modules.

Start it with ``exochess serve`` (``make run``) or build the ASGI app with
:func:`create_app`.
"""

from __future__ import annotations

from exochess.web.app import create_app

__all__ = ["create_app"]
