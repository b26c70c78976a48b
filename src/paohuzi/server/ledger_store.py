"""The ledger (issue 13 §2): every change of a player's 欢乐豆 or 积分 is an append-only ``ledger`` row
(player, hand, currency, reason, amount, balance after), written in the same transaction as the change
itself — :func:`settle_hand` wraps the hand's settlement job, so a hand is never settled without its
ledger rows, nor the reverse. :func:`replay` recomputes every balance from the ledger. Changes made at
once (several processes) are serialised by the players' row locks and written as increments
(:mod:`paohuzi.server.wallet`, issue 27), so every row's balance after is the true one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple, TypedDict, cast

from sqlalchemy import Table, bindparam, func, insert, select, update
from sqlalchemy.orm import Session

from paohuzi.server import wallet
from paohuzi.server.crash import crash_point
from paohuzi.server.db import alone
from paohuzi.server.double_cards import cards_after_hand, daily_given
from paohuzi.server.economy import RELIEF_AMOUNT, RELIEF_BELOW, RELIEF_PER_DAY, bean_moves
from paohuzi.server.models import LedgerRow, Player, per_hand, utcnow
from paohuzi.server.statements import CoreJob, Sql, Statement
from paohuzi.server.store import Job, iso

__all__ = [
    "LedgerEntry",
    "LedgerEntryData",
    "ReliefGranted",
    "settle_hand",
    "grant_relief",
    "entries",
    "replay",
    "balances",
    "record",
    "leaderboard",
]


class LedgerEntryData(TypedDict):
    """A ledger row as JSON (``GET /api/me/ledger``)."""

    id: int
    hand_id: int | None
    currency: str
    reason: str
    amount: int
    balance_after: int
    created_at: str | None


class ReliefGranted(TypedDict):
    """``POST /api/me/relief``: the beans granted (救济) and the balance after."""

    granted: int
    beans: int


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    id: int
    hand_id: int | None
    currency: str  # beans | points | cards (双倍积分卡 held)
    reason: str  # start | opening | hand | relief | daily | level | activate | deleted (the account)
    amount: int
    balance_after: int
    created_at: str | None

    def to_dict(self) -> LedgerEntryData:
        return cast(LedgerEntryData, asdict(self))


def record(s: Session, player_id: int, currency: str, reason: str, amount: int, after: int, hand: int | None) -> None:
    s.add(
        LedgerRow(
            player_id=player_id,
            hand_id=hand,
            currency=currency,
            reason=reason,
            amount=amount,
            balance_after=after,
        )
    )


def _row(player_id: int, currency: str, reason: str, amount: int, after: int, hand: int | None) -> dict[str, Any]:
    return {
        "player_id": player_id,
        "hand_id": hand,
        "currency": currency,
        "reason": reason,
        "amount": amount,
        "balance_after": after,
        "created_at": utcnow(),
    }


def settle_hand(
    finish: CoreJob[None],
    hand_id: int,
    players: Sequence[int | None],
    in_hand: Sequence[int],
    payments: Sequence[int],
    stake: int,
    multiplier: int,
    doubled: Sequence[int] = (),
) -> Job[list[int]]:
    """The hand's settlement ``finish`` (:func:`paohuzi.server.store.finish_hand`, which moves 积分) with,
    in the same transaction, the beans moved (:func:`paohuzi.server.economy.bean_moves`, on the balances
    read in this transaction under the players' row locks, :func:`paohuzi.server.wallet.lock`), the
    双倍积分卡 the hand gives (:func:`paohuzi.server.double_cards.cards_after_hand`) and a ledger row for
    every change. ``players``: the player id of each
    seat (None: a bot); ``in_hand``: the seats that played the hand; ``payments``: each seat's 积分 change
    as ``finish`` applies it. Returns each seat's change of beans.
    """

    def job(conn: Sql) -> list[int]:
        n = len(players)
        seated = [seat for seat in in_hand if players[seat] is not None]
        ids = [pid for pid in (players[seat] for seat in seated) if pid is not None]
        # The players' rows locked before anything moves (issue 27): the balances read below stay true
        # to the commit; a relief or a card used at the same moment (another process) waits for it.
        wallet.lock_rows(conn, ids)
        finish.body(conn)
        crash_point("settle_begin")
        # One read of the balances after ``finish`` moved the points, one of the day's cards given: the
        # rows are then written together (one insert), in the order the changes happen.
        read = _BALANCES.all(conn, {"b_ids": ids}) if ids else []
        now = {b.id: b for b in (_Balance(*cast("tuple[int, int, int, int, int | None]", row)) for row in read)}
        held: list[int | None] = [
            int(now[pid].beans) if (pid := players[i]) is not None and i in seated else None for i in range(n)
        ]
        moves = bean_moves([payments[i] if i in in_hand else 0 for i in range(n)], stake, multiplier, held, doubled)
        daily = daily_given(conn, ids)
        rows: list[dict[str, Any]] = []
        wallets: list[dict[str, Any]] = []
        for seat in seated:
            pid = players[seat]
            assert pid is not None
            row = now[pid]
            after_points = int(row.points)
            rows.append(_row(pid, "points", "hand", payments[seat], after_points, hand_id))
            given, best = cards_after_hand(
                pid not in daily, after_points - payments[seat], after_points, row.card_level
            )
            cards = int(row.double_cards)
            for reason, count in given:
                cards += count
                rows.append(_row(pid, "cards", reason, count, cards, hand_id))
            if moves[seat]:
                before = held[seat]
                assert before is not None
                rows.append(_row(pid, "beans", "hand", moves[seat], before + moves[seat], hand_id))
            if given or row.card_level != best or moves[seat]:
                # increments, never balances written back (issue 27); the rows' balances are exact: locked.
                # One statement for every player (issue 33): what does not change is added 0 or kept.
                wallets.append(
                    {"b_id": pid, "b_beans": moves[seat], "b_cards": cards - int(row.double_cards), "b_level": best}
                )
        _WALLET.execute_many(conn, wallets)
        _INSERT_LEDGER.execute_many(conn, rows)
        crash_point("settle_end")
        return moves

    # its own transaction: the row locks in one order (server/db.py); on SQLite, on the event loop when it can.
    # Run with a session, the session's objects are expired after (the players' rows changed).
    return per_hand(alone(CoreJob(job)))


_PLAYERS, _LEDGER = cast(Table, Player.__table__), cast(Table, LedgerRow.__table__)
# The settlement's statements, built once (issue 33: one compiled form each, no ORM bulk paths).
_BALANCES = Statement(
    select(_PLAYERS.c.id, _PLAYERS.c.beans, _PLAYERS.c.points, _PLAYERS.c.double_cards, _PLAYERS.c.card_level).where(
        _PLAYERS.c.id.in_(bindparam("b_ids", expanding=True))
    )
)


class _Balance(NamedTuple):
    """A player's row as :data:`_BALANCES` reads it."""

    id: int
    beans: int
    points: int
    double_cards: int
    card_level: int | None


_WALLET = Statement(
    update(_PLAYERS)
    .where(_PLAYERS.c.id == bindparam("b_id"))
    .values(
        beans=_PLAYERS.c.beans + bindparam("b_beans"),
        double_cards=_PLAYERS.c.double_cards + bindparam("b_cards"),
        card_level=bindparam("b_level"),
    )
)
_INSERT_LEDGER = Statement(insert(_LEDGER))


def _today_start() -> datetime:
    now = datetime.now(UTC)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def grant_relief(player_id: int) -> Job[tuple[str | None, int]]:
    """The daily relief (救济) for a broke player: (None, beans after) when granted, else (the reason —
    ``not_broke`` or ``relief_used`` —, beans now)."""

    def job(s: Session) -> tuple[str | None, int]:
        # The row lock first (issue 27): the balance and the day's count read below stay true until this
        # commits, so claims at once (any process) are granted one after the other, RELIEF_PER_DAY at most.
        wallet.lock(s, [player_id])
        beans = int(s.execute(select(Player.beans).where(Player.id == player_id)).scalar_one())
        if beans >= RELIEF_BELOW:
            return "not_broke", beans
        today = s.execute(
            select(func.count())
            .select_from(LedgerRow)
            .where(
                LedgerRow.player_id == player_id,
                LedgerRow.reason == "relief",
                LedgerRow.created_at >= _today_start(),
            )
        ).scalar_one()
        if today >= RELIEF_PER_DAY:
            return "relief_used", beans
        after = wallet.add(s, player_id, "beans", RELIEF_AMOUNT)
        record(s, player_id, "beans", "relief", RELIEF_AMOUNT, after, None)
        s.flush()  # the row counts for the next claim in the same transaction
        return None, after

    return alone(job)


def entries(player_id: int, currency: str | None, limit: int) -> Job[list[LedgerEntry]]:
    """The player's ledger rows, newest first."""

    def job(s: Session) -> list[LedgerEntry]:
        q = select(LedgerRow).where(LedgerRow.player_id == player_id)
        if currency is not None:
            q = q.where(LedgerRow.currency == currency)
        rows = s.scalars(q.order_by(LedgerRow.id.desc()).limit(limit))
        return [
            LedgerEntry(r.id, r.hand_id, r.currency, r.reason, int(r.amount), int(r.balance_after), iso(r.created_at))
            for r in rows
        ]

    return job


def replay() -> Job[dict[int, dict[str, int]]]:
    """Every player's balances recomputed from the ledger alone: ``{player: {"beans", "points", "cards"}}``.

    :raises AssertionError: if a row's ``balance_after`` is not the running sum, or beans go below zero.
    """

    def job(s: Session) -> dict[int, dict[str, int]]:
        out: dict[int, dict[str, int]] = {}
        for r in s.scalars(select(LedgerRow).order_by(LedgerRow.id)):
            bal = out.setdefault(r.player_id, {"beans": 0, "points": 0, "cards": 0})
            bal[r.currency] += int(r.amount)
            assert bal[r.currency] == int(r.balance_after), f"ledger row {r.id}: balance after"
            assert r.currency == "points" or bal[r.currency] >= 0, f"ledger row {r.id}: {r.currency} below zero"
        return out

    return job


def balances() -> Job[dict[int, dict[str, int]]]:
    """Every player's balances as the players table holds them."""

    def job(s: Session) -> dict[int, dict[str, int]]:
        rows = s.execute(select(Player.id, Player.beans, Player.points, Player.double_cards))
        return {pid: {"beans": int(b), "points": int(p), "cards": int(c)} for pid, b, p, c in rows}

    return job


def leaderboard(currency: str, days: int | None, limit: int) -> Job[list[tuple[int, str, int, int]]]:
    """Players by ``currency`` (beans or points): all-time by balance (``days`` None), else by what
    hands gave them in the last ``days`` days (from the ledger). Deleted players are left out; bots have
    no account. Rows: (player id, nickname, points, value)."""

    def job(s: Session) -> list[tuple[int, str, int, int]]:
        alive = Player.deleted_at.is_(None)
        if days is None:
            column = Player.beans if currency == "beans" else Player.points
            rows = s.execute(
                select(Player.id, Player.nickname, Player.points, column)
                .where(alive)
                .order_by(column.desc(), Player.id)
                .limit(limit)
            ).all()
        else:
            since = datetime.now(UTC) - timedelta(days=days)
            total = func.sum(LedgerRow.amount).label("total")
            rows = s.execute(
                select(Player.id, Player.nickname, Player.points, total)
                .join(LedgerRow, LedgerRow.player_id == Player.id)
                .where(
                    alive,
                    LedgerRow.currency == currency,
                    LedgerRow.reason == "hand",
                    LedgerRow.created_at >= since,
                )
                .group_by(Player.id, Player.nickname, Player.points)
                .order_by(total.desc(), Player.id)
                .limit(limit)
            ).all()
        return [(int(a), str(b), int(c), int(d)) for a, b, c, d in rows]

    return job
