"""可验证发牌 (issue 32): a hand dealt verifiably keeps its server seed and client seeds (``hands.fair``:
``{"commitment", "server_seed", "client_seeds"}``) so that another process or a restart deals it again; hands
stored before were dealt from ``hands.seed`` (rng_version 1) and have none

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("fair", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("fair")
