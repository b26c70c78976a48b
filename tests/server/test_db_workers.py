"""Several database workers on PostgreSQL (issue 33, ``PAOHUZI_DB_CONNECTIONS``): each a connection with a
transaction in flight. A hand's appends are committed in their order; the writer fence holds on every
connection; and an action a player saw accepted survives ``kill -9`` of the server while many are in flight.
Real PostgreSQL (a schema of its own per test); skipped without one."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from paohuzi.rules import find_preset
from paohuzi.server import store
from paohuzi.server.config import Settings
from paohuzi.server.db import Database, Fenced
from paohuzi.server.protocol import QuickPlayIn
from paohuzi.server.room_options import room_options

from ..support.clients import never_hu, play_seat
from ..support.databases import postgres_available, postgres_schema
from ..support.server import running
from .play import RecordingClient, in_parallel, seated_table

OPTIONS = room_options(Settings(), QuickPlayIn(), quick=True)
QQ = find_preset("qq")
WORKERS = 4


@pytest.fixture
def url() -> Iterator[str]:
    if not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    with postgres_schema() as found:
        Database(found).migrate()
        yield found


async def _hands(db: Database, count: int) -> list[int]:
    room = await db.run(store.create_room("222333", "private", None, OPTIONS, 3))
    match = await db.run(store.create_match(room, 7, QQ, count, [store.MatchSeatRow(None, "greedy", "g")] * 3))
    return [await db.run(store.create_hand(match, n, 7, 0, QQ)) for n in range(1, count + 1)]


def test_each_hands_appends_are_committed_in_order_across_the_workers(url: str) -> None:
    """Sixteen hands append 25 actions each, every append in a turn of its own and, between two checkpoints
    (after the 10th and the 20th), none awaited before the next is made: each hand's rows are committed in seq
    order — the transaction ids (``xmin``) of its rows never go down — though two workers committed the 400,
    jobs ran beside them on the first, and each hand's last job (as its settlement) on the fourth. The
    checkpoints make each hand's rows span three transactions at least however fast the database is (CI once
    committed all 400 in four)."""
    db = Database(url, connections=WORKERS)
    db.take_over("test")  # every transaction also reads the writer fence

    async def hand(hand_id: int) -> None:
        pending = []
        for seq in range(1, 26):
            row = store.action_row(hand_id, seq, seq % 3, "pass", "bot")
            pending.append(asyncio.ensure_future(db.append_action(row)))
            await asyncio.sleep(0)
            if seq % 10 == 0:
                await db.run(store.hand_actions(hand_id))  # a job on the first worker meanwhile
                await asyncio.gather(*pending)  # a checkpoint: what follows goes in a later transaction
        await asyncio.gather(*pending)
        # a job of the hand's (its settlement) on its settling worker sees every append awaited before it
        assert len(await db.run(store.hand_actions(hand_id), hand=hand_id)) == 25

    async def main() -> list[int]:
        db.start()
        hands = await _hands(db, 16)
        await asyncio.gather(*(hand(h) for h in hands))
        return hands

    try:
        hands = asyncio.run(main())
    finally:
        db.stop()
    assert len(db.workers) == WORKERS and all(w.batches > 0 for w in db.workers)
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            query = "SELECT hand_id, seq, xmin::text::bigint FROM actions ORDER BY hand_id, seq"
            rows = conn.execute(text(query)).all()
    finally:
        engine.dispose()
    for h in hands:
        mine = [(seq, xid) for hand_id, seq, xid in rows if hand_id == h]
        assert [seq for seq, _ in mine] == list(range(1, 26))
        xids = [xid for _, xid in mine]
        assert xids == sorted(xids), f"hand {h}: rows committed out of their order"
        assert len(set(xids)) >= 3, f"hand {h}: its checkpoints did not split its rows"


def test_a_process_taken_over_writes_nothing_on_any_of_its_connections(url: str) -> None:
    """The writer fence on every worker: once another process took the database over, the old one's appends
    fail with Fenced on each of its connections (it is told once), and nothing more is written."""
    told: list[str] = []
    old = Database(url, connections=WORKERS, on_fenced=lambda: told.append("fenced"))
    old.take_over("old")

    async def main() -> list[int]:
        old.start()
        hands = await _hands(old, WORKERS)  # consecutive ids: hands on each appending and settling worker
        await asyncio.gather(*(old.append_action(store.action_row(h, 1, 0, "pass", "bot")) for h in hands))
        new = Database(url, connections=1)
        new.take_over("new")
        new.stop()
        outcomes = await asyncio.gather(
            *(old.append_action(store.action_row(h, 2, 1, "pass", "bot")) for h in hands),
            *(old.run(store.hand_actions(h), hand=h) for h in hands),  # the settling worker's fence too
            return_exceptions=True,
        )
        assert all(isinstance(o, Fenced) for o in outcomes), outcomes
        return hands

    try:
        hands = asyncio.run(main())
    finally:
        old.stop()
    assert {old.worker_of(h) for h in hands} == {1, 2} and {old.settler_of(h) for h in hands} == {3}
    assert all(w.batches > 0 for w in old.workers)
    assert told == ["fenced"]
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.execute(text("SELECT max(seq), count(*) FROM actions")).one() == (1, WORKERS)
    finally:
        engine.dispose()


def test_kill_9_while_actions_are_in_flight_on_several_connections_loses_none_acknowledged(
    url: str, tmp_path: Path
) -> None:
    """Three tables play at once on a server with four database connections (the three hands' appends on
    three of them, the deals on the fourth); the server is killed (SIGKILL) while their actions are in
    flight. Every action a player saw accepted is in the log, in its order, with no gap; at most the one
    action of a seat that was in flight is there without having been answered."""
    env = {"PAOHUZI_TURN_SECONDS": "300", "PAOHUZI_CLAIM_SECONDS": "300", "PAOHUZI_DB_CONNECTIONS": str(WORKERS)}
    with running(tmp_path, url, env) as server:
        tables = [seated_table(server, [server] * 3, RecordingClient) for _ in range(3)]
        clients = [c for table in tables for c in table]
        killed = threading.Event()

        def play(client: RecordingClient) -> None:
            try:
                play_seat(client, until="hand_over", choose=never_hu, timeout=60)
            except Exception:  # noqa: BLE001 — the server was killed under it: expected
                if not killed.is_set():
                    raise

        def kill() -> None:
            deadline = time.monotonic() + 60
            while sum(len(c.sent) for c in clients) < 40 and time.monotonic() < deadline:
                time.sleep(0.002)
            killed.set()  # before: a client may see its socket close before kill() returns
            server.kill()

        in_parallel([kill, *[lambda c=c: play(c) for c in clients]])
        for c in clients:
            c.close()
    assert all(f["type"] != "hand_over" for c in clients for f in c.frames), "a hand ended before the kill"
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            stored = conn.execute(text("SELECT hand_id, seq, seat, action FROM actions ORDER BY hand_id, seq")).all()
    finally:
        engine.dispose()
    hands = {next(f for f in c.frames if f["type"] == "game")["hand"] for c in clients}
    assert len(hands) == 3
    acked_in_all = 0
    for table in tables:
        hand = next(f for f in table[0].frames if f["type"] == "game")["hand"]
        rows = [(seq, seat, action) for h, seq, seat, action in stored if h == hand]
        assert [seq for seq, _, _ in rows] == list(range(1, len(rows) + 1))  # no gap
        for c in table:
            seat = next(f for f in c.frames if f["type"] == "game")["view"]["seat"]
            acked, kept = c.acked(hand), [a for _, s, a in rows if s == seat]
            assert kept[: len(acked)] == acked and len(kept) - len(acked) <= 1, (seat, acked, kept)
            acked_in_all += len(acked)
    assert acked_in_all >= 30  # the kill came mid-play, not after it


def test_sqlite_keeps_one_writer_and_the_setting_is_checked(tmp_path: Path) -> None:
    """SQLite has one writer, whatever ``connections`` says; ``PAOHUZI_DB_CONNECTIONS`` outside 1–64 stops the
    server at start-up, naming the variable."""
    db = Database(f"sqlite:///{tmp_path / 'x.sqlite3'}", connections=WORKERS)
    try:
        assert len(db.workers) == 1
    finally:
        db.stop()
    assert Settings.from_env({"PAOHUZI_DB_CONNECTIONS": "8"}).db_connections == 8
    for bad in ("0", "65"):
        with pytest.raises(ValueError, match="PAOHUZI_DB_CONNECTIONS"):
            Settings.from_env({"PAOHUZI_DB_CONNECTIONS": bad})
