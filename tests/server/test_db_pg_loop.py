"""Issue 33: on PostgreSQL the appends go from the event loop itself, on a connection of its own
(paohuzi.server.db_pg_loop) — pinned on a real PostgreSQL: the workers run none of them once it is open, the
fences judged as on a worker, a bad row failing alone, a lost connection costing nothing but a retry on the
workers, and a hand's rows committed in the order they came across both paths."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from paohuzi.rules import find_preset
from paohuzi.server import store
from paohuzi.server.config import Settings
from paohuzi.server.db import Database, Fenced, RoomFenced, fence_room
from paohuzi.server.protocol import QuickPlayIn
from paohuzi.server.room_options import room_options

from ..support.databases import postgres_available, postgres_schema

QQ = find_preset("qq")
OPTIONS = room_options(Settings(), QuickPlayIn(), quick=True)


@pytest.fixture
def url() -> Iterator[str]:
    if not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    with postgres_schema() as found:
        yield found


def _rows(s: Session) -> list[tuple[int, int, str]]:
    return [
        (int(h), int(q), str(a))
        for h, q, a in s.execute(text("SELECT hand_id, seq, action FROM actions ORDER BY hand_id, seq"))
    ]


async def _hand(db: Database, code: str = "345678") -> int:
    room = await db.run(store.create_room(code, "private", None, OPTIONS, 3))
    match = await db.run(store.create_match(room, 7, QQ, 1, [store.MatchSeatRow(None, "greedy", "g")] * 3))
    return await db.run(store.create_hand(match, 1, 7, 0, QQ))


async def _connected(db: Database, hand: int, seq: int) -> int:
    """Append until the loop's connection is open (the first appends go to the workers meanwhile); the next
    seq."""
    deadline = time.monotonic() + 20  # a second's wait after a lost one, and a loaded machine's connect
    while time.monotonic() < deadline:
        await db.append_action(store.action_row(hand, seq, 0, "pass", "bot"))
        seq += 1
        if db._pg_loop is not None and db._pg_loop.connected:  # noqa: SLF001 — the test's window into it
            return seq
        await asyncio.sleep(0.02)
    raise AssertionError("the event loop's connection never opened")


def _batches(db: Database) -> int:
    return sum(w.batches for w in db.workers)


def test_appends_go_from_the_event_loop_in_order_with_the_fences_judged(url: str) -> None:
    told: list[object] = []
    db = Database(url, connections=2, on_fenced=lambda: told.append("fenced"), on_room_fenced=told.append)
    db.migrate()
    db.take_over("test")

    async def main() -> None:
        db.start()
        hand = await _hand(db)
        seq = await _connected(db, hand, 1)
        before = _batches(db)
        # ten appends made in one turn, none awaited before the next: one statement, then what waited
        await asyncio.gather(
            *(db.append_action(store.action_row(hand, s, 1, "pass", "player")) for s in range(seq, seq + 10))
        )
        for s in range(seq + 10, seq + 20):  # one at a time, as a table plays
            await db.append_action(store.action_row(hand, s, 2, "pass", "auto"))
        assert _batches(db) == before  # the workers ran none of them
        seq += 20
        # a bad row (its seq already there) fails alone; the rest of its statement is written by the workers
        appends = [db.append_action(store.action_row(hand, s, 0, "pass", "bot")) for s in (seq, seq - 1, seq + 1)]
        results = await asyncio.gather(*appends, return_exceptions=True)
        assert results[0] is None and results[2] is None and isinstance(results[1], Exception)
        seq += 2
        # the shared mode's room fence: a stale token is refused (reported once), nothing of it written
        room = 1
        assert await db.run(fence_room(room, 5, "other"))
        with pytest.raises(RoomFenced):
            await db.append_action(store.action_row(hand, seq, 0, "pass", "bot"), fence=(room, 4))
        await db.append_action(store.action_row(hand, seq, 0, "pass", "bot"), fence=(room, 5))
        assert told == [[room]]
        seq += 1
        # another process takes the database over: the stale writer's appends fail, it is told once
        other = Database(url, connections=1, loop_appends=False)
        other.take_over("other")
        other.stop()
        for s in (seq, seq + 1):
            with pytest.raises(Fenced):
                await db.append_action(store.action_row(hand, s, 0, "pass", "bot"))
        assert told == [[room], "fenced"]
        with Session(db.engine) as s:  # not a job: the stale writer runs none any more
            rows = _rows(s)
        assert [q for _, q, _ in rows] == list(range(1, seq))  # every seq once, none of the refused ones

    try:
        asyncio.run(main())
    finally:
        db.stop()


def test_a_lost_connection_costs_a_retry_on_the_workers_and_nothing_else(url: str) -> None:
    """The server ends the loop's connection (as a PostgreSQL restart would), idle and then with a statement in
    flight (held up by a lock on the writer fence): the appends are committed once each — by the workers, then
    on a new connection of the loop's — and none is lost or doubled."""
    import psycopg

    db = Database(url, connections=2)
    db.migrate()
    db.take_over("test")
    direct = url.split("?")[0].replace("postgresql+psycopg://", "postgresql://")
    schema = url.split("search_path%3D")[1]

    def loop_pid() -> int:
        link = db._pg_loop  # noqa: SLF001 — the test's window into it
        assert link is not None and link.connected
        return int(link._pq.backend_pid)  # noqa: SLF001

    def terminate(pid: int) -> None:
        with psycopg.connect(direct, autocommit=True) as conn:
            assert conn.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)

    async def main() -> None:
        db.start()
        hand = await _hand(db, "456789")
        seq = await _connected(db, hand, 1)
        first = loop_pid()
        await asyncio.to_thread(terminate, first)
        await asyncio.sleep(0.1)
        for _ in range(40):  # the workers while the loop's connection is away, then the loop's new one
            await db.append_action(store.action_row(hand, seq, 0, "pass", "bot"))
            seq += 1
            await asyncio.sleep(0.05)
        seq = await _connected(db, hand, seq)  # open again (a loaded machine may take longer)
        second = loop_pid()
        assert second != first
        before = _batches(db)
        with psycopg.connect(direct) as locker:  # holds the writer fence's row: the statement waits for it
            locker.execute(f'SELECT token FROM "{schema}".writer_fence WHERE id = 1 FOR UPDATE')
            appends = [
                asyncio.ensure_future(db.append_action(store.action_row(hand, s, 0, "pass", "bot")))
                for s in range(seq, seq + 5)
            ]
            await asyncio.sleep(0.3)
            assert not any(a.done() for a in appends)
            await asyncio.to_thread(terminate, second)  # in flight: aborted, so never committed
            await asyncio.sleep(0.3)
            locker.rollback()
        await asyncio.gather(*appends)
        assert _batches(db) > before  # the workers ran them again
        seq += 5
        assert [q for _, q, _ in await db.run(_rows)] == list(range(1, seq))

    try:
        asyncio.run(main())
    finally:
        db.stop()


