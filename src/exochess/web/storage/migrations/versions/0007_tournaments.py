"""Tournaments (issue 46): arenas and Swiss events, their players, games and byes.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(length=16), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("variant", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("time_control", sa.String(length=16), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("starts_at", sa.DateTime(), nullable=False),
        sa.Column("duration_s", sa.Integer(), nullable=True),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("round", sa.Integer(), server_default="0", nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("creator", sa.Integer(), nullable=True),
        sa.Column("private", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("schedule_key", sa.String(length=96), nullable=True),
        sa.Column("lease_until", sa.DateTime(), nullable=True),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.Column("finished", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["creator"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("schedule_key"),
    )
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.String(length=16), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("joined", sa.DateTime(), nullable=False),
        sa.Column("joined_round", sa.Integer(), server_default="1", nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("withdrawn_after", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("tournament_id", "user_id"),
    )
    op.create_table(
        "tournament_games",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("tournament_id", sa.String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), server_default="0", nullable=False),
        sa.Column("white_user", sa.Integer(), nullable=False),
        sa.Column("black_user", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.ForeignKeyConstraint(["white_user"], ["users.id"]),
        sa.ForeignKeyConstraint(["black_user"], ["users.id"]),
        sa.PrimaryKeyConstraint("game_id"),
    )
    op.create_index("ix_tournament_games_tournament_id", "tournament_games", ["tournament_id"])
    op.create_table(
        "tournament_byes",
        sa.Column("tournament_id", sa.String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("tournament_id", "round"),
    )


def downgrade() -> None:
    op.drop_table("tournament_byes")
    op.drop_index("ix_tournament_games_tournament_id", table_name="tournament_games")
    op.drop_table("tournament_games")
    op.drop_table("tournament_players")
    op.drop_table("tournaments")
