"""欢乐豆 and the ledger (issue 13 §2, R7.3) on SQLite and PostgreSQL: random bot-played hands across the
tiers — broke players, relief, 双倍积分卡 — settled by the server's own settlement job; the ledger replays
to every balance, beans never go below zero, a hand never mints beans, and a failed settlement leaves
neither the hand settled nor its ledger rows."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from paohuzi.bots import make_bot
from paohuzi.bots.tournament import play_hand
from paohuzi.rules import find_preset
from paohuzi.server import account_store, economy, ledger_store, store
from paohuzi.server.db import Database

from .support import postgres_available, postgres_schema


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        db = Database(f"sqlite:///{tmp_path / 'db' / 'x.sqlite3'}")
        db.migrate()
        yield db
        db.stop()
        return
    if not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    with postgres_schema() as url:
        db = Database(url)
        db.migrate()
        yield db
        db.stop()


def _hand(db: Database, rules_name: str, seed: int, lineup: list[int | None]) -> tuple[int, int]:
    room = db.run_now(store.create_room(f"{seed % 1_000_000:06d}", "quick", None, {}, 3))
    seats = [store.MatchSeatRow(pid, None if pid else "random", "x") for pid in lineup]
    match = db.run_now(store.create_match(room, seed, {"name": rules_name}, 1, seats))
    hand = db.run_now(store.create_hand(match, 1, seed, 0, {}))
    return match, hand


def _deal_and_settle(
    match: int,
    n: int,
    outcome: dict[str, Any],
    rec: dict[str, Any],
    lineup: list[int | None],
    payments: list[int],
    results: list[tuple[int, int, bool]],
    stake: int,
    multiplier: int,
    doubled: list[int],
) -> Callable[[Session], list[int]]:
    """One transaction per hand: the hand row, then the server's own settlement job."""

    def job(s: Session) -> list[int]:
        hand_id = store.create_hand(match, n + 1, 10_000 + n, 0, {})(s)
        finish = store.finish_hand(hand_id, outcome, rec, match, payments, results)
        return ledger_store.settle_hand(
            finish, hand_id, lineup, [0, 1, 2], payments, stake, multiplier, doubled
        )(s)

    return job


def test_the_ledger_replays_to_every_balance_after_random_hands(database: Database) -> None:
    """R7.3: 1,000 random bot-played hands at every tier, double cards at random, relief when broke."""
    db = database
    rng = random.Random(13)
    players = [db.run_now(account_store.create_guest(f"{i:064x}", f"p{i}", ""))[0].id for i in range(1, 9)]
    rules = find_preset("qq")
    bots = [make_bot("random", seed=s) for s in range(3)]
    beans = {pid: economy.START_BEANS for pid in players}
    points = dict.fromkeys(players, 0)
    broke_seen = relief_given = doubled_wins = 0
    match, _first = _hand(db, rules.name, 0, [None, None, None])
    for n in range(1000):
        tier = rng.choice(economy.TIERS)
        lineup: list[int | None] = [*rng.sample(players, rng.choice((1, 2, 3))), None, None, None][:3]
        rng.shuffle(lineup)
        doubled = sorted(s for s in range(3) if rng.random() < 0.2)
        hand, _d, _s = play_hand(rules, 10_000 + n, bots)
        if doubled:  # the same deal and actions, scored with the cards (R7.3)
            from paohuzi.engine import replay

            record = dict(hand.record(), double_cards=doubled)
            record.pop("result", None)  # the result is the one the cards change
            hand = replay(record)
        outcome = hand.outcome
        assert outcome is not None
        payments = list(outcome.payments)
        held = [beans[pid] if pid is not None else None for pid in lineup]
        results = [(pid, payments[s], outcome.winner == s) for s, pid in enumerate(lineup) if pid is not None]
        job = _deal_and_settle(
            match, n, outcome.to_dict(), hand.record(), lineup, payments, results, rules.stake, tier.multiplier, doubled
        )
        moves = db.run_now(job)
        assert sum(moves) == 0, "a hand never mints nor burns beans"
        for s, pid in enumerate(lineup):
            if pid is None:
                continue
            held_s = held[s]
            assert held_s is not None
            if tier.multiplier == 0:
                assert moves[s] == 0
            if payments[s] < 0:  # a loser pays what it owes, or all it holds (R7.3 decision)
                owed = -payments[s] * tier.multiplier // rules.stake
                assert moves[s] == -min(owed, held_s)
                broke_seen += held_s < owed
            beans[pid] += moves[s]
            points[pid] += payments[s]
            assert beans[pid] >= 0
        doubled_wins += outcome.winner in doubled
        for pid in players:
            if beans[pid] < economy.RELIEF_BELOW and rng.random() < 0.5:
                failed, after = db.run_now(ledger_store.grant_relief(pid))
                if failed is None:
                    relief_given += 1
                    beans[pid] = after
                else:
                    assert failed == "relief_used" and after == beans[pid]
    assert broke_seen > 0 and relief_given > 0 and doubled_wins > 0
    stored = db.run_now(ledger_store.balances())
    replayed = db.run_now(ledger_store.replay())
    for pid in players:
        assert stored[pid] == replayed[pid] == {"beans": beans[pid], "points": points[pid]}