def test_each_hands_rows_keep_their_order_when_the_path_changes(url: str) -> None:
    """Appends made while others are still on the workers go to the workers too (a hand's rows are committed
    in the order they came: PostgreSQL's transaction ids never go down along a hand's seqs)."""
    db = Database(url, connections=3)
    db.migrate()
    db.take_over("test")

    async def main() -> list[int]:
        db.start()
        hands = [await _hand(db, f"5678{n:02d}") for n in range(6)]
        await _connected(db, hands[0], 1)

        async def play(hand: int, start: int) -> None:
            pending = []
            for seq in range(start, start + 30):
                pending.append(asyncio.ensure_future(db.append_action(store.action_row(hand, seq, 0, "pass", "bot"))))
                await asyncio.sleep(0)
                if seq % 7 == 0:
                    await asyncio.gather(*pending)
            await asyncio.gather(*pending)

        first = len(await db.run(_rows)) + 1
        await asyncio.gather(*(play(h, first if h == hands[0] else 1) for h in hands))
        return hands

    try:
        hands = asyncio.run(main())
        with Session(db.engine) as s:
            rows = s.execute(text("SELECT hand_id, seq, xmin::text::bigint FROM actions ORDER BY hand_id, seq")).all()
    finally:
        db.stop()
    for h in hands:
        xids = [int(x) for hand_id, _, x in rows if hand_id == h]
        assert xids == sorted(xids), f"hand {h}: rows committed out of their order"


def test_the_setting_turns_the_loops_appends_off_and_refuses_a_bad_value() -> None:
    """``PAOHUZI_DB_LOOP_APPENDS``: on by default, ``0`` for every job on the workers; a value that is not a
    yes or a no is refused, naming the variable."""
    from paohuzi.server.config import Settings

    assert Settings.from_env({}).db_loop_appends is True
    assert Settings.from_env({"PAOHUZI_DB_LOOP_APPENDS": "0"}).db_loop_appends is False
    with pytest.raises(ValueError, match="PAOHUZI_DB_LOOP_APPENDS='maybe' is not a valid bool"):
        Settings.from_env({"PAOHUZI_DB_LOOP_APPENDS": "maybe"})
