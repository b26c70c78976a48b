"""双倍积分卡 as inventory items (R7.3, issue 13 §3; decisions in docs/decisions.md "双倍积分卡"):

- **Granted** in the settlement's own transaction (:func:`cards_after_hand`, called by
  :func:`paohuzi.server.ledger_store.settle_hand`): one on a player's first settled hand of each UTC day
  (reason ``daily``), and one for each level (R7.4) the hand lifts the player above the highest level it
  was ever given a card for (reason ``level``: dropping a level and climbing back gives nothing).
- **Held**: ``players.double_cards``; every change is a ledger row of currency ``cards`` (reasons
  ``daily``, ``level``, ``activate``) with the count after it, so the ledger replays to it too.
- **Activated** by the player (:func:`activate`, ``POST /api/me/double-cards/activate``): one card for
  :data:`CARD_SECONDS` of wall-clock time. Cards do not stack: while one is active another is refused
  (``card_active``).
- **Applies** to every hand that *starts* while the card is active (:func:`active_players`, asked by the
  server as a hand is dealt): the seat is in the hand's ``double_cards`` (stored with the hand, so a
  restart deals it again the same), for the whole hand, even if the hour ends mid-hand. Bots never hold
  cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import TypedDict, cast

from sqlalchemy import Table, bindparam, select
from sqlalchemy.orm import Session

from paohuzi.scoring import level_number
from paohuzi.server import wallet
from paohuzi.server.db import alone
from paohuzi.server.models import CardActivation, LedgerRow, Player, per_hand
from paohuzi.server.statements import CoreJob, Sql, Statement
from paohuzi.server.store import Job, iso

__all__ = [
    "CARD_SECONDS",
    "CardState",
    "CardStateData",
    "state",
    "activate",
    "active_players",
    "cards_after_hand",
    "daily_given",
]

CARD_SECONDS = 3600  # how long an activated card lasts (wall-clock); PAOHUZI_DOUBLE_CARD_SECONDS


class CardStateData(TypedDict):
    """A player's 双倍积分卡 as JSON (``GET /api/me/double-cards``)."""

    held: int
    active_since: str | None
    active_until: str | None
    seconds_left: int


@dataclass(frozen=True, slots=True)
class CardState:
    """What a player holds: unused cards, and the active one's start and end (ISO 8601 UTC) if any;
    ``seconds_left`` of the active card (0: none)."""

    held: int
    active_since: str | None
    active_until: str | None
    seconds_left: int

    def to_dict(self) -> CardStateData:
        return cast(CardStateData, asdict(self))


def _utc(value: datetime) -> datetime:
    """SQLite gives naive datetimes back; they are UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _now(now: datetime | None) -> datetime:
    return datetime.now(UTC) if now is None else now


def _active(s: Session, player_id: int, now: datetime) -> CardActivation | None:
    return s.scalars(
        select(CardActivation)
        .where(
            CardActivation.player_id == player_id,
            CardActivation.started_at <= now,
            CardActivation.expires_at > now,
        )
        .order_by(CardActivation.expires_at.desc())
    ).first()


def _state(s: Session, player_id: int, now: datetime) -> CardState | None:
    held = s.execute(select(Player.double_cards).where(Player.id == player_id)).scalar_one_or_none()
    if held is None:
        return None
    act = _active(s, player_id, now)
    if act is None:
        return CardState(int(held), None, None, 0)
    left = int((_utc(act.expires_at) - now).total_seconds() + 0.999)
    return CardState(int(held), iso(act.started_at), iso(act.expires_at), max(0, left))


def state(player_id: int, now: datetime | None = None) -> Job[CardState | None]:
    """The player's cards (None: no such player)."""

    def job(s: Session) -> CardState | None:
        return _state(s, player_id, _now(now))

    return job


