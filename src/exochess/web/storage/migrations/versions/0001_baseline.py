"""Baseline: the schema of exochess 0.2.0, the last release that made its tables itself.

On an empty database it creates every table.  On a database an earlier release made (no
``alembic_version`` table yet: each start ran ``create_all`` and added the columns it missed)
it creates the missing tables and adds the missing columns and indexes, as those starts did:
a column added after 0.1 is nullable or has a server default, so stored rows stay valid.  The
tables are written out here, frozen, not imported from ``store.py``: later changes to the
schema are later revisions.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.schema import CreateColumn

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

SCHEMA = sa.MetaData()

sa.Table(
    "users",
    SCHEMA,
    sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
    sa.Column("name", sa.String(length=32), nullable=False),
    sa.Column("name_key", sa.String(length=32), nullable=False),
    sa.Column("skeleton", sa.String(length=64), nullable=False),
    sa.Column("password_hash", sa.String(length=256), nullable=True),
    sa.Column("created", sa.DateTime(), nullable=False),
    sa.Column("deleted", sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint("id"),
    sa.UniqueConstraint("name_key"),
    sa.UniqueConstraint("skeleton"),
)
sa.Table(
    "challenges",
    SCHEMA,
    sa.Column("id", sa.String(length=32), nullable=False),
    sa.Column("variant", sa.String(length=32), nullable=False),
    sa.Column("time_control", sa.String(length=16), nullable=False),
    sa.Column(
        "color",
        sa.Enum("white", "black", "random", name="seatchoice", native_enum=False, length=8),
        nullable=False,
    ),
    sa.Column("poster_name", sa.String(length=40), nullable=False),
    sa.Column("poster_key", sa.String(length=64), nullable=False),
    sa.Column("poster_secret", sa.String(length=64), nullable=False),
    sa.Column("poster_address", sa.String(length=64), nullable=True),
    sa.Column(
        "status",
        sa.Enum("open", "accepted", name="challengestatus", native_enum=False, length=16),
        nullable=False,
    ),
    sa.Column("game_id", sa.String(length=32), nullable=True),
    sa.Column(
        "poster_color", sa.Enum("white", "black", name="color", native_enum=False, length=8), nullable=True
    ),
    sa.Column("created", sa.DateTime(), nullable=False),
    sa.Column("poster_user", sa.Integer(), nullable=True),
    sa.Column("rated", sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.ForeignKeyConstraint(
        ["poster_user"],
        ["users.id"],
    ),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "games",
    SCHEMA,
    sa.Column("id", sa.String(length=32), nullable=False),
    sa.Column("variant", sa.String(length=32), nullable=False),
    sa.Column("start_fen", sa.Text(), nullable=False),
    sa.Column(
        "white", sa.Enum("human", "engine", name="playerkind", native_enum=False, length=16), nullable=False
    ),
    sa.Column(
        "black", sa.Enum("human", "engine", name="playerkind", native_enum=False, length=16), nullable=False
    ),
    sa.Column("level", sa.Integer(), nullable=True),
    sa.Column("white_secret", sa.String(length=64), nullable=False),
    sa.Column("black_secret", sa.String(length=64), nullable=False),
    sa.Column("ply", sa.Integer(), nullable=False),
    sa.Column(
        "status",
        sa.Enum("active", "finished", "aborted", name="gamestatus", native_enum=False, length=16),
        nullable=False,
    ),
    sa.Column("result", sa.String(length=8), nullable=True),
    sa.Column("termination", sa.String(length=32), nullable=True),
    sa.Column("reason", sa.Text(), nullable=True),
    sa.Column(
        "takeback_offer", sa.Enum("white", "black", name="color", native_enum=False, length=8), nullable=True
    ),
    sa.Column("rematch_id", sa.String(length=32), nullable=True),
    sa.Column("created", sa.DateTime(), nullable=False),
    sa.Column("updated", sa.DateTime(), nullable=False),
    sa.Column("time_control", sa.String(length=16), nullable=True),
    sa.Column("white_user", sa.Integer(), nullable=True),
    sa.Column("black_user", sa.Integer(), nullable=True),
    sa.Column("rated", sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.Column("ratings_done", sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.Column("white_name", sa.String(length=40), nullable=True),
    sa.Column("black_name", sa.String(length=40), nullable=True),
    sa.ForeignKeyConstraint(
        ["black_user"],
        ["users.id"],
    ),
    sa.ForeignKeyConstraint(
        ["white_user"],
        ["users.id"],
    ),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "ratings",
    SCHEMA,
    sa.Column("user_id", sa.Integer(), nullable=False),
    sa.Column("variant", sa.String(length=32), nullable=False),
    sa.Column("rating", sa.Float(), nullable=False),
    sa.Column("rd", sa.Float(), nullable=False),
    sa.Column("volatility", sa.Float(), nullable=False),
    sa.Column("games", sa.Integer(), nullable=False),
    sa.Column("updated", sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(
        ["user_id"],
        ["users.id"],
    ),
    sa.PrimaryKeyConstraint("user_id", "variant"),
)
sa.Table(
    "sessions",
    SCHEMA,
    sa.Column("token_hash", sa.String(length=64), nullable=False),
    sa.Column("user_id", sa.Integer(), nullable=False),
    sa.Column("created", sa.DateTime(), nullable=False),
    sa.Column("expires", sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(
        ["user_id"],
        ["users.id"],
    ),
    sa.PrimaryKeyConstraint("token_hash"),
)
sa.Table(
    "chat",
    SCHEMA,
    sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
    sa.Column("game_id", sa.String(length=32), nullable=False),
    sa.Column("ply", sa.Integer(), nullable=False),
    sa.Column("color", sa.Enum("white", "black", name="color", native_enum=False, length=8), nullable=False),
    sa.Column("name", sa.String(length=40), nullable=True),
    sa.Column("text", sa.Text(), nullable=False),
    sa.Column("created", sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(
        ["game_id"],
        ["games.id"],
    ),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "moves",
    SCHEMA,
    sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
    sa.Column("game_id", sa.String(length=32), nullable=False),
    sa.Column("ply", sa.Integer(), nullable=False),
    sa.Column("text", sa.Text(), nullable=False),
    sa.Column("created", sa.DateTime(), nullable=False),
    sa.Column("white_ms", sa.Integer(), nullable=True),
    sa.Column("black_ms", sa.Integer(), nullable=True),
    sa.Column("at", sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(
        ["game_id"],
        ["games.id"],
    ),
    sa.PrimaryKeyConstraint("id"),
    sa.UniqueConstraint("game_id", "ply", name="uq_moves_game_ply"),
)
sa.Table(
    "rating_history",
    SCHEMA,
    sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
    sa.Column("user_id", sa.Integer(), nullable=False),
    sa.Column("variant", sa.String(length=32), nullable=False),
    sa.Column("game_id", sa.String(length=32), nullable=False),
    sa.Column("before", sa.Float(), nullable=False),
    sa.Column("rating", sa.Float(), nullable=False),
    sa.Column("rd", sa.Float(), nullable=False),
    sa.Column("created", sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(
        ["game_id"],
        ["games.id"],
    ),
    sa.ForeignKeyConstraint(
        ["user_id"],
        ["users.id"],
    ),
    sa.PrimaryKeyConstraint("id"),
    sa.UniqueConstraint("game_id", "user_id", name="uq_rating_history_game_user"),
)

INDEXES = [
    ("ix_challenges_poster_key", "challenges", ["poster_key"]),
    ("ix_games_black_user", "games", ["black_user"]),
    ("ix_games_white_user", "games", ["white_user"]),
    ("ix_sessions_user_id", "sessions", ["user_id"]),
    ("ix_chat_game_id", "chat", ["game_id"]),
    ("ix_rating_history_user_id", "rating_history", ["user_id"]),
]
"""(name, table, columns) of the indexes not made by a table's own constraints."""


def upgrade() -> None:
    conn = op.get_bind()
    present = sa.inspect(conn)
    tables = set(present.get_table_names())
    for table in SCHEMA.sorted_tables:
        if table.name not in tables:
            table.create(conn)
            continue
        have = {c["name"] for c in present.get_columns(table.name)}
        for column in table.columns:
            if column.name not in have:
                # the rows an older release stored stay valid: every later column allows them
                assert column.nullable or column.server_default is not None, column
                ddl = CreateColumn(column).compile(dialect=conn.dialect)
                conn.execute(sa.text(f"ALTER TABLE {table.name} ADD COLUMN {ddl}"))
    for name, table_name, columns in INDEXES:
        if name not in {i["name"] for i in sa.inspect(conn).get_indexes(table_name)}:
            op.create_index(name, table_name, columns)


def downgrade() -> None:
    for table in reversed(SCHEMA.sorted_tables):
        op.drop_table(table.name)
