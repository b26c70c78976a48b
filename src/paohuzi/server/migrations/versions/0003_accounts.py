"""accounts (issue 13): usernames and password hashes on players, server-side sessions

Every existing guest token becomes a session of kind ``guest``, so guests keep working.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("username", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("username_key", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("password_hash", sa.String(length=255), nullable=True))
        batch.add_column(sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_unique_constraint("uq_players_username_key", ["username_key"])
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("user_agent", sa.String(length=120), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_sessions_player", "sessions", ["player_id"], unique=False)
    op.execute(
        "INSERT INTO sessions (player_id, token_hash, kind, user_agent, created_at) "
        "SELECT id, token_hash, 'guest', '', created_at FROM players"
    )


def downgrade() -> None:
    op.drop_index("ix_sessions_player", table_name="sessions")
    op.drop_table("sessions")
    with op.batch_alter_table("players") as batch:
        batch.drop_constraint("uq_players_username_key", type_="unique")
        batch.drop_column("deleted_at")
        batch.drop_column("claimed_at")
        batch.drop_column("password_hash")
        batch.drop_column("username_key")
        batch.drop_column("username")
