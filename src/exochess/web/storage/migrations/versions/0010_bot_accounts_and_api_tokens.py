"""Bot accounts and personal API tokens (issue 47): ``users.bot``, the ``api_tokens`` table, and
``challenges.dest_user`` for the direct challenges of the API.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # plain ADD COLUMNs (no batch): a batch would copy ``users``, which other tables point at
    op.add_column("users", sa.Column("bot", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("challenges", sa.Column("dest_user", sa.Integer(), nullable=True))
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("description", sa.String(length=64), nullable=False),
        sa.Column("scopes", sa.String(length=256), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("last_used", sa.DateTime(), nullable=True),
        sa.Column("revoked", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("digest"),
    )
    op.create_index("ix_api_tokens_user_id", "api_tokens", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_api_tokens_user_id", table_name="api_tokens")
    op.drop_table("api_tokens")
    with op.batch_alter_table("challenges") as batch:
        batch.drop_column("dest_user")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("bot")
