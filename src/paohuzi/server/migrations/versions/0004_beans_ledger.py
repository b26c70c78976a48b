"""欢乐豆 and the ledger (issue 13 §2): players.beans (1,000 each), the append-only ledger

Existing players get an ``opening`` ledger row for their beans and one for their points, so that the
ledger replays to every balance from the start.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("beans", sa.BigInteger(), nullable=False, server_default="1000"))
    op.create_table(
        "ledger",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("hand_id", sa.Integer(), nullable=True),
        sa.Column("currency", sa.String(length=8), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["hand_id"], ["hands.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_ledger_player", "ledger", ["player_id", "id"], unique=False)
    op.execute(
        "INSERT INTO ledger (player_id, hand_id, currency, reason, amount, balance_after, created_at) "
        "SELECT id, NULL, 'beans', 'opening', beans, beans, created_at FROM players ORDER BY id"
    )
    op.execute(
        "INSERT INTO ledger (player_id, hand_id, currency, reason, amount, balance_after, created_at) "
        "SELECT id, NULL, 'points', 'opening', points, points, created_at FROM players WHERE points <> 0 "
        "ORDER BY id"
    )


def downgrade() -> None:
    op.drop_index("ix_ledger_player", table_name="ledger")
    op.drop_table("ledger")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("beans")
