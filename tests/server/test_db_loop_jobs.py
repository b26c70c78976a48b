"""Issue 33: on a SQLite file the per-hand jobs (a hand dealt: ``active_players`` and ``create_hand``; a hand
settled: ``settle_hand``) are committed on the event loop's own connection while the worker is idle — the same
rows as the worker writes, every failure the worker's — and go to the worker when it has a job in flight,
when another connection holds the write lock, and every ``CHECKPOINT_EVERY``-th, whose commit checkpoints the
WAL."""

from __future__ import annotations

import asyncio
import sqlite3
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from paohuzi.rules import find_preset
from paohuzi.server import double_cards, ledger_store, store
from paohuzi.server.config import Settings
from paohuzi.server.db import CHECKPOINT_EVERY, Database, Fenced
from paohuzi.server.protocol import QuickPlayIn
from paohuzi.server.room_options import room_options

OPTIONS = room_options(Settings(), QuickPlayIn(), quick=True)
QQ = find_preset("qq")
OUTCOME, RECORD = {"winner": 0, "payments": [12, -3, -3]}, {"actions": [[0, "pass"]] * 5, "seed": 1}


def _database(path: Path, *, loop_appends: bool = True) -> Database:
    db = Database(f"sqlite:///{path}", loop_appends=loop_appends)
    db.migrate()
    db.take_over("test")
    return db


