"""Berserk in arena games (issue 46): ``games.berserkable`` (the game is an arena tournament's,
so its players may berserk) and ``games.white_berserk`` / ``games.black_berserk`` (that seat
halved its clock and gave up its increment).

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None

COLUMNS = ("berserkable", "white_berserk", "black_berserk")


def upgrade() -> None:
    # plain ADD COLUMNs (SQLite allows them with a default): a batch would rebuild ``games``,
    # which SQLite refuses while other tables' foreign keys point at it
    for name in COLUMNS:
        op.add_column("games", sa.Column(name, sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        for name in reversed(COLUMNS):
            batch.drop_column(name)
