"""Issue 33: a hand's per-hand statements run on SQLite by sqlite3 itself (``paohuzi.server.statements``) write and
read exactly what SQLAlchemy's execution of the same Core statements writes and reads — dates and JSON through the
column types' own processors, Python-side defaults filled in, lists expanded — and fail as SQLAlchemy fails."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Connection, select
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from paohuzi.rules import find_preset
from paohuzi.server import double_cards, ledger_store, store, wallet
from paohuzi.server.db import Database
from paohuzi.server.db_appends import SQLALCHEMY_STAMP, sqlite_stamp
from paohuzi.server.models import Base, CardActivation
from paohuzi.server.statements import CoreJob, Statement, driver_of
from tests.server.test_db_loop_jobs import OPTIONS, _rows
from tests.support.databases import postgres_available, postgres_schema

QQ = find_preset("qq")
AT = datetime(2026, 12, 6, 23, 59, 58, 123456, tzinfo=UTC)


def _seeded(path: Path | str) -> tuple[Database, list[int], int]:
    """A database (a SQLite file, or a URL) with three players (the first holding an active 双倍积分卡) at a
    match."""
    db = Database(path if isinstance(path, str) else f"sqlite:///{path}")
    db.migrate()
    db.take_over("test")
    players = [db.run_now(store.create_player(f"{i:032x}", f"p{i}")).id for i in range(3)]  # the same rows in each
    db.run_now(lambda s: wallet.add(s, players[0], "double_cards", 1))
    refused, _ = db.run_now(double_cards.activate(players[0], timedelta(days=1).total_seconds()))
    assert refused is None
    room = db.run_now(store.create_room("123456", "private", players[0], OPTIONS, 3))
    seats = [store.MatchSeatRow(pid, None, f"p{i}") for i, pid in enumerate(players)]
    return db, players, db.run_now(store.create_match(room, 7, QQ, 10**6, seats))


def _steps(players: list[int], match: int, hand: int) -> list[tuple[Statement, str, Any]]:
    """Every per-hand statement of the server with parameters as its jobs give them: (statement, how, params)."""
    ledger = [
        {
            "player_id": pid,
            "hand_id": hand,
            "currency": "beans",
            "reason": "hand",
            "amount": 5 - i,
            "balance_after": 1000 + i,
            "created_at": AT,
        }
        for i, pid in enumerate(players)
    ]
    return [
        (
            store._FINISH_HAND,
            "one",
            {"b_id": hand, "b_outcome": {"winner": 0, "名堂": ["天胡"]}, "b_record": {"a": [[0, "pass"]]}, "b_at": AT},
        ),
        (store._MATCH_SCORES, "one", {"b_id": match, "b_s": [12, -3, -3]}),
        (
            store._SEAT_SCORE,
            "many",
            [{"b_match": match, "b_seat": i, "b_score": x} for i, x in enumerate([12, -3, -3])],
        ),
        (
            store._PLAYER_RESULT,
            "many",
            [{"b_id": pid, "b_delta": 4 - 2 * i, "b_won": int(i == 0)} for i, pid in enumerate(players)],
        ),
        (
            ledger_store._WALLET,
            "many",
            [{"b_id": pid, "b_beans": 7, "b_cards": 1, "b_level": i or None} for i, pid in enumerate(players)],
        ),
        (ledger_store._INSERT_LEDGER, "many", ledger),
        (ledger_store._BALANCES, "all", {"b_ids": players[::-1]}),
        (double_cards._ACTIVE, "all", {"b_ids": players, "b_at": datetime.now(UTC)}),
        (double_cards._DAILY, "all", {"b_ids": players[:2], "b_since": AT - timedelta(days=1)}),
    ]


def _by_sqlalchemy(conn: Connection, statement: Statement, how: str, params: Any) -> object:
    result = conn.execute(statement.statement, params)
    return [tuple(row) for row in result] if how == "all" else None


def _by_statement(conn: Connection, statement: Statement, how: str, params: Any) -> object:
    if how == "one":
        return statement.execute(conn, params)
    if how == "many":
        return statement.execute_many(conn, params)
    return statement.all(conn, params)


def _tables(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the tables a hand's jobs write, read back through SQLAlchemy (dates by their type)."""
    found = {}
    with db.engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            if table.name in {"hands", "ledger", "players", "matches", "match_seats", "card_activations"}:
                rows = conn.execute(select(table).order_by(*table.primary_key)).all()
                found[table.name] = [
                    tuple(type(x).__name__ if isinstance(x, datetime) else x for x in row) for row in rows
                ]
    return found


