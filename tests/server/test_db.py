"""The database layer: migrations make exactly the models' schema (SQLite, and PostgreSQL when it
answers), group commit, and one bad job failing alone."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.orm import Session

from paohuzi.rules import find_preset
from paohuzi.server import store
from paohuzi.server.config import Settings
from paohuzi.server.db import Database
from paohuzi.server.models import Base
from paohuzi.server.protocol import QuickPlayIn
from paohuzi.server.room_options import room_options

from ..support.databases import postgres_available, postgres_schema

# The stored options of a room these tests make directly in the database (a quick play's defaults).
OPTIONS = room_options(Settings(), QuickPlayIn(), quick=True)
QQ = find_preset("qq")


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


def test_migrations_match_the_models(database: Database) -> None:
    with database.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []
    names = set(inspect(database.engine).get_table_names())
    assert {"players", "rooms", "room_seats", "matches", "match_seats", "hands", "actions"} <= names
    database.migrate()  # twice is harmless


def test_group_commit_and_a_bad_job_fails_alone(database: Database) -> None:
    async def main() -> None:
        database.start()
        room = await database.run(store.create_room("123456", "private", None, OPTIONS, 3))
        match = await database.run(store.create_match(room, 7, QQ, 1, [store.MatchSeatRow(None, "greedy", "g")] * 3))
        hand = await database.run(store.create_hand(match, 1, 7, 0, QQ))
        rows = [database.append_action(store.action_row(hand, seq, 0, "pass", "bot")) for seq in range(1, 101)]
        results = await asyncio.gather(
            *rows, database.append_action(store.action_row(hand, 5, 0, "x", "bot")), return_exceptions=True
        )
        assert all(r is None for r in results[:100]) and isinstance(results[100], Exception)
        assert [a for _s, a, _b in await database.run(store.hand_actions(hand))] == ["pass"] * 100

    asyncio.run(main())


def test_tokens_are_stored_hashed(database: Database) -> None:
    player = database.run_now(store.create_player(store.hash_token("secret-token-123"), "n"))
    assert database.run_now(store.player_by_token(store.hash_token("secret-token-123"))).id == player.id
    with database.engine.connect() as conn:
        stored = conn.exec_driver_sql("SELECT token_hash FROM players").scalar()
    assert stored != "secret-token-123" and len(stored) == 64


def test_the_worker_gets_a_new_connection_when_the_database_dropped_its_own(tmp_path: Path) -> None:
    """The worker keeps one connection between transactions (no ping per transaction); when PostgreSQL
    ended that session meanwhile (a restart, an admin, a timeout), the next batch runs on a new connection
    — nothing is lost, nothing fails."""
    if not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    import psycopg
    from sqlalchemy import text

    def backend_pid(s: Session) -> int:
        return int(s.execute(text("SELECT pg_backend_pid()")).scalar_one())

    with postgres_schema() as url:
        db = Database(url)
        db.migrate()
        db.take_over("test")

        async def main() -> None:
            db.start()
            room = await db.run(store.create_room("654321", "private", None, OPTIONS, 3))
            match = await db.run(store.create_match(room, 7, QQ, 1, [store.MatchSeatRow(None, "greedy", "g")] * 3))
            hand = await db.run(store.create_hand(match, 1, 7, 0, QQ))
            await db.append_action(store.action_row(hand, 1, 0, "pass", "bot"))
            first = await db.run(backend_pid)
            assert await db.run(backend_pid) == first  # the same connection from batch to batch
            with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", autocommit=True) as admin:
                assert admin.execute("SELECT pg_terminate_backend(%s)", (first,)).fetchone() == (True,)
            await db.append_action(store.action_row(hand, 2, 1, "pass", "bot"))
            assert await db.run(backend_pid) != first
            assert await db.run(store.hand_actions(hand)) == [(0, "pass", "bot"), (1, "pass", "bot")]

        try:
            asyncio.run(main())
        finally:
            db.stop()


def test_processes_started_together_on_a_fresh_postgresql_migrate_one_after_the_other() -> None:
    """The shared mode starts several processes on one database: four migrations of a fresh schema at once
    (each its own engine, as each process has) all succeed — an advisory lock makes them take turns, where
    they raced to create the same tables — and leave exactly the models' schema."""
    if not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    import threading

    with postgres_schema() as url:
        databases = [Database(url) for _ in range(4)]
        errors: list[BaseException] = []

        def migrate(db: Database) -> None:
            try:
                db.migrate()
            except BaseException as exc:  # noqa: BLE001 — reported below
                errors.append(exc)

        threads = [threading.Thread(target=migrate, args=(db,)) for db in databases]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        with databases[0].engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        for db in databases:
            db.stop()


