"""亲友圈 (issue 31): clubs, their members, join requests, bans and 玩法 templates; a club table is a room
with its club and template

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

_AT = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "clubs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("number", sa.String(length=8), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("join_mode", sa.String(length=16), nullable=False),
        sa.Column("auto_open", sa.Boolean(), nullable=False),
        sa.Column("notice", sa.String(length=400), nullable=False),
        sa.Column("invite_code", sa.String(length=16), nullable=False),
        sa.Column("created_at", _AT, nullable=False),
        sa.Column("dissolved_at", _AT, nullable=True),
        sa.ForeignKeyConstraint(["owner_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("number"),
        sa.UniqueConstraint("invite_code"),
    )
    op.create_table(
        "club_members",
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=8), nullable=False),
        sa.Column("joined_at", _AT, nullable=False),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("club_id", "player_id"),
    )
    op.create_index("ix_club_members_player", "club_members", ["player_id"])
    op.create_table(
        "club_requests",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", _AT, nullable=False),
        sa.Column("decided_by", sa.Integer(), nullable=True),
        sa.Column("decided_at", _AT, nullable=True),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["decided_by"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_club_requests_club", "club_requests", ["club_id", "status"])
    op.create_table(
        "club_bans",
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("banned_by", sa.Integer(), nullable=False),
        sa.Column("created_at", _AT, nullable=False),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["banned_by"], ["players.id"]),
        sa.PrimaryKeyConstraint("club_id", "player_id"),
    )
    op.create_table(
        "club_templates",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("created_at", _AT, nullable=False),
        sa.Column("deleted_at", _AT, nullable=True),
        sa.ForeignKeyConstraint(["club_id"], ["clubs.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_club_templates_club", "club_templates", ["club_id"])
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("club_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("template_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_rooms_club", "clubs", ["club_id"], ["id"])
        batch.create_foreign_key("fk_rooms_template", "club_templates", ["template_id"], ["id"])
        batch.create_index("ix_rooms_club", ["club_id", "status"])


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_index("ix_rooms_club")
        batch.drop_constraint("fk_rooms_template", type_="foreignkey")
        batch.drop_constraint("fk_rooms_club", type_="foreignkey")
        batch.drop_column("template_id")
        batch.drop_column("club_id")
    op.drop_table("club_templates")
    op.drop_table("club_bans")
    op.drop_index("ix_club_requests_club", "club_requests")
    op.drop_table("club_requests")
    op.drop_index("ix_club_members_player", "club_members")
    op.drop_table("club_members")
    op.drop_table("clubs")
