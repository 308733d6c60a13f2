"""The app factory: the routers of :mod:`exochess.web.routes`, the error handlers, the lifespan."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.staticfiles import StaticFiles
from limits import RateLimitItem
from starlette.middleware.gzip import DEFAULT_EXCLUDED_CONTENT_TYPES

from exochess.variants import all_variants
from exochess.web import metrics
from exochess.web.accounts.sessions import SessionMiddleware, Sessions
from exochess.web.accounts.tokens import ApiTokens
from exochess.web.accounts.users import Accounts
from exochess.web.compute.enginepool import EngineBackend, EnginePool
from exochess.web.game.deadgames import DeadGames
from exochess.web.game.pgnimport import IMPORT_PATHS, MAX_IMPORT_BODY
from exochess.web.game.positions import glyphs
from exochess.web.game.reports import Reports
from exochess.web.game.service import GameService
from exochess.web.http.bodylimit import BodyLimitMiddleware
from exochess.web.http.deps import SiteSettings
from exochess.web.http.errors import install_error_handlers
from exochess.web.http.health import router as health_router
from exochess.web.http.loginguard import LoginGuard
from exochess.web.http.logs import RequestIdMiddleware
from exochess.web.http.ratelimit import RateLimitMiddleware
from exochess.web.http.security import RequestGuardMiddleware, SecurityHeadersMiddleware
from exochess.web.limits import RateLimits
from exochess.web.live.hub import Hub
from exochess.web.puzzles.service import PuzzleService
from exochess.web.routes import accounts, analysisws, api, botapi, learn, pages, puzzles, ws
from exochess.web.routes import lobby as lobby_routes
from exochess.web.routes import tournaments as tournament_routes
from exochess.web.settings import Settings, load_settings
from exochess.web.social.challenges import DirectChallenges
from exochess.web.social.chat import Chat
from exochess.web.social.events import UserEvents
from exochess.web.social.lobby import Lobby
from exochess.web.social.schedule import parse_schedule
from exochess.web.social.tournaments import Tournaments
from exochess.web.storage.store import Storage

HERE = Path(__file__).parent
MAX_BODY = 16 * 1024
"""Largest request body accepted (bytes)."""
GZIP_LEVEL = 6
"""Compression level of HTTP answers (gzip, for clients that accept it)."""
GC_YOUNG_OBJECTS = 10_000
"""Allocations (net) between two collections of the youngest generation (Python's default 700)."""
LAG_PROBE_S = 0.1
"""Period of the event loop's lag probe (``exochess_event_loop_lag_seconds``)."""


async def probe_loop_lag() -> None:
    """Time how late a short sleep ends, forever: the event loop's delay in serving a ready
    task (busy callbacks, or the GIL held by a worker thread), in the metrics."""
    loop = asyncio.get_running_loop()
    while True:
        start = loop.time()
        await asyncio.sleep(LAG_PROBE_S)
        metrics.LOOP_LAG.observe(max(0.0, loop.time() - start - LAG_PROBE_S))


def create_app_from_env() -> FastAPI:
    """The app for an ASGI server that imports it by name (``uvicorn --factory
    exochess.web.app:create_app_from_env``): every setting from the environment."""
    return create_app()


def create_app(
    database: str | None = None,
    *,
    engine_workers: int | None = None,
    use_engine_pool: bool = True,
    rate_limits: Mapping[str, list[RateLimitItem]] | str | None = None,
    redis: str | None = None,
    settings: Settings | None = None,
) -> FastAPI:
    """Build the site from ``settings`` (default: read from the environment once, here), the
    other arguments overriding them: ``database`` an SQLAlchemy URL; ``rate_limits`` the
    rates by limit name (or a setting's text; see :mod:`exochess.web.limits`); ``redis`` a
    Redis URL for Redis mode: changes fan out to the other server processes, engine work goes
    to ``exochess worker`` processes, and the rate limits are counted in Redis."""
    base = settings if settings is not None else load_settings()
    settings = base.model_copy(
        update={
            k: v
            for k, v in {
                "database_url": database,
                "engine_workers": engine_workers,
                "redis_url": redis,
            }.items()
            if v is not None
        }
    )
    url = settings.database_url
    shared = settings.redis_url
    limits = RateLimits(settings.rate_limits if rate_limits is None else rate_limits, redis_url=shared)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # imported here: the redis and arq packages are needed in Redis mode only
        storage = Storage(url, db_threads=settings.db_threads)
        hub = Hub(per_game=settings.ws_per_game, per_address=settings.ws_per_address)
        bus = None
        pool: EngineBackend | None = None
        queue = None
        sweep = None
        queue_metrics = None
        peers = None
        if shared is not None:
            from exochess.web.game.jobs import JobQueue
            from exochess.web.game.sweep import EngineSweep
            from exochess.web.live.presence import SharedCounts
            from exochess.web.live.pubsub import RedisBus

            bus = RedisBus(shared)
            counts = SharedCounts(bus.redis, bus.origin, refresh_s=settings.presence_refresh_s)
            counts.start()
            hub.attach(bus, counts, refresh_s=settings.presence_refresh_s)
            from exochess.web.game.queuestats import QueueCollector

            # the engine queue's figures, read from Redis at each scrape (the same on every server)
            queue_metrics = QueueCollector(shared)
            metrics.add_collector(queue_metrics)
            if use_engine_pool:
                pool = queue = JobQueue(shared, limit=settings.engine_queue_limit)
                queue.announced = bus.drained
        elif use_engine_pool:
            pool = EnginePool(settings.engine_workers, hash_mb=settings.engine_hash_mb)
        service = GameService(
            storage, pool, hub, timing=settings.timing(), position_time_limit_s=settings.position_time_limit_s
        )
        app.state.service = service
        app.state.reports = reports = Reports(
            storage,
            service.db,
            service.cpu_games,
            pool,
            nodes=settings.report_nodes,
            auto=settings.report_auto,
            lease_s=settings.report_lease_s,
            shared=shared is not None,
        )
        app.state.accounts = Accounts(storage.engine)
        app.state.sessions = Sessions(storage.engine)
        app.state.login_guard = LoginGuard(limits)
        app.state.lobby = lobby = Lobby(
            service, limits, grace_s=settings.lobby_grace_s, tiny_clocks=settings.test_tiny_clocks
        )
        app.state.chat = Chat(service, limits)
        app.state.puzzles = PuzzleService(service, limits)
        app.state.tokens = ApiTokens(storage.engine)
        app.state.events = events = UserEvents(service)
        app.state.challenges = DirectChallenges(
            service, events, app.state.accounts, tiny_clocks=settings.test_tiny_clocks
        )
        await lobby.start()
        app.state.tournaments = tournaments = Tournaments(
            service,
            limits,
            parse_schedule(settings.tournament_schedule),
            tiny_clocks=settings.test_tiny_clocks,
            online=events.online,
        )
        tournaments.start()
        if settings.house_bots:
            # the computer's seats are held by the house bots' accounts (game/newgames.py); a
            # server without an engine still knows them, to decline their challenges
            await service.new_games.start_house_bots()
        app.state.dead_games = dead_games = DeadGames(service)
        dead_games.start()
        app.state.bus = bus
        if bus is not None:
            hub.on_remote = service.on_remote_change
            hub.on_presence = service.reader.remote_presence
            bus.on_message = hub.receive
            bus.on_resync = service.sync.resync_all
            bus.start()
            from exochess.web.live.peers import PeerWatch

            async def peers_changed(_what: str) -> None:
                # a peer gone may have stored changes it never announced: read them
                await service.sync.resync_all()

            peers = PeerWatch(bus.redis, bus.origin, peers_changed)
            peers.start()
        if pool is not None:
            app.state.warm_task = asyncio.create_task(pool.warm())
        await service.recovery.resume()
        reports.start()
        lag_probe = asyncio.create_task(probe_loop_lag())
        metrics.time_garbage_collection()
        thresholds = gc.get_threshold()
        # Everything made so far (modules, the app, the pools) lives as long as the server: out
        # of the collector's sight, a full collection scans only what came since, instead of
        # stopping the event loop for a pass over every imported module's objects.
        gc.collect()
        gc.freeze()
        # A server under a flood of requests allocates fast: with the default threshold (700)
        # the collector ran a full pass several times a minute, each stopping the loop for
        # tens to hundreds of ms (exochess_gc_pause_seconds).  A larger young generation makes
        # full passes rarer; a young pass stays short (it scans only the young objects).
        gc.set_threshold(GC_YOUNG_OBJECTS, *gc.get_threshold()[1:])
        if queue is not None and shared is not None:
            sweep = EngineSweep(
                shared,
                storage,
                service.recovery.resume_engine_game,
                every_s=settings.engine_sweep_s,
                after_s=settings.engine_sweep_after_s,
            )
            sweep.start()
        try:
            yield
        finally:
            lag_probe.cancel()
            gc.unfreeze()  # an app made again in this process (tests) starts from the same state
            gc.set_threshold(*thresholds)
            if sweep is not None:
                await sweep.close()
            if peers is not None:
                await peers.close()
            lobby.close()
            tournaments.close()
            events.close()
            dead_games.close()
            await reports.aclose()
            service.close()
            if pool is not None:
                pool.shutdown()
            await hub.close()
            if hub.counts is not None:
                await hub.counts.close()
            if queue is not None:
                await queue.aclose()
            if bus is not None:
                await bus.close()
            if queue_metrics is not None:
                metrics.remove_collector(queue_metrics)
                queue_metrics.close()
            await limits.close()
            storage.close()

    app = FastAPI(title="exochess", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.settings = SiteSettings(
        has_engine=use_engine_pool,
        glyphs={v.name: glyphs(v) for v in all_variants()},
        tiny_clocks=settings.test_tiny_clocks,
    )
    app.state.config = settings
    app.state.rate_limits = limits
    # Starlette runs the last added outermost: headers on every answer, then the rate limits,
    # the body limit, and the checks of state-changing requests (which read the bounded body).
    # zlib's default level, not Starlette's 9: the compression runs on the event loop, and on
    # the largest answer (the legal moves of a 45,136-chain position, 210 KB) level 9 took
    # 4.4 ms for 6.6 KB where level 6 takes 1.6 ms for 7.4 KB
    # the API's ndjson streams go uncompressed: each line is a few dozen bytes sent alone
    app.add_middleware(
        GZipMiddleware,
        minimum_size=2048,
        compresslevel=GZIP_LEVEL,
        exclude_content_types=(*DEFAULT_EXCLUDED_CONTENT_TYPES, botapi.NDJSON),
    )
    app.add_middleware(SessionMiddleware)  # after the guard: a refused request reads no session
    app.add_middleware(RequestGuardMiddleware)
    app.add_middleware(
        BodyLimitMiddleware, max_body=MAX_BODY, larger=dict.fromkeys(IMPORT_PATHS, MAX_IMPORT_BODY)
    )
    app.add_middleware(RateLimitMiddleware, limits=limits)
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(RequestIdMiddleware)  # outermost: it times and counts every answer
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.include_router(pages.router)
    app.include_router(learn.router)
    app.include_router(puzzles.router)
    app.include_router(api.router)
    app.include_router(accounts.router)
    app.include_router(ws.router)
    app.include_router(analysisws.router)
    app.include_router(lobby_routes.router)
    app.include_router(tournament_routes.router)
    app.include_router(botapi.router)
    app.include_router(health_router)
    install_error_handlers(app)
    return app
