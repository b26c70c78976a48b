"""匹配 per preset (issue 29): each queue entry names the preset its player waits to play (entries stored
before waited for ``qq``, the one preset public tables played)

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("queue_entries") as batch:
        batch.add_column(sa.Column("preset", sa.String(length=32), nullable=False, server_default="qq"))


def downgrade() -> None:
    with op.batch_alter_table("queue_entries") as batch:
        batch.drop_column("preset")
