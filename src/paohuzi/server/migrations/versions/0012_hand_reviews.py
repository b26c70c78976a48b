"""复盘 (issue 34): ``hand_reviews`` keeps a finished hand's review for one seat (hand id, seat → the review's
JSON), so that a review is computed once

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hand_reviews",
        sa.Column("hand_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("review", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["hand_id"], ["hands.id"]),
        sa.PrimaryKeyConstraint("hand_id", "seat"),
    )


def downgrade() -> None:
    op.drop_table("hand_reviews")
