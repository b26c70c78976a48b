"""writer fence: one row holding the fencing token of the server process allowed to write

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table = op.create_table(
        "writer_fence",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("token", sa.BigInteger(), nullable=False),
        sa.Column("holder", sa.String(length=128), nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.bulk_insert(table, [{"id": 1, "token": 0, "holder": "", "taken_at": datetime.now(UTC)}])


def downgrade() -> None:
    op.drop_table("writer_fence")
