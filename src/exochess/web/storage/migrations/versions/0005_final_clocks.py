"""The clocks at the end of a game (issue 40): the times left when a game ended without a move
(a flag, a resignation, an abort, a claim), which no move's stamp holds.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("end_white_ms", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("end_black_ms", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("end_black_ms")
        batch.drop_column("end_white_ms")
