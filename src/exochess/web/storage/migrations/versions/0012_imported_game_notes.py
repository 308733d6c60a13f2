"""The comments and clocks of an imported game's PGN (issue 45): ``games.pgn_notes``, one JSON
value ``{"comments": {ply: text}, "clocks": {ply: ms}}`` (NULL for a game played here).

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # a plain ADD COLUMN: a batch would rebuild ``games``, which other tables point at
    op.add_column("games", sa.Column("pgn_notes", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("pgn_notes")
