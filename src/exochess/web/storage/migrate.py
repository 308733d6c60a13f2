"""The schema's history as Alembic migrations (``migrations/versions/``), applied on start.

:func:`upgrade` brings a database to the newest revision; :class:`~exochess.web.storage.store.
Storage` calls it when it opens a database, under PostgreSQL's advisory lock (servers started
together upgrade one at a time), so ``exochess serve``, ``exochess worker`` and
``exochess db upgrade`` all leave the database at the code's schema.  A database made by a
release before Alembic (0.2.0 and earlier) has no ``alembic_version`` table: it is upgraded
from the start, and the baseline revision adapts to the tables it finds.

The migrations ship inside the package (the wheel's package data), found next to this module.
"""

from __future__ import annotations

import functools
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(url: str | None = None, connection: Connection | None = None) -> Config:
    """Alembic's configuration for the packaged migrations (on ``url`` or ``connection``)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["connection"] = connection
    return config


@functools.cache
def head() -> str:
    """The newest revision of the packaged migrations."""
    found = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert found is not None
    return found


def current(connection: Connection) -> str | None:
    """The revision the database is at (None: empty, or made before Alembic)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> str | None:
    """Upgrade the database to ``revision`` (one transaction where the database allows DDL in
    one, as SQLite and PostgreSQL do); the new revision, or None when it was there already."""
    with engine.begin() as conn:
        before = current(conn)
        if revision == "head" and before == head():
            return None
        command.upgrade(alembic_config(connection=conn), revision)
        after = current(conn)
    return after if after != before else None


def upgrade_database(url: str) -> str | None:
    """Open the database at ``url`` (which upgrades it) and close it: the new revision, or None."""
    from exochess.web.storage.store import Storage  # the store imports this module

    storage = Storage(url)
    storage.close()
    return storage.upgraded_to
