"""The profile's numbers (issue 13 §5): what a player's finished hands say — wins, 名堂 counts, the best
hand — and the history of its 欢乐豆 from the ledger. Database jobs returning plain typed rows.

- A hand counts when it is finished and the player sat in it (``match_seats``); a win is a hand whose
  outcome names the player's seat as winner (胡).
- 名堂 counts: every name listed in a won hand's outcome (R7.2: ``names``, 平胡 included), once per hand.
- The best hand: the won hand with the most points (R7.3 points = base × 番), then the most 胡息, then the
  earliest. Its room's kind says whether anyone may open its replay by id (a private room's hand only
  for its players: docs/protocol.md §2).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, TypedDict, cast

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from paohuzi.server.economy import RELIEF_PER_DAY
from paohuzi.server.models import HandRow, LedgerRow, Match, MatchSeat, Player, Room
from paohuzi.server.store import Job, iso

__all__ = [
    "BestHand",
    "BestHandData",
    "HandStats",
    "HandStatsData",
    "BeanPoint",
    "BeanPointData",
    "hand_stats",
    "bean_history",
    "relief_left",
    "is_deleted",
]


class BestHandData(TypedDict):
    hand_id: int
    points: int
    huxi: int
    fan: int
    names: list[str]
    finished_at: str | None
    room_kind: str


class HandStatsData(TypedDict):
    hands: int
    wins: int
    mingtang: dict[str, int]
    best: BestHandData | None


class BeanPointData(TypedDict):
    """One change of the player's 欢乐豆 as JSON (the profile's ``beans.history``)."""

    id: int
    hand_id: int | None
    reason: str
    amount: int
    balance_after: int
    created_at: str | None


@dataclass(frozen=True, slots=True)
class BestHand:
    """The player's best won hand (R7.3 points, then 胡息)."""

    hand_id: int
    points: int
    huxi: int
    fan: int
    names: list[str]
    finished_at: str | None
    room_kind: str  # quick | private | … : a private room's replay opens only for its players


@dataclass(frozen=True, slots=True)
class HandStats:
    """Counted from the player's finished hands."""

    hands: int  # finished hands the player sat in (荒庄 and 逃跑 hands included)
    wins: int  # of those, won by the player (胡)
    mingtang: dict[str, int] = field(default_factory=dict)  # 名堂 → hands won with it
    best: BestHand | None = None

    def to_dict(self) -> HandStatsData:
        return cast(HandStatsData, asdict(self))


@dataclass(frozen=True, slots=True)
class BeanPoint:
    """One change of the player's 欢乐豆 (a ledger row): what moved it and the balance after."""

    id: int
    hand_id: int | None
    reason: str  # start | opening | hand | relief
    amount: int
    balance_after: int
    created_at: str | None

    def to_dict(self) -> BeanPointData:
        return cast(BeanPointData, asdict(self))


def _rank(outcome: dict[str, Any], hand_id: int) -> tuple[int, int, int]:
    return int(outcome.get("points") or 0), int(outcome.get("huxi") or 0), -hand_id


def hand_stats(player_id: int) -> Job[HandStats]:
    """Wins, 名堂 counts and the best hand of the player, from every finished hand it sat in."""

    def job(s: Session) -> HandStats:
        rows = s.execute(
            select(HandRow.id, HandRow.outcome, HandRow.finished_at, MatchSeat.seat, Room.kind)
            .join(MatchSeat, MatchSeat.match_id == HandRow.match_id)
            .join(Match, Match.id == HandRow.match_id)
            .join(Room, Room.id == Match.room_id)
            .where(MatchSeat.player_id == player_id, HandRow.status == "finished")
            .order_by(HandRow.id)
        ).all()
        names: Counter[str] = Counter()
        wins = 0
        best: tuple[tuple[int, int, int], BestHand] | None = None
        for hand_id, outcome, finished_at, seat, kind in rows:
            out = outcome or {}
            if out.get("kind") != "hu" or out.get("winner") != seat:
                continue
            wins += 1
            listed = [str(n.get("name")) for n in out.get("names") or [] if n.get("name")]
            names.update(set(listed))
            rank = _rank(out, hand_id)
            if best is None or rank > best[0]:
                hand = BestHand(
                    hand_id=hand_id,
                    points=rank[0],
                    huxi=rank[1],
                    fan=int(out.get("fan") or 0),
                    names=listed,
                    finished_at=iso(finished_at),
                    room_kind=str(kind),
                )
                best = (rank, hand)
        mingtang = dict(sorted(names.items(), key=lambda kv: (-kv[1], kv[0])))
        return HandStats(len(rows), wins, mingtang, None if best is None else best[1])

    return job


def bean_history(player_id: int, limit: int) -> Job[list[BeanPoint]]:
    """The last ``limit`` changes of the player's beans, oldest first (for a chart)."""

    def job(s: Session) -> list[BeanPoint]:
        rows = s.scalars(
            select(LedgerRow)
            .where(LedgerRow.player_id == player_id, LedgerRow.currency == "beans")
            .order_by(LedgerRow.id.desc())
            .limit(limit)
        ).all()
        return [
            BeanPoint(r.id, r.hand_id, r.reason, int(r.amount), int(r.balance_after), iso(r.created_at))
            for r in reversed(rows)
        ]

    return job


def relief_left(player_id: int) -> Job[int]:
    """How many reliefs (救济) the player may still claim this UTC day (economy.RELIEF_PER_DAY a day)."""

    def job(s: Session) -> int:
        today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        used = s.execute(
            select(func.count())
            .select_from(LedgerRow)
            .where(LedgerRow.player_id == player_id, LedgerRow.reason == "relief", LedgerRow.created_at >= today)
        ).scalar_one()
        return max(0, RELIEF_PER_DAY - int(used))

    return job


def is_deleted(player_id: int) -> Job[bool | None]:
    """Whether the player deleted its account (None: no such player)."""

    def job(s: Session) -> bool | None:
        row = s.execute(select(Player.deleted_at).where(Player.id == player_id)).first()
        return None if row is None else row[0] is not None

    return job