def _write_and_read(db: Database, players: list[int], match: int, path: str) -> list[object]:
    """A hand's row and every per-hand statement in one transaction, through SQLAlchemy or :class:`Statement`."""
    with db.engine.begin() as conn:
        row = {"match_id": match, "number": 1, "seed": 7, "dealer": 0, "rules": QQ.to_dict(),
               "double_cards": None, "fair": {"commitment": "ab"}}  # fmt: skip
        if path == "sqlalchemy":
            key = conn.execute(store._NEW_HAND.statement, row).inserted_primary_key
            assert key is not None
            hand = int(key[0])
        else:
            assert driver_of(conn) is not None  # the statements below go to the driver
            hand = store._NEW_HAND.insert(conn, row)
        run = _by_sqlalchemy if path == "sqlalchemy" else _by_statement
        return [hand] + [run(conn, st, how, params) for st, how, params in _steps(players, match, hand)]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_statements_write_and_read_what_sqlalchemy_does(tmp_path: Path, backend: str) -> None:
    """The same statements with the same parameters, once through SQLAlchemy's ``Connection.execute`` and once
    through :class:`Statement` on the driver (sqlite3, psycopg): the same rows in every table and the same rows
    read; on SQLite the same text too (dates as SQLAlchemy writes them, the hand's ``started_at`` a Python-side
    default)."""
    if backend == "postgresql" and not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    written, read, text = {}, {}, {}
    for path in ("sqlalchemy", "statement"):
        with contextlib.ExitStack() as stack:
            url = stack.enter_context(postgres_schema()) if backend == "postgresql" else tmp_path / f"{path}.sqlite3"
            db, players, match = _seeded(url)
            stack.callback(db.engine.dispose)
            read[path] = _write_and_read(db, players, match, path)
            written[path] = _tables(db)
            if backend == "sqlite":
                text[path] = _rows(db)
    assert written["statement"] == written["sqlalchemy"]
    assert read["statement"] == read["sqlalchemy"]
    assert text.get("statement") == text.get("sqlalchemy")
    hands = written["statement"]["hands"]
    assert len(hands) == 1 and "finished" in hands[0] and {"winner": 0, "名堂": ["天胡"]} in hands[0]
    assert [r[-1] for r in written["statement"]["ledger"][-3:]] == ["datetime"] * 3
    balances, active, daily = read["statement"][-3:]
    assert [b[0] for b in balances] == sorted(players) and [b[1] for b in balances] == [1007] * 3  # type: ignore[index,union-attr]
    assert active == [(players[0],)] and daily == []
    if backend == "sqlite":
        assert text["statement"]["hands"][0][7] == "null" and text["statement"]["hands"][0][11:] == (26, 26)


def test_a_statement_fails_as_sqlalchemy_does_and_leaves_the_transaction_to_its_caller(tmp_path: Path) -> None:
    """A constraint broken through sqlite3 (a hand of no match, a ledger row of no player) raises SQLAlchemy's
    ``IntegrityError`` (the server's handlers catch
    SQLAlchemy's errors, whichever path ran), its ``orig`` the driver's; the transaction is the caller's to roll
    back. A sqlite3 connection given directly takes the same path."""
    db, players, match = _seeded(tmp_path / "x.sqlite3")
    try:
        hand = db.run_now(store.create_hand(match, 1, 7, 0, QQ))
        with pytest.raises(IntegrityError) as caught, db.engine.begin() as conn:
            store._NEW_HAND.insert(
                conn,
                {
                    "match_id": 10**9,
                    "number": 1,
                    "seed": 7,
                    "dealer": 0,
                    "rules": {},
                    "double_cards": None,
                    "fair": None,
                },
            )
        assert isinstance(caught.value.orig, sqlite3.IntegrityError)
        raw = sqlite3.connect(tmp_path / "x.sqlite3", isolation_level=None)
        raw.execute("PRAGMA foreign_keys=ON")  # as the event loop's connection (db_appends.LoopAppends)
        raw.execute("BEGIN IMMEDIATE")
        assert double_cards._ACTIVE.scalars(raw, {"b_ids": players, "b_at": datetime.now(UTC)}) == [players[0]]
        with pytest.raises(IntegrityError):
            ledger_store._INSERT_LEDGER.execute(
                raw,
                {
                    "player_id": 10**9,
                    "hand_id": hand,
                    "currency": "beans",
                    "reason": "hand",
                    "amount": 1,
                    "balance_after": 1,
                    "created_at": AT,
                },
            )
        raw.rollback()
        raw.close()
    finally:
        db.engine.dispose()


