"""Seat secrets stored in plain by releases before 0.2 become their digests.

Each start of 0.2.0 did this (``Storage.hash_plain_secrets``); as a revision it runs once.  A
plain token from ``secrets.token_urlsafe`` never contains ``:``, so ``sha256:`` tells a digest.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from exochess.web.storage.store import SECRET_PREFIX, stored_secret

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

GAMES = sa.table(
    "games",
    sa.column("id", sa.String),
    sa.column("white_secret", sa.String),
    sa.column("black_secret", sa.String),
)


def upgrade() -> None:
    conn = op.get_bind()
    plain = sa.or_(
        GAMES.c.white_secret.not_like(SECRET_PREFIX + "%"), GAMES.c.black_secret.not_like(SECRET_PREFIX + "%")
    )
    rows = conn.execute(sa.select(GAMES.c.id, GAMES.c.white_secret, GAMES.c.black_secret).where(plain)).all()
    for game_id, white, black in rows:
        conn.execute(
            sa.update(GAMES)
            .where(GAMES.c.id == game_id)
            .values(white_secret=stored_secret(white), black_secret=stored_secret(black))
        )


def downgrade() -> None:
    """Digests cannot be turned back into secrets: nothing to undo."""
