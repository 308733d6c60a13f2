"""``exochess db upgrade`` (bring the database to the code's schema) and ``exochess db current``
(the revision it is at).  ``exochess serve`` upgrades on start too; this runs it on its own, for
example before starting several servers, or to see what an upgrade would find."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    """Add the ``db`` subcommand (called by :mod:`exochess.cli.main`)."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "db", help="the database's schema: upgrade it, or show its revision", description=__doc__
    )
    parser.add_argument(
        "action",
        choices=("upgrade", "current"),
        help="upgrade: apply the migrations it lacks; current: print its revision",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy URL (default: $EXOCHESS_DATABASE_URL or sqlite:///exochess.sqlite)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        from sqlalchemy import create_engine

        from exochess.web.settings import SettingsError, load_settings
        from exochess.web.storage.migrate import current, head, upgrade_database
    except ImportError as exc:  # pragma: no cover - depends on the install
        print(
            f"exochess db: error: the web extra is not installed ({exc}); run: pip install 'exochess[web]'",
            file=sys.stderr,
        )
        return 2
    try:
        url = load_settings(database_url=args.database_url).database_url
    except SettingsError as exc:
        print(f"exochess db: error: {exc}", file=sys.stderr)
        return 2
    try:
        if args.action == "current":
            engine = create_engine(url)
            with engine.connect() as conn:
                revision = current(conn)
            engine.dispose()
            print(f"{revision or 'none'} (newest: {head()})")
            return 0
        upgraded = upgrade_database(url)
    except Exception as exc:  # unreachable server, unreadable file...: a message, not a traceback
        print(f"exochess db: error: {url}: {exc}", file=sys.stderr)
        return 1
    print(f"upgraded to {upgraded}" if upgraded else f"already at {head()}")
    return 0
