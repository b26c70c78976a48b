"""亲友圈 战绩 (issue 31 §3), persistence: the matches played at a club's tables — their summaries (with the
hands' replay codes, for members) and the rows :mod:`paohuzi.server.club_stats` counts.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from paohuzi.server.club_stats import StatHand, StatMatch, StatSeat
from paohuzi.server.models import HandRow, Match, MatchSeat, Room
from paohuzi.server.names import seat_nickname
from paohuzi.server.store import Job, MatchSummary, summary_of

__all__ = ["club_matches", "stat_matches"]


def club_matches(club_id: int, since: datetime | None, limit: int) -> Job[list[MatchSummary]]:
    """The club's matches over (finished, dissolved or aborted) since ``since``, newest first, with their
    summaries (the hands' replay codes included: for members only)."""

    def job(s: Session) -> list[MatchSummary]:
        q = (
            select(Match, Room.code)
            .join(Room, Room.id == Match.room_id)
            .where(Room.club_id == club_id, Match.status != "playing")
        )
        if since is not None:
            q = q.where(Match.finished_at >= since)
        rows = s.execute(q.order_by(Match.id.desc()).limit(limit)).all()
        return [summary_of(s, m, code) for m, code in rows]

    return job


def stat_matches(club_id: int, since: datetime | None, with_records: bool = False) -> Job[list[StatMatch]]:
    """The club's matches over since ``since``, as :mod:`~paohuzi.server.club_stats` reads them: seats,
    result, and each finished hand's outcome (and who discarded the card won, with ``with_records``)."""

    def job(s: Session) -> list[StatMatch]:
        q = (
            select(Match)
            .join(Room, Room.id == Match.room_id)
            .where(Room.club_id == club_id, Match.status != "playing")
        )
        if since is not None:
            q = q.where(Match.finished_at >= since)
        out = []
        for m in s.scalars(q.order_by(Match.id)):
            seats = s.scalars(select(MatchSeat).where(MatchSeat.match_id == m.id).order_by(MatchSeat.seat)).all()
            hands = s.scalars(
                select(HandRow).where(HandRow.match_id == m.id, HandRow.status == "finished").order_by(HandRow.number)
            ).all()
            out.append(
                StatMatch(
                    id=m.id,
                    status=m.status,
                    leaver=(m.result or {}).get("leaver"),
                    seats=[StatSeat(x.seat, x.player_id, seat_nickname(x), int(x.score), x.rank) for x in seats],
                    hands=[_stat_hand(h, with_records) for h in hands],
                )
            )
        return out

    return job


def _stat_hand(h: HandRow, with_records: bool) -> StatHand:
    outcome = h.outcome or {}
    fed = None
    if with_records and outcome.get("source") == "discard" and h.record is not None:
        for seat, action in reversed(h.record.get("actions", [])):
            if str(action).startswith("discard"):
                fed = int(seat)
                break
    payments = outcome.get("payments") or []
    return StatHand(
        kind=str(outcome.get("kind")),
        winner=outcome.get("winner"),
        zimo=bool(outcome.get("zimo")) and outcome.get("kind") == "hu",
        source=outcome.get("source"),
        fed_by=fed,
        in_play=[i for i, _ in enumerate(payments)] if len(payments) == 3 else _in_play(h),
    )


def _in_play(h: HandRow) -> list[int]:
    """The seats dealt in: with four at the table one sits out (its payment is 0 and it has no cards)."""
    dealt = (h.record or {}).get("dealt") or {}
    hands = dealt.get("hands") if isinstance(dealt, dict) else None
    if isinstance(hands, list):
        return [i for i, cards in enumerate(hands) if cards]
    return list(range(len((h.outcome or {}).get("payments") or [])))