def test_a_migration_outlasts_the_sessions_idle_in_transaction_limit() -> None:
    """``paohuzi migrate`` exited 2 once in a loaded test run: its transaction waits on Python between
    statements (alembic loading the scripts after the lock), and one wait passed the 5 s idle-in-transaction
    limit every connection gets, so PostgreSQL ended the session. Here the limit is 100 ms and the wait
    after the lock 0.5 s: the migration raises the limit for its own transaction and goes through."""
    if not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    import time

    from sqlalchemy import event

    from paohuzi.server.db import make_engine
    from paohuzi.server.schema import migrate

    with postgres_schema() as url:
        engine = make_engine(url)

        @event.listens_for(engine, "connect")
        def _short_limit(dbapi_connection: object, _record: object) -> None:
            with dbapi_connection.cursor() as cursor:  # type: ignore[attr-defined]
                cursor.execute("SET idle_in_transaction_session_timeout = 100")
            dbapi_connection.commit()  # type: ignore[attr-defined]

        @event.listens_for(engine, "after_cursor_execute")
        def _slow_after_the_lock(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
            if "pg_advisory_xact_lock" in statement:
                time.sleep(0.5)

        checker = make_engine(url)  # the normal limit: reflecting the schema may pause 100 ms on a loaded machine
        try:
            migrate(engine)
            # The raised limit was the migration's alone: the session's own is as it was (asked outside a
            # transaction, so that this check cannot itself be idle in one).
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                assert conn.exec_driver_sql("SHOW idle_in_transaction_session_timeout").scalar() == "100ms"
            with checker.connect() as conn:
                assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        finally:
            engine.dispose()
            checker.dispose()


def test_a_stale_owner_whose_row_is_already_there_is_told_it_is_fenced(database: Database) -> None:
    """The shared mode: a room's new owner (a newer token in its fence) wrote action 1; the old owner's
    append of its own action 1 is refused as fenced (RoomFenced, the room reported once) — not as a key
    error, which would leave the stale owner unaware (on PostgreSQL the fence check and the insert are one
    statement, and a key error there would come first)."""
    from paohuzi.server.db import RoomFenced, fence_room

    fenced: list[list[int]] = []
    database.stop()  # the schema is there; a process's database is given its observer when it is built
    observed = Database(database.url, on_room_fenced=fenced.append)

    async def main() -> None:
        observed.start()
        room = await observed.run(store.create_room("123457", "private", None, OPTIONS, 3))
        match = await observed.run(store.create_match(room, 7, QQ, 1, [store.MatchSeatRow(None, "greedy", "g")] * 3))
        hand = await observed.run(store.create_hand(match, 1, 7, 0, QQ))
        assert await observed.run(fence_room(room, 5, "old"))
        assert await observed.run(fence_room(room, 6, "new"))
        await observed.for_room(room, 6).append_action(store.action_row(hand, 1, 0, "pass", "player"))
        with pytest.raises(RoomFenced):
            await observed.for_room(room, 5).append_action(store.action_row(hand, 1, 0, "discard x1", "player"))
        assert fenced == [[room]]
        assert await observed.run(store.hand_actions(hand)) == [(0, "pass", "player")]

    try:
        asyncio.run(main())
    finally:
        observed.stop()


def test_appends_are_stored_as_sqlalchemy_stores_them(tmp_path: Path) -> None:
    """Issue 33: on SQLite a batch of appends only is written through sqlite3 itself; its rows are the ones
    the general path writes — ``created_at`` in SQLAlchemy's text (microseconds even when 0) and read back
    as the same instant — and a batch that mixes a job with appends still goes the general way."""
    from datetime import UTC, datetime

    from sqlalchemy import select

    from paohuzi.server.models import ActionRow
    from paohuzi.server.rows import ActionLogRow

    db = Database(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    db.migrate()
    db.take_over("test")
    at = datetime(2026, 12, 6, 3, 4, 5, tzinfo=UTC)

    def read(s: Session) -> list[tuple[int, datetime]]:
        return [(r.seq, r.created_at) for r in s.scalars(select(ActionRow).order_by(ActionRow.seq))]

    async def main() -> None:
        db.start()
        room = await db.run(store.create_room("123458", "private", None, OPTIONS, 3))
        match = await db.run(store.create_match(room, 7, QQ, 1, [store.MatchSeatRow(None, "greedy", "g")] * 3))
        hand = await db.run(store.create_hand(match, 1, 7, 0, QQ))
        await db.append_action(ActionLogRow(hand, 1, 0, "pass", "bot", at))  # appends only: sqlite3
        await asyncio.gather(  # a job and an append in one batch: SQLAlchemy's Core insert
            db.run(store.hand_actions(hand)), db.append_action(ActionLogRow(hand, 2, 1, "pass", "bot", at))
        )
        assert await db.run(read) == [(1, at.replace(tzinfo=None)), (2, at.replace(tzinfo=None))]

    try:
        asyncio.run(main())
    finally:
        db.stop()
    with db.engine.connect() as conn:
        stored = conn.exec_driver_sql("SELECT seq, created_at FROM actions ORDER BY seq").all()
    assert [tuple(r) for r in stored] == [(1, "2026-12-06 03:04:05.000000"), (2, "2026-12-06 03:04:05.000000")]


def test_sqlite_one_statement_append_inserts_only_while_the_writer_fence_holds_the_token(tmp_path: Path) -> None:
    """Issue 33: with the writer's token given, SQLite's append is one statement (its own transaction): the rows
    go in, in order, with the stamp SQLAlchemy writes; another token in the fence (or none) inserts nothing and
    the fence read again is judged (the judge raises); a duplicate row fails the whole statement, nothing of
    the batch written; the connection is left between transactions each time."""
    import sqlite3

    from paohuzi.server.db_appends import sqlite_appends

    db = Database(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    db.migrate()
    db.take_over("one")
    room = db.run_now(store.create_room("123462", "private", None, OPTIONS, 3))
    match = db.run_now(store.create_match(room, 7, QQ, 1, [store.MatchSeatRow(None, "greedy", "g")] * 3))
    hand = db.run_now(store.create_hand(match, 1, 7, 0, QQ))
    token = db.token
    assert token is not None
    db.stop()
    raw = sqlite3.connect(str(tmp_path / "x.sqlite3"), isolation_level=None)
    judged: list[int] = []

    def writer(current: int) -> None:
        judged.append(current)
        if current != token:
            raise RuntimeError(f"fenced: {current}")

    def append(seqs: list[int], with_token: int) -> None:
        rows = [store.action_row(hand, seq, seq % 3, "pass", "bot") for seq in seqs]
        sqlite_appends(raw, rows, writer=writer, rooms=(), judge_rooms=lambda _c: None, token=with_token)

    def stored() -> list[tuple[int, str]]:
        return [(int(r[0]), str(r[1])) for r in raw.execute("SELECT seq, action FROM actions ORDER BY seq")]

    append([1, 2, 3], token)
    assert stored() == [(1, "pass"), (2, "pass"), (3, "pass")] and judged == [] and not raw.in_transaction
    stamp = raw.execute("SELECT created_at FROM actions WHERE seq = 1").fetchone()[0]
    assert len(stamp) == len("2026-12-06 03:04:05.000000")  # SQLAlchemy's text for a DateTime
    with pytest.raises(sqlite3.IntegrityError):  # seq 3 again: the statement fails whole
        append([4, 3], token)
    assert stored() == [(1, "pass"), (2, "pass"), (3, "pass")] and not raw.in_transaction
    raw.execute("UPDATE writer_fence SET token = token + 1 WHERE id = 1")  # another process took the database
    with pytest.raises(RuntimeError, match="fenced"):
        append([4], token)
    assert judged == [token + 1] and stored()[-1] == (3, "pass") and not raw.in_transaction
    raw.execute("DELETE FROM writer_fence")
    with pytest.raises(RuntimeError, match="fenced: -1"):  # no fence row: held by nobody, not by us
        append([4], token)
    raw.close()


def test_sqlite_appends_commit_on_the_event_loop_unless_the_worker_or_a_lock_is_busy(tmp_path: Path) -> None:
    """Issue 33: on a SQLite file the appends are committed on the event loop's thread (no hand-over to the
    worker) while the worker has no job in flight; with one in flight they wait behind it on the worker, and
    while another connection holds the write lock they go to the worker, which waits for the lock — never
    the event loop. Every row is committed before its await returns, in order."""
    import sqlite3
    import time

    db = Database(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    db.migrate()
    db.take_over("test")
    worker = db.workers[0]
    ended: list[float] = []

    def slow(_s: Session) -> None:
        time.sleep(0.2)
        ended.append(time.monotonic())

    def seqs(s: Session) -> list[int]:
        return [int(r[0]) for r in s.execute(text("SELECT seq FROM actions ORDER BY seq"))]

    async def main() -> None:
        db.start()
        room = await db.run(store.create_room("123457", "private", None, OPTIONS, 3))
        match = await db.run(store.create_match(room, 7, QQ, 1, [store.MatchSeatRow(None, "greedy", "g")] * 3))
        hand = await db.run(store.create_hand(match, 1, 7, 0, QQ))
        before = worker.batches
        await asyncio.gather(*(db.append_action(store.action_row(hand, seq, 0, "pass", "bot")) for seq in (1, 2)))
        await db.append_action(store.action_row(hand, 3, 0, "pass", "bot"))
        assert worker.batches == before  # on the loop: the worker ran nothing
        # another connection holds the write lock: the loop does not wait, the worker does
        other = sqlite3.connect(str(tmp_path / "x.sqlite3"), isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        started = time.monotonic()
        append = asyncio.ensure_future(db.append_action(store.action_row(hand, 4, 0, "pass", "bot")))
        await asyncio.sleep(0.1)
        assert not append.done() and time.monotonic() - started < 0.5  # the loop ran on meanwhile
        other.commit()
        other.close()
        await append
        assert worker.batches == before + 1
        # a job in flight on the worker: the append waits behind it, on the worker
        job = asyncio.ensure_future(db.run(slow))
        await asyncio.sleep(0)
        await db.append_action(store.action_row(hand, 5, 0, "pass", "bot"))
        done = time.monotonic()
        await job
        assert ended and ended[0] <= done  # in the job's transaction or the next one
        after = worker.batches
        assert after in {before + 2, before + 3}
        await db.append_action(store.action_row(hand, 6, 0, "pass", "bot"))
        assert worker.batches == after  # idle again: on the loop
        assert await db.run(seqs) == [1, 2, 3, 4, 5, 6]

    try:
        asyncio.run(main())
    finally:
        db.stop()


def test_a_stale_writer_appends_nothing_on_sqlite(tmp_path: Path) -> None:
    """Issue 33: the appends-only batch on SQLite (sqlite3 itself) still reads the writer fence in its
    transaction: once another process took the database over, the old writer's append fails with Fenced
    (it is told once, and stops), nothing is written, and its connection is left usable, not mid-transaction."""
    from paohuzi.server.db import Fenced

    told: list[str] = []
    url = f"sqlite:///{tmp_path / 'x.sqlite3'}"
    old = Database(url, on_fenced=lambda: told.append("fenced"))
    old.migrate()
    old.take_over("old")

    async def main() -> None:
        old.start()
        room = await old.run(store.create_room("123459", "private", None, OPTIONS, 3))
        match = await old.run(store.create_match(room, 7, QQ, 1, [store.MatchSeatRow(None, "greedy", "g")] * 3))
        hand = await old.run(store.create_hand(match, 1, 7, 0, QQ))
        await old.append_action(store.action_row(hand, 1, 0, "pass", "bot"))
        new = Database(url)
        new.take_over("new")
        new.stop()
        with pytest.raises(Fenced):
            await old.append_action(store.action_row(hand, 2, 1, "pass", "bot"))
        with pytest.raises(Fenced):
            await old.append_action(store.action_row(hand, 2, 1, "pass", "bot"))
        assert told == ["fenced"]

    try:
        asyncio.run(main())
    finally:
        old.stop()
    with old.engine.connect() as conn:
        assert [tuple(r) for r in conn.exec_driver_sql("SELECT seq, action FROM actions").all()] == [(1, "pass")]


def test_appends_only_on_postgresql_go_through_psycopg_and_keep_the_fences() -> None:
    """Issue 33: on PostgreSQL a batch of appends only skips SQLAlchemy (psycopg itself: BEGIN, one statement,
    COMMIT in one round trip). Pinned on a real PostgreSQL: the rows written exactly (the instant of an
    aware ``created_at`` whatever its offset, as the general path stores it); a stale room fence or a missing
    one → RoomFenced, a stale writer token → Fenced, each reported once and nothing written; a failed
    statement (a row already there) writes none of its batch; and the worker's connection is left between
    transactions, usable by the next job."""
    if not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    from datetime import UTC, datetime, timedelta, timezone

    import psycopg
    from psycopg.pq import TransactionStatus
    from sqlalchemy import event

    from paohuzi.server.db import Fenced, RoomFenced, fence_room
    from paohuzi.server.db_appends import postgres_appends
    from paohuzi.server.rows import ActionLogRow

    at = datetime(2026, 12, 6, 3, 4, 5, 678901, tzinfo=UTC)
    east = datetime(2026, 12, 6, 11, 4, 6, tzinfo=timezone(timedelta(hours=8)))  # 03:04:06 UTC
    told: list[object] = []
    with postgres_schema() as url:
        db = Database(
            url, connections=1, on_fenced=lambda: told.append("fenced"), on_room_fenced=lambda r: told.append(r)
        )
        db.migrate()
        db.take_over("old")
        seen: list[str] = []  # the statements SQLAlchemy ran on the workers' connections
        event.listen(db.engine, "before_cursor_execute", lambda _c, _cur, statement, *_a: seen.append(statement))

        def stored(s: Session) -> list[tuple[object, ...]]:
            query = 'SELECT hand_id, seq, seat, action, "by", created_at FROM actions ORDER BY hand_id, seq'
            return [tuple(r) for r in s.connection().exec_driver_sql(query)]

        def between_transactions() -> None:
            conn = db.workers[0]._conn
            assert conn is not None and not conn.in_transaction() and not conn.invalidated
            raw = conn.connection.driver_connection
            assert raw is not None and raw.info.transaction_status == TransactionStatus.IDLE

        async def main() -> tuple[int, list[tuple[object, ...]], int, int]:
            db.start()
            room = await db.run(store.create_room("123460", "private", None, OPTIONS, 3))
            other = await db.run(store.create_room("123461", "private", None, OPTIONS, 3))  # no fence row
            match = await db.run(store.create_match(room, 7, QQ, 1, [store.MatchSeatRow(None, "greedy", "g")] * 3))
            hand = await db.run(store.create_hand(match, 1, 7, 0, QQ))
            assert await db.run(fence_room(room, 5, "old"))
            mine = db.for_room(room, 5)
            seen.clear()
            await asyncio.gather(  # one batch of appends only
                mine.append_action(ActionLogRow(hand, 1, 0, "pass", "bot", at)),
                mine.append_action(ActionLogRow(hand, 2, 1, "discard x1", "player", east)),
                mine.append_action(ActionLogRow(hand, 3, 2, "chi x1 x2 x3", "auto", at)),
            )
            assert seen == []  # not one statement through SQLAlchemy
            between_transactions()
            assert await db.run(stored) == [
                (hand, 1, 0, "pass", "bot", at),
                (hand, 2, 1, "discard x1", "player", datetime(2026, 12, 6, 3, 4, 6, tzinfo=UTC)),
                (hand, 3, 2, "chi x1 x2 x3", "auto", at),
            ]
            await asyncio.gather(  # the general path (a job in the batch) stores the same instant
                db.run(store.hand_actions(hand)), mine.append_action(ActionLogRow(hand, 4, 0, "pass", "bot", east))
            )
            assert (await db.run(stored))[-1] == (hand, 4, 0, "pass", "bot", datetime(2026, 12, 6, 3, 4, 6, tzinfo=UTC))
            before = await db.run(stored)

            assert await db.run(fence_room(room, 6, "new"))  # another process took the room over
            with pytest.raises(RoomFenced) as refused:
                await mine.append_action(ActionLogRow(hand, 5, 1, "pass", "bot", at))
            assert refused.value.rooms == [room]
            with pytest.raises(RoomFenced):  # reported once
                await mine.append_action(ActionLogRow(hand, 5, 1, "pass", "bot", at))
            with pytest.raises(RoomFenced) as refused:  # a room with no fence row is not the writer's either
                await db.for_room(other, 1).append_action(ActionLogRow(hand, 5, 1, "pass", "bot", at))
            assert refused.value.rooms == [other]
            assert told == [[room], [other]]
            between_transactions()
            assert await db.run(stored) == before  # nothing written, and the connection took the next job

            new = Database(url)
            new.take_over("new")  # another process took the database over
            new.stop()
            with pytest.raises(Fenced):
                await db.append_action(ActionLogRow(hand, 5, 1, "pass", "bot", at))
            with pytest.raises(Fenced):
                await db.for_room(room, 6).append_action(ActionLogRow(hand, 5, 1, "pass", "bot", at))
            assert told == [[room], [other], "fenced"]
            between_transactions()
            return hand, before, room, other

        try:
            hand, before, room, other = asyncio.run(main())
        finally:
            db.stop()

        # One transaction: a row already there fails the statement, and the batch's new row is not written
        # either; the connection is rolled back, between transactions. Unchecked fences (token None, no
        # rooms: the tools') read nothing.
        schema = url.split("search_path%3D")[1]
        with psycopg.connect(
            "host=127.0.0.1 port=5432 user=postgres dbname=test", options=f"-csearch_path={schema}"
        ) as raw:
            rows = [ActionLogRow(hand, 5, 1, "pass", "bot", at), ActionLogRow(hand, 1, 0, "pass", "bot", at)]
            with pytest.raises(psycopg.errors.UniqueViolation):
                postgres_appends(raw, rows, token=None, writer=told.append, fences=[], judge_rooms=told.append)
            assert raw.info.transaction_status == TransactionStatus.IDLE
            stale = raw.execute("SELECT token FROM writer_fence").fetchone()
            assert stale is not None and int(stale[0]) == 2
            raw.rollback()
            with pytest.raises(Fenced):  # the judge raising: nothing written
                postgres_appends(raw, rows[:1], token=1, writer=db._judge_fence, fences=[], judge_rooms=told.append)
            assert raw.info.transaction_status == TransactionStatus.IDLE
            # the statement's own check, whatever the judges say: two rooms, one of them with no fence row
            with pytest.raises(RuntimeError, match="1 actions to append, 0 appended"):
                postgres_appends(
                    raw, rows[:1], token=2, writer=told.append, fences=[(room, 6), (other, 1)], judge_rooms=told.append
                )
            assert told == [[room], [other], "fenced", 2, {room: 6}]
            postgres_appends(raw, rows[:1], token=2, writer=told.append, fences=[(room, 6)], judge_rooms=told.append)
            assert told == [[room], [other], "fenced", 2, {room: 6}, 2, {room: 6}]
            written = raw.execute("SELECT seq FROM actions WHERE hand_id = %s ORDER BY seq", (hand,)).fetchall()
            assert [int(r[0]) for r in written] == [*(r[1] for r in before), 5]
