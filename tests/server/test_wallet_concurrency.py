"""Every wallet change at once (issue 27 item 3): 救济, hand settlement (欢乐豆, 积分, 双倍积分卡 given),
cards used and the start grant, made at the same moment through three databases' worker threads — three
connections, as three server processes are — on SQLite and PostgreSQL, and through three real server
processes of the shared mode (PostgreSQL + Redis). The daily relief limit holds (R7.3 decisions: twice a
UTC day, only below 100 beans), no card is used twice, and the ledger replays to every balance with every
row's running balance right (:func:`paohuzi.server.ledger_store.replay`)."""

from __future__ import annotations

import asyncio
import random
import secrets
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from paohuzi.rules import find_preset
from paohuzi.scoring import level_number
from paohuzi.server import account_store, double_cards, economy, ledger_store, store
from paohuzi.server.config import Settings
from paohuzi.server.db import Database, alone
from paohuzi.server.models import LedgerRow
from paohuzi.server.protocol import QuickPlayIn
from paohuzi.server.room_options import room_options

from ..support.databases import postgres_available, postgres_schema
from ..support.server import ServerProcess

# The stored options of a room these tests make directly in the database (a quick play's defaults).
OPTIONS = room_options(Settings(), QuickPlayIn(), quick=True)
QQ = find_preset("qq")

PROCESSES = 3  # databases (connections) writing at once


@pytest.fixture(params=["sqlite", "postgresql"])
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[Database]]:
    """Three databases on one store, each with its own worker thread and connection."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'db' / 'x.sqlite3'}"
        yield from _three(url)
        return
    if not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    with postgres_schema() as url:
        yield from _three(url)


def _three(url: str) -> Iterator[list[Database]]:
    dbs = [Database(url) for _ in range(PROCESSES)]
    dbs[0].migrate()
    for db in dbs:
        db.start()
    try:
        yield dbs
    finally:
        for db in dbs:
            db.stop()


def _match(db: Database) -> int:
    room = db.run_now(store.create_room(f"{secrets.randbelow(10**6):06d}", "quick", None, OPTIONS, 3))
    seats = [store.MatchSeatRow(None, "random", "x") for _ in range(3)]
    return db.run_now(store.create_match(room, 1, QQ, 1_000_000, seats))


def _settle(
    match: int, number: int, lineup: Sequence[int | None], payments: list[int], multiplier: int
) -> ledger_store.Job[list[int]]:
    """A hand of ``match`` dealt and settled by the server's own settlement job (game.py ``finish_hand``)."""

    def job(s: Session) -> list[int]:
        hand_id = store.create_hand(match, number, number, 0, QQ)(s)
        results = [(pid, payments[i], payments[i] > 0) for i, pid in enumerate(lineup) if pid is not None]
        finish = store.finish_hand(hand_id, {"kind": "hu"}, {}, match, payments, results)
        return ledger_store.settle_hand(finish, hand_id, list(lineup), [0, 1, 2], payments, 3, multiplier)(s)

    return job


def _break(db: Database, match: int, players: Sequence[int], first: int) -> None:
    """Each player loses a hand owing 10,000 beans (100 points × 100) against two bots: it pays all it
    holds (R7.3), one transaction for them all."""

    def job(s: Session) -> None:
        for n, pid in enumerate(players):
            moves = _settle(match, first + n, [pid, None, None], [-300, 150, 150], 100)(s)
            assert moves[0] <= 0

    db.run_now(job)


def _guests(db: Database, n: int) -> list[int]:
    return [db.run_now(account_store.create_guest(secrets.token_hex(32), f"w{i}", ""))[0].id for i in range(n)]


def _check_ledger(db: Database) -> dict[int, dict[str, int]]:
    """The ledger replays (every running balance right, nothing below zero) to the players table."""
    stored = db.run_now(ledger_store.balances())
    assert db.run_now(ledger_store.replay()) == stored
    return stored


def _at_once(dbs: list[Database], jobs: list[tuple[int, ledger_store.Job[Any]]]) -> list[Any]:
    """Every job handed to its database's worker at the same moment (shuffled); their results in order."""

    async def main() -> list[Any]:
        return list(await asyncio.gather(*(dbs[k % len(dbs)].run(job) for k, job in jobs)))

    return asyncio.run(main())


