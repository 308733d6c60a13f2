"""The app factory: the routers of :mod:`exochess.web.routes`, the error handlers, the lifespan."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.staticfiles import StaticFiles
from limits import RateLimitItem

from exochess.variants import all_variants
from exochess.web.accounts import Accounts
from exochess.web.bodylimit import BodyLimitMiddleware
from exochess.web.chat import Chat
from exochess.web.deps import SiteSettings
from exochess.web.enginepool import EnginePool
from exochess.web.errors import install_error_handlers
from exochess.web.hub import Hub
from exochess.web.lobby import Lobby
from exochess.web.loginguard import LoginGuard
from exochess.web.positions import glyphs
from exochess.web.ratelimit import RateLimitMiddleware, rate_limits_from_env
from exochess.web.routes import accounts, api, pages, ws
from exochess.web.routes import lobby as lobby_routes
from exochess.web.security import RequestGuardMiddleware, SecurityHeadersMiddleware
from exochess.web.service import GameService
from exochess.web.sessions import SessionMiddleware, Sessions
from exochess.web.storage import Storage

HERE = Path(__file__).parent
MAX_BODY = 16 * 1024
"""Largest request body accepted (bytes)."""
DEFAULT_DB = "sqlite:///exochess.sqlite"


def database_url() -> str:
    """The database to use when none is given: ``$EXOCHESS_DATABASE_URL`` or ./exochess.sqlite."""
    return os.environ.get("EXOCHESS_DATABASE_URL", DEFAULT_DB)


def create_app(
    database: str | None = None, *, engine_workers: int = 2, use_engine_pool: bool = True,
    rate_limits: Mapping[str, RateLimitItem] | None = None,
) -> FastAPI:
    """Build the site.  ``database`` is an SQLAlchemy URL (default: env or ./exochess.sqlite);
    ``rate_limits`` per client address (default: ``$EXOCHESS_RATE_LIMITS``, see ``ratelimit.py``)."""
    url = database or database_url()
    limits = rate_limits_from_env() if rate_limits is None else rate_limits

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        storage = Storage(url)
        pool = EnginePool(engine_workers) if use_engine_pool else None
        service = GameService(storage, pool, Hub())
        app.state.service = service
        app.state.accounts = Accounts(storage.engine)
        app.state.sessions = Sessions(storage.engine)
        app.state.login_guard = LoginGuard()
        app.state.lobby = lobby = Lobby(service)
        app.state.chat = Chat(service)
        await lobby.start()
        if pool is not None:
            app.state.warm_task = asyncio.create_task(pool.warm())
        await service.resume_engine_games()
        await service.watch_clocks()
        try:
            yield
        finally:
            lobby.close()
            service.close()
            if pool is not None:
                pool.shutdown()
            storage.close()

    app = FastAPI(title="exochess", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.settings = SiteSettings(
        has_engine=use_engine_pool, glyphs={v.name: glyphs(v) for v in all_variants()}
    )
    # Starlette runs the last added outermost: headers on every answer, then the rate limits,
    # the body limit, and the checks of state-changing requests (which read the bounded body).
    app.add_middleware(GZipMiddleware, minimum_size=2048)
    app.add_middleware(SessionMiddleware)  # after the guard: a refused request reads no session
    app.add_middleware(RequestGuardMiddleware)
    app.add_middleware(BodyLimitMiddleware, max_body=MAX_BODY)
    app.add_middleware(RateLimitMiddleware, limits=limits)
    app.add_middleware(SecurityHeadersMiddleware)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.include_router(pages.router)
    app.include_router(api.router)
    app.include_router(accounts.router)
    app.include_router(ws.router)
    app.include_router(lobby_routes.router)
    install_error_handlers(app)
    return app
