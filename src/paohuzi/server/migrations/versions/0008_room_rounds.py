"""rooms' stored rules say what the room plays: ``options.rules.rounds`` becomes ``options.hands`` (issue 27
item 5; rooms stored before kept the preset's 8)

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_ROOMS = sa.table("rooms", sa.column("id", sa.Integer()), sa.column("options", sa.JSON()))


def _fixed(options: Any) -> dict[str, Any] | None:
    """The options with ``rules.rounds`` set to ``hands``, or None when nothing is to change."""
    if not isinstance(options, dict) or not isinstance(options.get("rules"), dict):
        return None
    hands = options.get("hands")
    if not isinstance(hands, int) or options["rules"].get("rounds") == hands:
        return None
    return dict(options, rules=dict(options["rules"], rounds=hands))


def upgrade() -> None:
    connection = op.get_bind()
    for room_id, options in connection.execute(sa.select(_ROOMS.c.id, _ROOMS.c.options)).all():
        fixed = _fixed(options)
        if fixed is not None:
            connection.execute(_ROOMS.update().where(_ROOMS.c.id == room_id).values(options=fixed))


def downgrade() -> None:
    """Nothing to undo: the rounds written are what the rooms played."""
