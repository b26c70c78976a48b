"""欢乐豆 and the ledger (issue 13 §2, R7.3) on SQLite and PostgreSQL: random bot-played hands across the
tiers — broke players, relief, 双倍积分卡 — settled by the server's own settlement job; the ledger replays
to every balance, beans never go below zero, a hand never mints beans, and a failed settlement leaves
neither the hand settled nor its ledger rows."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from paohuzi.bots import Bot, make_bot
from paohuzi.bots.random_bot import RandomBot
from paohuzi.engine import Action, ActionKind, Hand, Observation
from paohuzi.rules import RuleSet, find_preset
from paohuzi.scoring import level_number
from paohuzi.server import account_store, double_cards, economy, ledger_store, models, store
from paohuzi.server.config import Settings
from paohuzi.server.db import Database
from paohuzi.server.protocol import QuickPlayIn
from paohuzi.server.room_options import room_options

from ..support.databases import postgres_available, postgres_schema

# The stored options of a room these tests make directly in the database (a quick play's defaults).
OPTIONS = room_options(Settings(), QuickPlayIn(), quick=True)


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
    room = db.run_now(store.create_room(f"{seed % 1_000_000:06d}", "quick", None, OPTIONS, 3))
    seats = [store.MatchSeatRow(pid, None if pid else "random", "x") for pid in lineup]
    rules = find_preset(rules_name)
    match = db.run_now(store.create_match(room, seed, rules, 1, seats))
    hand = db.run_now(store.create_hand(match, 1, seed, 0, rules))
    return match, hand


def _deal_and_settle(
    match: int,
    n: int,
    hand: Hand,
    lineup: list[int | None],
    stake: int,
    multiplier: int,
) -> Callable[[Session], list[int]]:
    """One transaction per hand: the hand row (with its 双倍积分卡 holders), then the server's own settlement
    job, given what the server gives it (game.py ``finish_hand``)."""
    outcome = hand.outcome
    assert outcome is not None
    payments = list(outcome.payments)
    results = [(pid, payments[s], outcome.winner == s) for s, pid in enumerate(lineup) if pid is not None]
    doubled = [outcome.winner] if outcome.winner in hand.double_cards else []

    def job(s: Session) -> list[int]:
        hand_id = store.create_hand(match, n + 1, 10_000 + n, 0, hand.rules, sorted(hand.double_cards))(s)
        finish = store.finish_hand(hand_id, outcome.to_dict(), hand.record(), match, payments, results)
        return ledger_store.settle_hand(finish, hand_id, lineup, [0, 1, 2], payments, stake, multiplier, doubled)(s)

    return job


class TakesEveryHu(RandomBot):
    """A random bot that never declines 胡 (R4.4): as fast as random play, and hands are won, not drawn."""

    def act(self, observation: Observation, legal: Sequence[Action]) -> Action:
        hu = [a for a in legal if a.kind is ActionKind.HU]
        return hu[0] if hu else super().act(observation, legal)


def _play(rules: RuleSet, seed: int, bots: list[Bot], cards: list[int]) -> Hand:
    """A bot-played hand dealt with these 双倍积分卡 holders (R7.3)."""
    hand = Hand(rules, seed=seed, double_cards=cards)
    for bot in bots:
        bot.new_hand()
    while not hand.over:
        seat = hand.deciding[0]
        hand.apply(seat, bots[seat].act(hand.observation(seat), hand.legal_actions(seat)))
    return hand


class Model:
    """What every balance must be, kept by the test alone: beans, 积分 and 双倍积分卡 per player (R7.3, R7.4,
    docs/decisions.md): one card on a player's first settled hand of the UTC day, one per level reached for
    the first time, one less per activation."""

    def __init__(self, players: list[int]) -> None:
        self.beans = {pid: economy.START_BEANS for pid in players}
        self.points = dict.fromkeys(players, 0)
        self.cards = dict.fromkeys(players, 0)
        self.best: dict[int, int] = {}
        self.daily: set[tuple[int, date]] = set()

    def settled(self, pid: int, points: int, beans: int, day: date) -> None:
        before = self.points[pid]
        self.points[pid] += points
        self.beans[pid] += beans
        if (pid, day) not in self.daily:
            self.daily.add((pid, day))
            self.cards[pid] += 1
        base = self.best.get(pid, level_number(before))
        level = level_number(self.points[pid])
        self.cards[pid] += max(0, level - base)
        self.best[pid] = max(base, level)

    def balances(self, pid: int) -> dict[str, int]:
        return {"beans": self.beans[pid], "points": self.points[pid], "cards": self.cards[pid]}


def _today() -> date:
    return datetime.now(UTC).date()


@pytest.mark.soak  # 1,000 random hands, twice
def test_the_ledger_replays_to_every_balance_after_random_hands(database: Database) -> None:
    """R7.3, R7.4: 1,000 random bot-played hands at every tier; players activate the 双倍积分卡 they are
    given (an hour each on a clock that moves 5 minutes a hand, so cards run out and are used again), broke
    players claim relief. After every hand the settlement's changes are exactly the expected ones; at the
    end the ledger replays to every balance — beans, 积分 and cards — and the players table agrees. Each
    step is the server's own job; 50 hands share a transaction (a commit is a disk flush: 1,000 of them
    would make the test slow, not stronger — one settlement's atomicity is tested below and by
    test_settlement_crash.py)."""
    db = database
    rng = random.Random(13)
    players = [db.run_now(account_store.create_guest(f"{i:064x}", f"p{i}", ""))[0].id for i in range(1, 9)]
    rules = find_preset("qq")
    # one greedy player (it wins hands: the double cards' wins), two random ones that take every 胡
    bots: list[Bot] = [make_bot("greedy", seed=0), TakesEveryHu(seed=1), TakesEveryHu(seed=2)]
    model = Model(players)
    seen: Counter[str] = Counter()
    match, _first = _hand(db, rules.name, 0, [None, None, None])
    clock = [datetime(2026, 1, 1, tzinfo=UTC)]

    def one_hand(tx: Session, n: int) -> None:
        """Hand ``n``: cards used, the hand dealt with the active ones, played, settled, relief claimed — each
        step the server's own job, run in the batch's transaction."""
        clock[0] += timedelta(minutes=5)
        now = clock[0]
        tier = rng.choice(economy.TIERS)
        lineup: list[int | None] = [*rng.sample(players, rng.choice((1, 2, 3))), None, None, None][:3]
        rng.shuffle(lineup)
        humans = [pid for pid in lineup if pid is not None]
        for pid in humans:  # a player holding a card uses it now and then (never two at once)
            if model.cards[pid] and rng.random() < 0.7:
                failed, st = double_cards.activate(pid, 3600, now=now)(tx)
                if failed is None:
                    seen["activations"] += 1
                    model.cards[pid] -= 1
                    assert st.held == model.cards[pid] and st.seconds_left == 3600
                else:
                    assert failed == "card_active" and st.held == model.cards[pid]
        active = double_cards.active_players(humans, now=now)(tx)
        cards = sorted(s for s, pid in enumerate(lineup) if pid in active)
        hand = _play(rules, 10_000 + n, bots, cards)
        outcome = hand.outcome
        assert outcome is not None
        payments = list(outcome.payments)
        held = [model.beans[pid] if pid is not None else None for pid in lineup]
        day = _today()
        moves = _deal_and_settle(match, n, hand, lineup, rules.stake, tier.multiplier)(tx)
        if _today() != day:  # the UTC day turned during this settlement: which day it counted for is unknown
            pytest.skip("the test ran across UTC midnight")
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
                seen["broke_seen"] += held_s < owed
            model.settled(pid, payments[s], moves[s], day)
            assert model.beans[pid] >= 0
        if outcome.winner is not None and outcome.winner in cards:  # R7.3: the holder's own gain doubles
            seen["doubled_wins"] += 1
            gain = sum(-p for p in payments if p < 0)
            assert payments[outcome.winner] == 2 * gain
        seen["doubled_losses"] += any(s != outcome.winner and payments[s] < 0 for s in cards)
        for pid in players:
            if model.beans[pid] < economy.RELIEF_BELOW and rng.random() < 0.5:
                failed, after = ledger_store.grant_relief(pid)(tx)
                if failed is None:
                    seen["relief_given"] += 1
                    model.beans[pid] = after
                else:
                    assert failed == "relief_used" and after == model.beans[pid]

    for first in range(0, 1000, 50):  # 50 hands a transaction: the test's speed is the disk's commits
        db.run_now(lambda tx, first=first: [one_hand(tx, n) for n in range(first, first + 50)])
    counts = tuple(seen[k] for k in ("broke_seen", "relief_given", "doubled_wins", "doubled_losses", "activations"))
    assert min(counts) >= 10, counts  # every case was met, often (the run is deterministic)
    stored = db.run_now(ledger_store.balances())
    replayed = db.run_now(ledger_store.replay())
    for pid in players:
        assert stored[pid] == replayed[pid] == model.balances(pid)
        assert db.run_now(double_cards.state(pid, now=clock[0])).held == model.cards[pid]


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
    assert db.run_now(ledger_store.balances())[pid] == {"beans": 1000, "points": 0, "cards": 0}
    assert [e.reason for e in db.run_now(ledger_store.entries(pid, None, 10))] == ["start"]
    assert db.run_now(store.match_summary(match)).hands[0].status == "playing"


def test_a_hand_with_a_doubled_winner_writes_exactly_these_rows(database: Database) -> None:
    """Two hands of three players in a 欢乐豆 room (stake 3, multiplier 5), run as the server runs them: the
    first gives each its daily card (and A two level cards); A uses a card, and the second doubles A's 积分
    win, never its beans. Every ledger row, wallet and card level is pinned (issue 33: the settlement's
    statements were rewritten; these are the rows the ORM version wrote)."""
    db = database
    a, b, c = (db.run_now(account_store.create_guest(ch * 64, ch, ""))[0].id for ch in "abc")
    rules = find_preset("qq")
    room = db.run_now(store.create_room("333333", "quick", None, OPTIONS, 3))
    match = db.run_now(store.create_match(room, 1, rules, 2, [store.MatchSeatRow(p, None, "x") for p in (a, b, c)]))

    def hand(number: int, payments: list[int]) -> tuple[int, list[int]]:
        active = db.run_now(double_cards.active_players([a, b, c]))
        cards = sorted(s for s, pid in enumerate((a, b, c)) if pid in active)
        hand_id = db.run_now(store.create_hand(match, number, number, 0, rules, cards))
        doubled = [0] if 0 in cards else []
        results = [(pid, payments[s], s == 0) for s, pid in enumerate((a, b, c))]
        finish = store.finish_hand(hand_id, {"winner": 0}, {}, match, payments, results)
        job = ledger_store.settle_hand(finish, hand_id, [a, b, c], [0, 1, 2], payments, 3, 5, doubled)
        return hand_id, db.run_now(job)

    h1, moves = hand(1, [60, -30, -30])
    assert moves == [100, -50, -50]
    assert db.run_now(double_cards.activate(a, 3600))[0] is None
    h2, moves = hand(2, [120, -30, -30])
    assert moves == [100, -50, -50]  # the 积分 doubled, the beans not
    rows = {
        pid: [(e.hand_id, e.currency, e.reason, e.amount, e.balance_after) for e in entries]
        for pid in (a, b, c)
        if (entries := db.run_now(ledger_store.entries(pid, None, 20))[::-1])
    }
    assert rows[a] == [
        (None, "beans", "start", 1000, 1000),
        (h1, "points", "hand", 60, 60),
        (h1, "cards", "daily", 1, 1),
        (h1, "cards", "level", 2, 3),
        (h1, "beans", "hand", 100, 1100),
        (None, "cards", "activate", -1, 2),
        (h2, "points", "hand", 120, 180),
        (h2, "cards", "level", 2, 4),
        (h2, "beans", "hand", 100, 1200),
    ]
    for pid in (b, c):
        assert rows[pid] == [
            (None, "beans", "start", 1000, 1000),
            (h1, "points", "hand", -30, -30),
            (h1, "cards", "daily", 1, 1),
            (h1, "beans", "hand", -50, 950),
            (h2, "points", "hand", -30, -60),
            (h2, "beans", "hand", -50, 900),
        ]
    assert db.run_now(ledger_store.balances()) == {
        a: {"beans": 1200, "points": 180, "cards": 4},
        b: {"beans": 900, "points": -60, "cards": 1},
        c: {"beans": 900, "points": -60, "cards": 1},
    }
    players = db.run_now(store.players_by_ids([a, b, c]))
    assert [(players[p].hands_played, players[p].hands_won) for p in (a, b, c)] == [(2, 2), (2, 0), (2, 0)]
    levels = db.run_now(lambda s: [s.get_one(models.Player, pid).card_level for pid in (a, b, c)])
    assert levels == [5, 1, 1]