def test_relief_is_for_the_broke_and_limited_per_day(database: Database) -> None:
    db = database
    pid = db.run_now(account_store.create_guest("f" * 64, "poor", ""))[0].id
    assert db.run_now(ledger_store.grant_relief(pid)) == ("not_broke", 1000)
    match, hand_id = _hand(db, "qq", 1, [pid, None, None])
    finish = store.finish_hand(hand_id, {}, {}, match, [-300, 150, 150], [(pid, -300, False)])
    pays = [-300, 150, 150]
    moves = db.run_now(ledger_store.settle_hand(finish, hand_id, [pid, None, None], [0, 1, 2], pays, 3, 100))
    assert moves == [-1000, 500, 500]  # owed 100 points × 100 = 10,000; it held 1,000
    assert db.run_now(ledger_store.grant_relief(pid)) == (None, 500)
    assert db.run_now(ledger_store.grant_relief(pid)) == ("not_broke", 500)
    entries = db.run_now(ledger_store.entries(pid, "beans", 10))
    assert [(e.reason, e.amount, e.balance_after) for e in entries] == [
        ("relief", 500, 500),
        ("hand", -1000, 0),
        ("start", 1000, 1000),
    ]
    points = db.run_now(ledger_store.entries(pid, "points", 10))
    assert [(e.reason, e.amount, e.balance_after, e.hand_id) for e in points] == [("hand", -300, -300, hand_id)]


def test_a_failed_settlement_leaves_neither_the_hand_nor_its_ledger_rows(database: Database) -> None:
    """The settlement and its ledger rows are one transaction: a failure in the middle (here a hand id
    that does not exist for the ledger's foreign key) rolls both back."""
    db = database
    pid = db.run_now(account_store.create_guest("e" * 64, "x", ""))[0].id
    match, hand_id = _hand(db, "qq", 2, [pid, None, None])
    finish = store.finish_hand(hand_id, {"kind": "hu"}, {}, match, [60, -30, -30], [(pid, 60, True)])
    pays = [60, -30, -30]
    job = ledger_store.settle_hand(finish, 2**31 - 1, [pid, None, None], [0, 1, 2], pays, 3, 5)
    with pytest.raises(Exception):  # noqa: B017 — the database's own integrity error, whichever driver
        db.run_now(job)
    assert db.run_now(ledger_store.balances())[pid] == {"beans": 1000, "points": 0}
    assert [e.reason for e in db.run_now(ledger_store.entries(pid, None, 10))] == ["start"]
    assert db.run_now(store.match_summary(match)).hands[0].status == "playing"
