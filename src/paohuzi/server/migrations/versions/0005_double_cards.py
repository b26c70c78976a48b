"""双倍积分卡 (issue 13 §3, R7.3): the cards a player holds, their activations, each hand's holders

- ``players.double_cards``: unused cards held (every change is a ``cards`` ledger row);
  ``players.card_level``: the highest level (R7.4) a level-up card was given for (NULL: none yet, the
  player's level at its next hand is the start).
- ``card_activations``: one row per card used — active from ``started_at`` until ``expires_at``.
- ``hands.double_cards``: the seats whose card was active when the hand started (a restart deals the
  hand again with them).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("double_cards", sa.BigInteger(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("card_level", sa.Integer(), nullable=True))
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("double_cards", sa.JSON(), nullable=True))
    op.create_table(
        "card_activations",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_card_activations_player", "card_activations", ["player_id", "expires_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_card_activations_player", table_name="card_activations")
    op.drop_table("card_activations")
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("double_cards")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("card_level")
        batch.drop_column("double_cards")