def _claims(dbs: list[Database], players: list[int], per_player: int, rng: random.Random) -> Counter[tuple[int, Any]]:
    """``per_player`` relief claims for each player, spread over the databases, all at once: the count of
    each (player, outcome)."""
    order = [pid for pid in players for _ in range(per_player)]
    rng.shuffle(order)
    results = _at_once(dbs, [(k, ledger_store.grant_relief(pid)) for k, pid in enumerate(order)])
    return Counter((pid, failed) for pid, (failed, _beans) in zip(order, results, strict=True))


def test_relief_claimed_at_once_is_granted_within_the_daily_limit(databases: list[Database]) -> None:
    """40 broke players, 6 claims each at once over three connections: one grant each (500 beans lift a
    player above the 100 the relief is for); broke again, 6 more claims: the second and last grant of the
    day; broke a third time: every claim is ``relief_used``. The ledger replays to every balance."""
    dbs, rng = databases, random.Random(27)
    players = _guests(dbs[0], 40)
    match = _match(dbs[0])
    for round_, expected in enumerate(((None, "not_broke"), (None, "not_broke"), ("relief_used",))):
        _break(dbs[0], match, players, 1 + round_ * 40)
        got = _claims(dbs, players, 6, rng)
        for pid in players:
            outcomes = {failed: got[(pid, failed)] for failed in expected if got[(pid, failed)]}
            want = {None: 1, "not_broke": 5} if expected[0] is None else {"relief_used": 6}
            assert outcomes == want, (round_, pid, outcomes)
    stored = _check_ledger(dbs[0])
    for pid in players:
        assert stored[pid]["beans"] == 0  # broke three times, relieved twice
        rows = dbs[0].run_now(ledger_store.entries(pid, "beans", 20))
        assert [(e.reason, e.amount, e.balance_after) for e in reversed(rows)] == [
            ("start", 1000, 1000),
            ("hand", -1000, 0),
            ("relief", 500, 500),
            ("hand", -500, 0),
            ("relief", 500, 500),
            ("hand", -500, 0),
        ]


def test_cards_used_at_once_are_used_once_each(databases: list[Database]) -> None:
    """Players given 16 双倍积分卡 by a hand (the day's card and 15 levels, R7.4) use them 20 times at once
    over three connections, each card lasting no time: exactly 16 are used, 4 refused ``no_card``; one
    player using cards that last an hour, 6 times at once: one used, 5 refused ``card_active``."""
    dbs = databases
    players = _guests(dbs[0], 6)
    match = _match(dbs[0])
    for n, pid in enumerate(players):  # +10,000 points from two bots: level 1 → 16 (R7.4)
        dbs[0].run_now(_settle(match, n + 1, [pid, None, None], [10_000, -5_000, -5_000], 0))
    assert level_number(10_000) - level_number(0) == 15
    quick, slow = players[:-1], players[-1]
    uses = [(pid, 0) for pid in quick for _ in range(20)] + [(slow, 3600)] * 6
    random.Random(3).shuffle(uses)
    results = _at_once(dbs, [(k, double_cards.activate(pid, seconds)) for k, (pid, seconds) in enumerate(uses)])
    got = Counter((pid, failed) for (pid, _seconds), (failed, _state) in zip(uses, results, strict=True))
    for pid in quick:
        assert (got[(pid, None)], got[(pid, "no_card")]) == (16, 4)
    assert (got[(slow, None)], got[(slow, "card_active")]) == (1, 5)
    stored = _check_ledger(dbs[0])
    assert [stored[pid]["cards"] for pid in players] == [0] * 5 + [15]