class Table:
    """Three players (the first with a 双倍积分卡 active) at a 欢乐豆 room's match, and its hands as the server
    stores them (game.py): dealt, played (``actions`` appends), settled."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.players = [db.run_now(store.create_player(uuid.uuid4().hex, f"p{i}")).id for i in range(3)]
        db.run_now(double_cards.activate(self.players[0], timedelta(days=1).total_seconds()))
        room = db.run_now(store.create_room("123456", "private", self.players[0], OPTIONS, 3))
        seats = [store.MatchSeatRow(pid, None, f"p{i}") for i, pid in enumerate(self.players)]
        self.match = db.run_now(store.create_match(room, 7, QQ, 10**6, seats))

    async def hand(self, number: int, actions: int = 3) -> list[int]:
        db, players = self.db, self.players
        active = await db.run(double_cards.active_players(players))
        doubled = sorted(i for i, pid in enumerate(players) if pid in active)
        hand = await db.run(store.create_hand(self.match, number, 7, number % 3, QQ, doubled))
        for seq in range(1, actions + 1):
            await db.append_action(store.action_row(hand, seq, seq % 3, "pass", "bot"))
        results = [(players[0], 12, True), (players[1], -3, False), (players[2], -3, False)]
        finish = store.finish_hand(hand, OUTCOME, RECORD, self.match, [12 * number, -3 * number, -3 * number], results)
        job = ledger_store.settle_hand(finish, hand, players, [0, 1, 2], [12, -3, -3], 3, 5, doubled)
        return await db.run(job, hand=hand)


def _rows(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """What the hands wrote, timestamps as their shape (the digits of SQLAlchemy's text) only."""
    queries = {
        "hands": "SELECT id, match_id, number, seed, dealer, status, rules, double_cards, fair, outcome, record,"
        " length(started_at), length(finished_at) FROM hands ORDER BY id",
        "actions": "SELECT hand_id, seq, seat, action, by, length(created_at) FROM actions ORDER BY hand_id, seq",
        "ledger": "SELECT player_id, hand_id, currency, reason, amount, balance_after, length(created_at)"
        " FROM ledger ORDER BY id",
        "players": "SELECT id, beans, points, double_cards, card_level, hands_played, hands_won FROM players",
        "matches": "SELECT id, scores FROM matches",
        "match_seats": "SELECT match_id, seat, score FROM match_seats ORDER BY match_id, seat",
    }
    with db.engine.connect() as conn:
        return {name: [tuple(r) for r in conn.exec_driver_sql(sql).all()] for name, sql in queries.items()}


def test_per_hand_jobs_on_the_loop_write_what_the_worker_writes(tmp_path: Path) -> None:
    """The same hands, their jobs committed on the event loop (worker idle) and on the worker
    (``loop_appends=False``): the same rows, the same beans moved; on the loop the worker ran only every
    ``CHECKPOINT_EVERY``-th per-hand job."""
    moved: dict[bool, list[list[int]]] = {}
    rows = {}
    batches = {}
    for on_loop in (True, False):
        db = _database(tmp_path / f"{on_loop}.sqlite3", loop_appends=on_loop)
        table = Table(db)

        async def main(db: Database = db, table: Table = table, on_loop: bool = on_loop) -> None:
            db.start()
            moved[on_loop] = [await table.hand(n) for n in range(1, 8)]

        try:
            asyncio.run(main())
            batches[on_loop] = db.workers[0].batches
        finally:
            db.stop()
        rows[on_loop] = _rows(db)
    assert moved[True] == moved[False] and all(any(beans) for beans in moved[True])
    assert rows[True] == rows[False]
    assert len(rows[True]["ledger"]) >= 21 and len(rows[True]["hands"]) == 7
    assert batches[False] == 7 * 3 + 7 * 3  # every job and every append (one at a time) on the worker
    assert batches[True] == (7 * 3) // CHECKPOINT_EVERY  # 21 per-hand jobs: one on the worker


def test_a_per_hand_job_on_the_loop_is_one_transaction_from_the_first(tmp_path: Path) -> None:
    """Every statement of a per-hand job on the loop is in its one transaction, holding the write lock — the
    first job too, whose connection is set up first (SQLAlchemy's first connect ends with a rollback)."""
    from paohuzi.server.models import per_hand

    db = _database(tmp_path / "x.sqlite3")
    seen: list[tuple[bool, bool]] = []

    def job(s: Session) -> int:
        raw = s.connection().connection.driver_connection
        assert raw is not None
        seen.append((raw.in_transaction, db.workers[0].batches == 0))
        s.execute(text("UPDATE writer_fence SET holder = 'x' WHERE id = 1"))
        seen.append((raw.in_transaction, True))
        return 1

    async def main() -> None:
        db.start()
        assert await db.run(per_hand(job)) == 1
        assert await db.run(per_hand(job)) == 1

    try:
        asyncio.run(main())
    finally:
        db.stop()
    assert seen == [(True, True)] * 4 and db.workers[0].batches == 0


def test_per_hand_jobs_go_to_the_worker_when_it_is_busy_or_the_database_is_locked(tmp_path: Path) -> None:
    """With a job in flight on the worker, a per-hand job waits behind it there; while another connection holds
    the write lock it goes to the worker, which waits for the lock — never the loop; a job's own failure is
    raised as on the worker (nothing written), and the next one is committed on the loop again."""
    db = _database(tmp_path / "x.sqlite3")
    worker = db.workers[0]
    table = Table(db)
    ended: list[float] = []

    def slow(_s: Session) -> None:
        time.sleep(0.2)
        ended.append(time.monotonic())

    async def main() -> None:
        db.start()
        before = worker.batches
        await db.run(double_cards.active_players(table.players))
        assert worker.batches == before  # on the loop
        # a job in flight: behind it, on the worker
        job = asyncio.ensure_future(db.run(slow))
        await asyncio.sleep(0)
        hand = await db.run(store.create_hand(table.match, 1, 7, 0, QQ))
        assert ended and worker.batches in {before + 1, before + 2}  # with the slow one or after it
        await job
        before = worker.batches
        # another connection holds the write lock: the loop does not wait, the worker does
        other = sqlite3.connect(str(tmp_path / "x.sqlite3"), isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        started = time.monotonic()
        dealt = asyncio.ensure_future(db.run(store.create_hand(table.match, 2, 7, 0, QQ)))
        await asyncio.sleep(0.1)
        assert not dealt.done() and time.monotonic() - started < 0.5  # the loop ran on meanwhile
        other.commit()
        other.close()
        second = await dealt
        assert second > hand and worker.batches == before + 1
        # a bad job fails by itself (a hand of no match), nothing written; the loop goes on
        with pytest.raises(IntegrityError):
            await db.run(store.create_hand(10**6, 1, 7, 0, QQ))
        third = await db.run(store.create_hand(table.match, 3, 7, 0, QQ))
        assert worker.batches == before + 1
        count = await db.run(lambda s: int(s.execute(text("SELECT count(*) FROM hands")).scalar_one()))
        assert (third, count) == (second + 1, 3)

    try:
        asyncio.run(main())
    finally:
        db.stop()


def test_a_stale_writer_settles_nothing_on_the_loop(tmp_path: Path) -> None:
    """The per-hand job on the loop reads the writer fence in its transaction: once another process took the
    database over, the old writer's settlement fails with Fenced and nothing of it is written."""
    told: list[str] = []
    path = tmp_path / "x.sqlite3"
    db = _database(path)
    db.on_fenced = lambda: told.append("fenced")
    table = Table(db)

    async def main() -> None:
        db.start()
        assert any(await table.hand(1))
        new = Database(f"sqlite:///{path}")
        new.take_over("new")
        new.stop()
        with pytest.raises(Fenced):
            await db.run(store.create_hand(table.match, 2, 7, 0, QQ))
        assert told == ["fenced"]

    try:
        asyncio.run(main())
    finally:
        db.stop()
    assert len(_rows(db)["hands"]) == 1


def test_the_wal_is_still_checkpointed(tmp_path: Path) -> None:
    """The loop's connection never checkpoints (a checkpoint syncs to disk); the worker's commit of every
    ``CHECKPOINT_EVERY``-th per-hand job does, once the WAL holds its 1,000 pages: the database file takes the
    pages in, and the WAL starts over instead of growing."""
    path = tmp_path / "x.sqlite3"
    db = _database(path)
    table = Table(db)
    size = path.stat().st_size

    async def main() -> None:
        db.start()
        for n in range(1, 2 * CHECKPOINT_EVERY):
            await table.hand(n, actions=90)

    try:
        asyncio.run(main())
        assert db.workers[0].batches >= 1
        assert path.stat().st_size > size  # pages checkpointed into the database file
        pages = Path(f"{path}-wal").stat().st_size // 4096
        assert pages < 90 * (2 * CHECKPOINT_EVERY - 1)  # fewer than its transactions (each a page or more)
    finally:
        db.stop()