def activate(player_id: int, seconds: float, now: datetime | None = None) -> Job[tuple[str | None, CardState]]:
    """Use one card for ``seconds``: (None, the state after) — or (``no_card`` / ``card_active``, the state
    unchanged). The card, its ledger row and the activation are one transaction."""

    def job(s: Session) -> tuple[str | None, CardState]:
        # the player's row locked (issue 27) so that two activations at once cannot both pass the checks;
        # the clock read after the lock: read before it, a waiting activation's "now" could precede the start
        # of the one that held the lock, which then looked not yet active (two cards at once, seen on PostgreSQL)
        wallet.lock(s, [player_id])
        at = _now(now)
        held = s.execute(select(Player.double_cards).where(Player.id == player_id)).scalar_one()
        before = _state(s, player_id, at)
        assert before is not None
        if before.active_until is not None:
            return "card_active", before
        if held < 1:
            return "no_card", before
        after = wallet.add(s, player_id, "double_cards", -1)
        s.add(CardActivation(player_id=player_id, started_at=at, expires_at=at + timedelta(seconds=seconds)))
        s.add(
            LedgerRow(
                player_id=player_id, hand_id=None, currency="cards", reason="activate", amount=-1, balance_after=after
            )
        )
        s.flush()
        out = _state(s, player_id, at)
        assert out is not None
        return None, out

    return alone(job)  # its own transaction: the row lock (server/db.py)


def active_players(player_ids: Sequence[int], now: datetime | None = None) -> Job[set[int]]:
    """Which of these players have a card active now (a hand starting now doubles their 积分 gain)."""

    def job(conn: Sql) -> set[int]:
        if not player_ids:
            return set()
        return {cast(int, pid) for pid in _ACTIVE.scalars(conn, {"b_ids": list(player_ids), "b_at": _now(now)})}

    return per_hand(CoreJob(job))  # asked as each hand is dealt: on SQLite, on the event loop when it can (issue 33)


_CARDS, _LEDGER = cast(Table, CardActivation.__table__), cast(Table, LedgerRow.__table__)
# The per-hand queries (a hand dealt, a hand settled), built once: one compiled form whatever the number of
# players (issue 33).
_ACTIVE = Statement(select(_CARDS.c.player_id).where(
    _CARDS.c.player_id.in_(bindparam("b_ids", expanding=True)),
    _CARDS.c.started_at <= bindparam("b_at"),
    _CARDS.c.expires_at > bindparam("b_at"),
))
_DAILY = Statement(
    select(_LEDGER.c.player_id)
    .distinct()
    .where(
        _LEDGER.c.player_id.in_(bindparam("b_ids", expanding=True)),
        _LEDGER.c.currency == "cards",
        _LEDGER.c.reason == "daily",
        _LEDGER.c.created_at >= bindparam("b_since"),
    )
)


def _day_start(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def cards_after_hand(
    first_today: bool, points_before: int, points_after: int, best: int | None
) -> tuple[list[tuple[str, int]], int]:
    """The cards a settled hand gives a player — ``(reason, count)`` in ledger order: ``daily`` if it is
    the player's first settled hand of the UTC day, ``level`` for the levels (R7.4) climbed above the
    highest one ever given a card for (``best``; None: the level before this hand) — and the new best.

    >>> cards_after_hand(True, 0, 0, None)
    ([('daily', 1)], 1)
    >>> cards_after_hand(False, 0, 10_000, 1)
    ([('level', 15)], 16)
    """
    given: list[tuple[str, int]] = []
    if first_today:
        given.append(("daily", 1))
    base = level_number(points_before) if best is None else int(best)
    level = level_number(points_after)
    if level > base:
        given.append(("level", level - base))
    return given, max(base, level)


def daily_given(conn: Sql, player_ids: Sequence[int]) -> set[int]:
    """Which of these players were given their ``daily`` card today (UTC) already: one query."""
    if not player_ids:
        return set()
    since = _day_start(datetime.now(UTC))
    return {cast(int, pid) for pid in _DAILY.scalars(conn, {"b_ids": list(player_ids), "b_since": since})}
