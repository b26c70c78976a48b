"""initial schema: players, rooms and seats, matches and their seats, hands, the action log

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("nickname", sa.String(length=32), nullable=False),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("hands_played", sa.Integer(), nullable=False),
        sa.Column("hands_won", sa.Integer(), nullable=False),
        sa.Column("matches_played", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_players_points", "players", ["points"], unique=False)
    op.create_table(
        "rooms",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("code", sa.String(length=6), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=True),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["players.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_rooms_code", "rooms", ["code"], unique=False)
    op.create_index("ix_rooms_status", "rooms", ["status"], unique=False)
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("room_id", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("hands_total", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["room_id"],
            ["rooms.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_matches_room", "matches", ["room_id"], unique=False)
    op.create_index("ix_matches_status", "matches", ["status"], unique=False)
    op.create_table(
        "room_seats",
        sa.Column("room_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("bot", sa.String(length=32), nullable=True),
        sa.Column("ready", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
        ),
        sa.ForeignKeyConstraint(
            ["room_id"],
            ["rooms.id"],
        ),
        sa.PrimaryKeyConstraint("room_id", "seat"),
    )
    op.create_table(
        "hands",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=True),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("outcome", sa.JSON(), nullable=True),
        sa.Column("record", sa.JSON(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_hands_match", "hands", ["match_id"], unique=False)
    op.create_index("ix_hands_status", "hands", ["status"], unique=False)
    op.create_table(
        "match_seats",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("bot", sa.String(length=32), nullable=True),
        sa.Column("nickname", sa.String(length=32), nullable=False),
        sa.Column("score", sa.BigInteger(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
        ),
        sa.PrimaryKeyConstraint("match_id", "seat"),
    )
    op.create_index("ix_match_seats_player", "match_seats", ["player_id"], unique=False)
    op.create_table(
        "actions",
        sa.Column("hand_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=False),
        sa.Column("by", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["hand_id"],
            ["hands.id"],
        ),
        sa.PrimaryKeyConstraint("hand_id", "seq"),
    )


def downgrade() -> None:
    op.drop_table("actions")
    op.drop_index("ix_match_seats_player", table_name="match_seats")
    op.drop_table("match_seats")
    op.drop_index("ix_hands_status", table_name="hands")
    op.drop_index("ix_hands_match", table_name="hands")
    op.drop_table("hands")
    op.drop_table("room_seats")
    op.drop_index("ix_matches_status", table_name="matches")
    op.drop_index("ix_matches_room", table_name="matches")
    op.drop_table("matches")
    op.drop_index("ix_rooms_status", table_name="rooms")
    op.drop_index("ix_rooms_code", table_name="rooms")
    op.drop_table("rooms")
    op.drop_index("ix_players_points", table_name="players")
    op.drop_table("players")