def test_a_core_job_runs_with_a_session_or_on_a_connection_alone(tmp_path: Path) -> None:
    """:class:`CoreJob`: the same body, called with a session (the database thread's way) or its ``body`` with a
    sqlite3 connection in a transaction (the event loop's), gives the same answer."""
    db, players, _ = _seeded(tmp_path / "x.sqlite3")
    try:
        job = double_cards.active_players(players)
        assert isinstance(job, CoreJob)
        assert db.run_now(job) == {players[0]}
        raw = sqlite3.connect(tmp_path / "x.sqlite3", isolation_level=None)
        raw.execute("BEGIN IMMEDIATE")
        assert job.body(raw) == {players[0]}
        raw.rollback()
        raw.close()
    finally:
        db.engine.dispose()


def test_a_statement_on_postgresql_fails_as_sqlalchemy_does_and_a_lost_connection_is_invalidated() -> None:
    """Through psycopg: a broken constraint raises SQLAlchemy's ``IntegrityError``; a connection the server lost
    (its backend terminated) raises a ``DBAPIError`` marked ``connection_invalidated`` and SQLAlchemy's
    connection is invalidated — the pool does not hand it out again — as SQLAlchemy's own execution does."""
    if not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    with postgres_schema() as url:
        db, players, match = _seeded(url)
        try:
            bad = {"match_id": 10**9, "number": 1, "seed": 7, "dealer": 0, "rules": {}, "double_cards": None}
            with pytest.raises(IntegrityError) as caught, db.engine.begin() as conn:
                store._NEW_HAND.insert(conn, {**bad, "fair": None})
            assert type(caught.value.orig).__module__.startswith("psycopg")
            with db.engine.connect() as conn:
                conn.begin()
                assert double_cards._ACTIVE.scalars(conn, {"b_ids": players, "b_at": datetime.now(UTC)}) == [players[0]]
                pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
                with db.engine.connect() as other:
                    other.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
                with pytest.raises(DBAPIError) as lost:
                    double_cards._ACTIVE.scalars(conn, {"b_ids": players, "b_at": datetime.now(UTC)})
                assert lost.value.connection_invalidated and conn.invalidated
        finally:
            db.engine.dispose()


def test_a_core_job_batched_after_a_session_job_sees_its_writes_in_the_same_transaction(tmp_path: Path) -> None:
    """On the database thread a :class:`CoreJob` needs no session: batched behind a job whose ORM writes are still
    pending in the batch's session, it runs after they are flushed — it reads them — and in the same transaction."""
    db = Database(f"sqlite:///{tmp_path / 'x.sqlite3'}", loop_appends=False)
    db.migrate()
    db.take_over("test")
    pid = db.run_now(store.create_player("0" * 32, "p0")).id
    entered, gate = threading.Event(), threading.Event()

    def block(s: Session) -> None:
        entered.set()
        gate.wait(10)

    def add_card(s: Session) -> None:
        now = datetime.now(UTC)
        s.add(CardActivation(player_id=pid, started_at=now, expires_at=now + timedelta(hours=1)))  # pending

    async def main() -> set[int]:
        db.start()
        blocker = asyncio.ensure_future(db.run(block))
        assert await asyncio.to_thread(entered.wait, 10)  # the worker is inside the blocker
        added = asyncio.ensure_future(db.run(add_card))
        seen = asyncio.ensure_future(db.run(double_cards.active_players([pid])))
        await asyncio.sleep(0.1)
        before = db.workers[0].batches
        gate.set()
        await asyncio.gather(blocker, added)
        found = await seen
        assert db.workers[0].batches == before + 2  # the blocker's transaction, then one for both jobs
        return found

    try:
        assert asyncio.run(main()) == {pid}
    finally:
        db.stop()


