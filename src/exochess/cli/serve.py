"""``exochess serve``: run the web site with uvicorn (SQLite ./exochess.sqlite by default).

With ``--redis-url`` (or ``$EXOCHESS_REDIS_URL``) the server runs in Redis mode: it shares
its changes with the other server processes and leaves engine work to ``exochess worker``
processes.  One command is one process: several run as several commands on their own ports
behind the proxy (``exochess cluster`` does it on one machine).  ``--workers N`` (uvicorn's
processes sharing one port) was dropped (issue 41): its supervisor stalled about 60 s when a
worker died while starting, and each process counted the per-address limits on its own.

Registered in :mod:`exochess.cli.main` through :func:`register`; also runnable
as ``python -m exochess.cli.serve``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy URL (default: $EXOCHESS_DATABASE_URL or sqlite:///exochess.sqlite)",
    )
    parser.add_argument(
        "--engine-workers",
        type=int,
        default=None,
        help="engine processes (default: $EXOCHESS_ENGINE_WORKERS or 2)",
    )
    parser.add_argument("--log-level", default="info", help="uvicorn log level (default info)")
    parser.add_argument(
        "--log-format",
        choices=("text", "json"),
        default="text",
        help="log lines as text or as one JSON object each (default text)",
    )
    parser.add_argument(
        "--redis-url",
        default=None,
        help="Redis for many processes (default: $EXOCHESS_REDIS_URL; none: one process)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="only 1: run several servers as separate commands on their own ports "
        "behind the proxy, or with 'exochess cluster --servers N'",
    )


def register(sub: Any) -> None:
    """Add the ``serve`` subcommand (called by :mod:`exochess.cli.main`)."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "serve", help="run the web site (http://127.0.0.1:8000 by default)", description=__doc__
    )
    add_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Start uvicorn with the exochess app; returns when the server stops."""
    try:
        import uvicorn

        from exochess.web import create_app
        from exochess.web.storage.migrate import upgrade_database
    except ImportError as exc:  # pragma: no cover - depends on the install
        print(
            f"exochess serve: error: the web extra is not installed ({exc}); "
            "run: pip install 'exochess[web]'",
            file=sys.stderr,
        )
        return 2
    from exochess.web.http.logs import logging_config
    from exochess.web.http.protocols import UVICORN_PROTOCOLS
    from exochess.web.settings import SettingsError, load_settings

    try:
        # read once: the environment, the command line's options on top
        settings = load_settings(
            database_url=args.database_url, redis_url=args.redis_url, engine_workers=args.engine_workers
        )
    except SettingsError as exc:
        print(f"exochess serve: error: {exc}", file=sys.stderr)
        return 2
    url = settings.database_url
    redis = settings.redis_url
    if args.workers != 1:
        print(
            "exochess serve: error: one command runs one server process: start several on their own "
            "ports behind the proxy (docs/deploy.md), or run 'exochess cluster --servers N' on one "
            "machine",
            file=sys.stderr,
        )
        return 2
    if redis is not None:
        try:
            import arq  # noqa: F401
            import redis as _redis  # noqa: F401
        except ImportError as exc:  # pragma: no cover - depends on the install
            print(
                f"exochess serve: error: Redis mode needs the cluster extra ({exc}); "
                "run: pip install 'exochess[cluster]'",
                file=sys.stderr,
            )
            return 2
    # processes started from this one (the engine's workers) read the same settings
    os.environ["EXOCHESS_DATABASE_URL"] = url
    os.environ["EXOCHESS_ENGINE_WORKERS"] = str(settings.engine_workers)
    if redis is not None:
        os.environ["EXOCHESS_REDIS_URL"] = redis
    try:
        upgraded = upgrade_database(url)
    except Exception as exc:  # the database cannot be reached or upgraded: say so and stop
        print(f"exochess serve: error: the database {url} cannot be upgraded ({exc})", file=sys.stderr)
        return 2
    if upgraded:
        print(f"exochess: database upgraded to {upgraded}", flush=True)
    app = create_app(settings=settings)
    mode = f", Redis {redis}" if redis else ""
    print(f"exochess: serving on http://{args.host}:{args.port}/ (database {url}{mode})", flush=True)
    options: dict[str, Any] = {
        "host": args.host,
        "port": args.port,
        "log_level": args.log_level,
        "ws_max_size": 1 << 16,
        **UVICORN_PROTOCOLS,  # uvicorn's, freeing each ended connection without the collector
        "log_config": logging_config(args.log_level, args.log_format),
        # on SIGTERM: requests in flight finish (their moves are stored), websockets are closed
        # with 1012 "service restart", which the game page answers by reconnecting
        "timeout_graceful_shutdown": 10,
    }
    uvicorn.run(app, **options)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="exochess serve", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