def test_hands_relief_and_cards_at_once_keep_the_ledger_true(databases: list[Database]) -> None:
    """12 players sign up at once (the start grant), then play hands of three at four tables (胡 and 逃跑
    settled alike) — each table's match settled hand after hand by its own connection, as a room's owner
    does — while the same players claim relief and use their cards through the other connections. No bean
    is minted by a hand: the beans held are the start grants plus the relief granted; 积分 are what the
    hands paid; cards are those the hands gave less those used; the ledger replays to every balance."""
    dbs, rng = databases, random.Random(7)
    made = _at_once(dbs, [(k, account_store.create_guest(secrets.token_hex(32), f"m{k}", "")) for k in range(12)])
    players = [row.id for row, _session in made]
    match = _match(dbs[0])
    _break(dbs[0], match, players[::2], 100)  # half of them start broke: relief is theirs to claim
    tables = [players[i : i + 3] for i in range(0, 12, 3)]
    points: Counter[int] = Counter(dict.fromkeys(players[::2], -300))
    hands: list[list[ledger_store.Job[list[int]]]] = [[] for _ in tables]
    matches = [_match(dbs[0]) for _ in tables]  # a match each, as rooms have
    for number in range(1, 33):
        t = number % len(tables)
        loser, winner = rng.sample(range(3), 2)
        pay = [0, 0, 0]
        if number % 5:  # a 胡: the loser pays the winner
            pay[winner] = rng.choice((30, 90, 300))
            pay[loser] = -pay[winner]
        else:  # 逃跑 (R7.3): the leaver pays the penalty to each of the others
            pay = [30, 30, 30]
            pay[loser] = -60
        for i, pid in enumerate(tables[t]):
            points[pid] += pay[i]
        hands[t].append(_settle(matches[t], number, tables[t], pay, rng.choice((5, 20, 100))))
    side = [
        (pid, double_cards.activate(pid, 0) if k % 2 else ledger_store.grant_relief(pid))
        for k, pid in enumerate(rng.choices(players, k=60))
    ]

    async def table(db: Database, jobs: list[ledger_store.Job[list[int]]]) -> None:
        for job in jobs:  # one hand after the other, as a room's owner settles them
            await db.run(job)

    async def main() -> list[Any]:
        tables_done = [table(dbs[t % PROCESSES], jobs) for t, jobs in enumerate(hands)]
        claims = [dbs[(k + 1) % PROCESSES].run(job) for k, (_pid, job) in enumerate(side)]
        return list(await asyncio.gather(*tables_done, *claims))[len(hands) :]

    results = asyncio.run(main())
    reliefs = sum(1 for (failed, after) in results if failed is None and isinstance(after, int))
    used = sum(1 for (failed, after) in results if failed is None and not isinstance(after, int))
    stored = _check_ledger(dbs[0])
    broke = 6 * economy.START_BEANS  # what the six lost to the bots before
    assert sum(stored[pid]["beans"] for pid in players) == 12 * economy.START_BEANS - broke + reliefs * 500
    assert {pid: stored[pid]["points"] for pid in players} == {pid: points[pid] for pid in players}
    assert sum(stored[pid]["cards"] for pid in players) == _moved(dbs[0], ("daily", "level")) - used
    assert (used, reliefs) == (_count(dbs[0], "activate"), _count(dbs[0], "relief"))
    for pid in players:  # R7.3 decision: twice a UTC day at most
        assert _count(dbs[0], "relief", pid) <= economy.RELIEF_PER_DAY


def _moved(db: Database, reasons: tuple[str, ...]) -> int:
    """What the ledger rows of these reasons moved, in all."""

    def job(s: Session) -> int:
        return sum(int(a) for a in s.scalars(select(LedgerRow.amount).where(LedgerRow.reason.in_(reasons))))

    return db.run_now(job)


def _count(db: Database, reason: str, player: int | None = None) -> int:
    """How many ledger rows of this reason (all players', or one's)."""

    def job(s: Session) -> int:
        q = select(LedgerRow.id).where(LedgerRow.reason == reason)
        if player is not None:
            q = q.where(LedgerRow.player_id == player)
        return len(s.scalars(q).all())

    return db.run_now(job)


def _post(http: httpx.Client, server: ServerProcess, token: str, path: str) -> str | None:
    """POST ``path`` as the player: None when it was done (200), else the error's code (409)."""
    r = http.post(server.url + path, headers={"Authorization": f"Bearer {token}"}, timeout=60)
    assert r.status_code in (200, 409), f"{path}: {r.status_code} {r.text}"
    return None if r.status_code == 200 else str(r.json()["error"]["code"])


