"""``exochess serve``: run the web site with uvicorn (SQLite ./exochess.sqlite by default).

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
    parser.add_argument("--engine-workers", type=int, default=2, help="engine processes (default 2)")
    parser.add_argument("--log-level", default="info", help="uvicorn log level (default info)")


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
    except ImportError as exc:  # pragma: no cover - depends on the install
        print(f"exochess serve: error: the web extra is not installed ({exc}); "
              "run: pip install 'exochess[web]'", file=sys.stderr)
        return 2
    from uvicorn.config import LOGGING_CONFIG

    from exochess.web.ratelimit import RateLimitSettingError

    url = args.database_url or os.environ.get("EXOCHESS_DATABASE_URL") or "sqlite:///exochess.sqlite"
    try:
        app = create_app(url, engine_workers=args.engine_workers)
    except RateLimitSettingError as exc:
        print(f"exochess serve: error: {exc}", file=sys.stderr)
        return 2
    # the site's own messages ("exochess.web") go where uvicorn's go, at the same level
    log_config = {**LOGGING_CONFIG, "loggers": {
        **LOGGING_CONFIG["loggers"],
        "exochess": {"handlers": ["default"], "level": args.log_level.upper(), "propagate": False},
    }}
    print(f"exochess: serving on http://{args.host}:{args.port}/ (database {url})", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, ws_max_size=1 << 16,
                log_config=log_config)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="exochess serve", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
