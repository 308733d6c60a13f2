"""Alembic's environment for exochess: the migrations run on the connection
:func:`exochess.web.storage.migrate.upgrade` hands over (inside its transaction), or on the
``sqlalchemy.url`` of the configuration when the ``alembic`` command runs them."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from exochess.web.storage.store import metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection, target_metadata=metadata, render_as_batch=connection.dialect.name == "sqlite"
    )
    with context.begin_transaction():
        context.run_migrations()


given = context.config.attributes.get("connection")
if isinstance(given, Connection):
    _run(given)
else:
    engine = create_engine(context.config.get_main_option("sqlalchemy.url") or "sqlite:///exochess.sqlite")
    with engine.begin() as conn:
        _run(conn)
    engine.dispose()