def test_relief_and_cards_claimed_at_once_on_three_processes_of_the_shared_mode(
    shared_deployment: dict[str, str], tmp_path: Path
) -> None:
    """The outside check's case (issue 27): 40 broke players claim relief 6 times each at once, spread
    over three server processes on one PostgreSQL (the shared mode) — one grant each; broke again, one
    more each; broke a third time, none (twice a UTC day). Each uses its one 双倍积分卡 3 times at once
    over the three: used once, refused ``card_active`` twice. The ledger replays to every balance."""
    env = {k: v for k, v in shared_deployment.items() if k.startswith("PAOHUZI_")}
    servers = [ServerProcess(tmp_path, shared_deployment["database_url"], env) for _ in range(PROCESSES)]
    db: Database | None = None
    try:
        with ThreadPoolExecutor(PROCESSES) as pool:
            list(pool.map(lambda s: s.start(), servers))
        db = Database(shared_deployment["database_url"])
        tokens = {secrets.token_urlsafe(32): 0 for _ in range(40)}
        for token in tokens:
            tokens[token] = db.run_now(account_store.create_guest(store.hash_token(token), "broke", ""))[0].id
        players = list(tokens.values())
        match = _match(db)
        rng = random.Random(40)

        def at_once(path: str, each: int) -> Counter[tuple[int, str | None]]:
            calls = [token for token in tokens for _ in range(each)]
            rng.shuffle(calls)
            with ThreadPoolExecutor(12) as pool, httpx.Client(limits=httpx.Limits(max_connections=12)) as http:
                codes = list(pool.map(lambda k: _post(http, servers[k % PROCESSES], calls[k], path), range(len(calls))))
            return Counter((tokens[token], code) for token, code in zip(calls, codes, strict=True))

        # (the third round is no race: the day's two are in before it starts)
        for round_, want in enumerate(({None: 1, "not_broke": 5}, {None: 1, "not_broke": 5}, {"relief_used": 2})):
            _break(db, match, players, 1 + round_ * 40)
            got = at_once("/api/me/relief", sum(want.values()))
            for pid in players:
                assert {code: n for (p, code), n in got.items() if p == pid} == want, (round_, pid)
        got = at_once("/api/me/double-cards/activate", 3)  # the day's card, given by the first hand lost
        for pid in players:
            assert {code: n for (p, code), n in got.items() if p == pid} == {None: 1, "card_active": 2}
        stored = _check_ledger(db)
        assert {stored[pid]["beans"] for pid in players} == {0}
        assert {stored[pid]["cards"] for pid in players} == {0}
        assert {_count(db, "relief", pid) for pid in players} == {economy.RELIEF_PER_DAY}
    finally:
        with ThreadPoolExecutor(PROCESSES) as pool:
            list(pool.map(lambda s: s.stop(), servers))
        if db is not None:
            db.stop()


def test_a_wallet_change_has_a_transaction_of_its_own(databases: list[Database]) -> None:
    """Jobs queued together share one transaction (group commit) but for a wallet change (``db.alone``),
    which runs by itself between them, in order: its row locks never pile up with other jobs' locks."""
    db = databases[0]
    inside, gate = threading.Event(), threading.Event()
    sessions: list[tuple[str, Session]] = []

    def hold(s: Session) -> None:  # keeps the worker busy while the four are queued: one batch
        inside.set()
        assert gate.wait(30)

    def plain(name: str) -> ledger_store.Job[None]:
        def job(s: Session) -> None:
            sessions.append((name, s))

        return job

    async def main() -> None:
        held = asyncio.ensure_future(db.run(hold))
        assert await asyncio.get_running_loop().run_in_executor(None, inside.wait, 30)
        four = [
            asyncio.ensure_future(db.run(job)) for job in (plain("a"), alone(plain("wallet")), plain("b"), plain("c"))
        ]
        await asyncio.sleep(0)  # each task runs to its hand-over to the worker
        gate.set()
        await asyncio.gather(held, *four)

    asyncio.run(main())
    assert [name for name, _s in sessions] == ["a", "wallet", "b", "c"]
    a, wallet_change, b, c = (s for _name, s in sessions)
    assert a is not wallet_change and wallet_change is not b and b is not a and b is c
