"""Tournaments open to bots (issue 46, item 5): ``tournaments.bots_allowed``, whether bot
accounts may join the event (false for every event made before: people only, as lichess's
default).

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision: str | None = "0012"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # a plain ADD COLUMN: a batch would rebuild ``tournaments``, which other tables point at
    op.add_column(
        "tournaments", sa.Column("bots_allowed", sa.Boolean(), nullable=False, server_default=sa.false())
    )


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("bots_allowed")