@given(st.datetimes(timezones=st.none() | st.timezones()))
def test_the_appends_stamp_is_sqlalchemys_text_for_any_date(value: datetime) -> None:
    """The action log's ``created_at`` on SQLite (``db_appends.sqlite_stamp``, ``isoformat`` in C) is exactly the
    text SQLAlchemy's ``DateTime`` stores, naive or in any zone (its fields as they are)."""
    assert sqlite_stamp(value) == SQLALCHEMY_STAMP(value)


def test_a_statement_the_driver_path_cannot_bind_as_sqlalchemy_does_is_refused_by_name() -> None:
    """A list of values whose type needs a bind processor (dates in an ``IN``) cannot be expanded exactly as
    SQLAlchemy would: it is refused when first compiled, naming the parameter — never sent differently."""
    from sqlalchemy import bindparam

    dates = Statement(select(CardActivation.id).where(CardActivation.started_at.in_(bindparam("b_at", expanding=True))))
    raw = sqlite3.connect(":memory:")
    with pytest.raises(TypeError, match="b_at: a list of values needing a bind processor"):
        dates.all(raw, {"b_at": [AT]})
    raw.close()


_HAND_ROW = {"match_id": 3, "number": 1, "seed": 7, "dealer": 0, "rules": QQ.to_dict(), "double_cards": [1],
             "fair": {"commitment": "ab"}}  # fmt: skip


@given(
    ids=st.lists(st.integers(1, 2**40), max_size=6),
    hand=st.integers(1, 2**40),
    backend=st.sampled_from(["sqlite", "postgresql"]),
)
def test_a_statements_plan_binds_what_sqlalchemys_compiler_binds(ids: list[int], hand: int, backend: str) -> None:
    """Issue 33: a per-hand statement's parameters are bound by a plan made once per shape (the ``IN`` lists'
    lengths); for every statement, on both backends, for lists of any length (none included), the SQL and the
    driver's parameters are exactly what SQLAlchemy's compiler gives the same call (``bind_by_compiler``)."""
    players = ids or [5]
    cases: list[tuple[Statement, list[dict[str, Any]]]] = [(store._NEW_HAND, [_HAND_ROW])]
    for statement, how, params in _steps(players, 9, hand):
        rows = params if how == "many" else [params]
        if statement in (ledger_store._BALANCES, double_cards._ACTIVE, double_cards._DAILY):
            rows = [{**row, "b_ids": ids} for row in rows]
        cases.append((statement, rows))
    for shared, rows in cases:
        statement = Statement(shared.statement)  # its own forms: the default made fixed below
        for row in rows:
            form = statement._form(backend, row)
            form.defaults = [(key, lambda: AT) for key, _ in form.defaults]  # started_at: the same on both sides
            assert _plain(form.bind(row)) == _plain(form.bind_by_compiler(row))


def _plain(bound: tuple[str, Any]) -> tuple[str, Any]:
    """psycopg's ``Json`` wrappers (PostgreSQL's JSON parameters) as what they wrap and the function dumping it."""
    from psycopg.types.json import Json

    def plain(value: object) -> object:
        return ("json", value.obj, value.dumps) if isinstance(value, Json) else value

    sql, values = bound
    if isinstance(values, dict):
        return sql, {k: plain(v) for k, v in values.items()}
    return sql, tuple(plain(v) for v in values)


def test_a_statement_rendering_a_value_into_its_sql_is_bound_by_the_compiler_each_call() -> None:
    """A ``literal_execute`` parameter is written into the SQL text itself: such a statement has no plan (one
    would keep the first call's value), and each call gets its own text, as from SQLAlchemy."""
    from sqlalchemy import Integer, bindparam

    statement = Statement(select(bindparam("b_n", type_=Integer, literal_execute=True)))
    raw = sqlite3.connect(":memory:")
    try:
        assert statement.all(raw, {"b_n": 5}) == [(5,)]
        assert statement.all(raw, {"b_n": 7}) == [(7,)]
        assert statement._form("sqlite", {"b_n": 7}).literal
    finally:
        raw.close()
