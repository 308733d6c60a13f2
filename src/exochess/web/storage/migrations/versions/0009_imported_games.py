"""Imported games (issue 45): a game read from a PGN is stored like a finished game, marked
``imported`` (never rated, its seats held by nobody).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # a plain ADD COLUMN (SQLite allows it with a default): a batch would rebuild the table,
    # which SQLite refuses while other tables' foreign keys point at it
    op.add_column("games", sa.Column("imported", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("imported")
