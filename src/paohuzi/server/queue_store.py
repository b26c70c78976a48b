"""The queue of public tables (匹配, issue 13 §4) in the database: one ``queue_entries`` row per waiting
player, written when it joins and deleted when it is seated, leaves or is dropped, so that a restarted
server knows who was waiting, in which tier, for which preset (issue 29) and since when (:func:`load`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from paohuzi.server.models import QueueEntry
from paohuzi.server.store import Job

__all__ = ["add", "load", "remove"]


def add(player_id: int, tier: str, joined_at: float, preset: str) -> Job[None]:
    """The player waits in ``tier``'s queue for ``preset`` since ``joined_at`` (seconds since the epoch);
    replaces an old row."""

    def job(s: Session) -> None:
        s.execute(delete(QueueEntry).where(QueueEntry.player_id == player_id))
        when = datetime.fromtimestamp(joined_at, UTC)
        s.add(QueueEntry(player_id=player_id, tier=tier, preset=preset, joined_at=when))

    return job


def remove(player_ids: Sequence[int]) -> Job[None]:
    def job(s: Session) -> None:
        if player_ids:
            s.execute(delete(QueueEntry).where(QueueEntry.player_id.in_(list(player_ids))))

    return job


def load() -> Job[list[tuple[int, str, float, str]]]:
    """Every waiting player: (player id, tier, joined at in seconds since the epoch, preset), first come
    first."""

    def job(s: Session) -> list[tuple[int, str, float, str]]:
        rows = s.scalars(select(QueueEntry).order_by(QueueEntry.joined_at, QueueEntry.player_id))
        out = []
        for row in rows:
            when = row.joined_at if row.joined_at.tzinfo is not None else row.joined_at.replace(tzinfo=UTC)
            out.append((row.player_id, row.tier, when.timestamp(), row.preset))
        return out

    return job
