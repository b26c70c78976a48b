"""The action log's appends-only transaction in the driver's own terms (issue 33): SQLite's sqlite3 and
PostgreSQL's psycopg.

Most of the database thread's transactions are a few action-log appends and nothing else (the appends of
one turn of the event loop, :meth:`paohuzi.server.db.Database.append_action`). Through SQLAlchemy each
such transaction cost its ``begin`` event, the writer fence's ``SELECT`` and the Core insert, each compiled,
bound and wrapped in a result — Python on the database thread, which holds the GIL the event loop waits for
(issue 33's profile: 12 % of the loop's samples were that wait). Here the same statements go to
:mod:`sqlite3` directly: ``BEGIN IMMEDIATE``, the fences read in the transaction, one ``executemany``, the
commit — or, on the event loop's connection of one process, one statement that inserts only while the writer
fence holds the process's token (:func:`sqlite_appends`). The rows are the same as SQLAlchemy writes them:
``created_at`` goes through the column type's own bind processor for SQLite.

On PostgreSQL (:func:`postgres_appends`) the whole transaction is one statement, sent in autocommit mode:
a transaction of its own, in one round trip. The statement reads the fences ``FOR SHARE`` (a take-over
waits for it), inserts the rows only if every fence is still the writer's, and returns the tokens it read,
which the same callbacks as on SQLite then judge (raising :class:`~paohuzi.server.db_worker.Fenced` or
``RoomFenced``). A stale writer's transaction so commits nothing: the rows are kept out by the statement's
own check of the very values the callbacks judge, not by a rollback after a second round trip — each round
trip costs the database thread a wait for the GIL behind the busy event loop.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, Table, create_engine
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.pool import StaticPool

from paohuzi.server.models import ActionRow
from paohuzi.server.rows import ActionLogRow

if TYPE_CHECKING:  # psycopg is the server extra's; only its types here
    from psycopg import Connection as PgConnection
    from psycopg.rows import TupleRow

__all__ = ["LoopAppends", "locked", "postgres_appends", "postgres_statement", "postgres_verdict", "sqlite_appends"]

_WRITER = "SELECT token FROM writer_fence WHERE id = 1"
_INSERT = 'INSERT INTO actions (hand_id, seq, seat, action, "by", created_at) VALUES (?, ?, ?, ?, ?, ?)'
# The text SQLAlchemy stores for a ``DateTime`` on SQLite (rows read back through the ORM parse it).
_DIALECT = sqlite.dialect()
SQLALCHEMY_STAMP = cast(
    Callable[[Any], Any],
    cast(Table, ActionRow.__table__).c.created_at.type.dialect_impl(_DIALECT).bind_processor(_DIALECT),
)


def sqlite_stamp(value: datetime) -> str:
    """:data:`SQLALCHEMY_STAMP`'s text (``2026-12-07 00:32:36.256289``: the fields as they are, no zone) made by
    ``isoformat`` in C, a third of its CPU at every append (issue 33; a property test holds them equal)."""
    return value.isoformat(" ", "microseconds")[:26]


_STAMP = sqlite_stamp
# What SQLAlchemy's psycopg dialect makes of a ``DateTime(timezone=True)`` value before binding it (today: the
# datetime as it is, which psycopg sends as a timestamptz), so that both paths store the same instant.
_PG_DIALECT = postgresql.psycopg.dialect()  # type: ignore[no-untyped-call]  # (SQLAlchemy untyped)
_PG_STAMP = cast(
    Callable[[Any], Any] | None,
    cast(Table, ActionRow.__table__).c.created_at.type.dialect_impl(_PG_DIALECT).bind_processor(_PG_DIALECT),
)


def locked(error: BaseException | None) -> bool:
    """SQLite's "database is locked": another connection holds the write lock (the loop's never waits)."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}


def _rooms_query(count: int) -> str:
    return f"SELECT room_id, token FROM room_fences WHERE room_id IN ({', '.join('?' * count)})"


def sqlite_appends(  # noqa: PLR0913 (the rows, the fences and their judges)
    raw: sqlite3.Connection,
    rows: Sequence[ActionLogRow],
    *,
    writer: Callable[[int], None] | None,
    rooms: Sequence[int],
    judge_rooms: Callable[[dict[int, int]], None],
    token: int | None = None,
) -> None:
    """Append ``rows`` in one transaction of ``raw`` (a connection in autocommit mode, between
    transactions), committed before this returns. ``writer`` judges the writer fence's token read in the
    transaction (None: unchecked); ``judge_rooms`` the tokens of ``rooms`` (the shared mode's room fences).
    Either raising rolls the transaction back, as does any error: nothing is written.

    ``token``: the writer token ``writer`` accepts. Given, and with no room fences (one process: the commonest
    transaction of all, an action or two), the transaction is one statement (:func:`_sqlite_insert`): the rows
    go in only where the fence still holds that token, in the statement's own transaction — one call instead
    of four (``BEGIN``, the fence's ``SELECT``, the insert, ``COMMIT``), issue 33. Nothing inserted: the fence
    is read again and judged (``writer`` raises)."""
    if token is not None and writer is not None and not rooms and len(rows) <= _ONE_STATEMENT_ROWS:
        values: list[object] = []
        for r in rows:
            values += (r.hand_id, r.seq, r.seat, r.action, r.by, _STAMP(r.created_at))
        values.append(token)
        if raw.execute(_sqlite_insert(len(rows)), values).rowcount == len(rows):
            return
        found = raw.execute(_WRITER).fetchone()
        writer(int(found[0]) if found is not None else -1)  # raises: another process holds the database
        raise sqlite3.IntegrityError(f"the action log took none of {len(rows)} rows, the writer fence holding")
    raw.execute("BEGIN IMMEDIATE")  # the write lock first, as every transaction of the server (db.make_engine)
    try:
        if writer is not None:
            found = raw.execute(_WRITER).fetchone()
            writer(int(found[0]) if found is not None else -1)
        if rooms:
            current = raw.execute(_rooms_query(len(rooms)), tuple(rooms)).fetchall()
            judge_rooms({int(r): int(t) for r, t in current})
        raw.executemany(_INSERT, [(r.hand_id, r.seq, r.seat, r.action, r.by, _STAMP(r.created_at)) for r in rows])
        raw.commit()
    except BaseException:
        if raw.in_transaction:  # a failed COMMIT (SQLITE_BUSY) leaves it open: the next BEGIN would fail
            raw.rollback()
        raise


_ONE_STATEMENT_ROWS = 500  # 6 parameters a row, well under SQLite's 32,766 (a longer batch takes the long way)


@functools.lru_cache(maxsize=64)
def _sqlite_insert(rows: int) -> str:
    """The one statement of :func:`sqlite_appends` for ``rows`` rows: inserted only while the writer fence holds
    the last parameter (a missing fence row holds nothing)."""
    values = ", ".join(["(?, ?, ?, ?, ?, ?)"] * rows)
    return (
        'INSERT INTO actions (hand_id, seq, seat, action, "by", created_at) '
        f"SELECT * FROM (VALUES {values}) WHERE (SELECT token FROM writer_fence WHERE id = 1) = ?"
    )


class LoopAppends:
    """SQLite: the appends-only transaction run on the event loop's own thread (issue 33), on a connection of
    its own, instead of being handed to the database thread.

    The hand-over cost more than the transaction: the worker's wake-up, its wait for the GIL behind the busy
    event loop, the result's way back through ``call_soon_threadsafe`` — ~0.2 ms of CPU an action at 300
    tables, for a commit that in WAL mode with ``synchronous=NORMAL`` is a ``write`` and no ``fsync`` (tens of
    microseconds). It is tried only when the worker has nothing in flight, and never waits: the connection's
    busy timeout is 0, so when another connection holds the write lock (a tool, the worker) :meth:`append`
    says so at once and the batch goes to the worker as before. The connection never checkpoints
    (``wal_autocheckpoint=0``): a checkpoint calls ``fsync``, which the loop must not wait for; the worker's
    commits (every hand's deal and settlement) checkpoint the WAL as before.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._raw: sqlite3.Connection | None = None
        self._session: Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        raw = self._raw
        if raw is None:
            # check_same_thread off only so that close() may come from the thread that stops the database:
            # the appends themselves come from the one event loop (Database keeps to its thread)
            raw = sqlite3.connect(self.path, timeout=0, isolation_level=None, check_same_thread=False)
            raw.execute("PRAGMA synchronous=NORMAL")  # as the worker's connection (db.make_engine)
            raw.execute("PRAGMA foreign_keys=ON")
            raw.execute("PRAGMA wal_autocheckpoint=0")
            self._raw = raw
        return raw

    def connection(self) -> sqlite3.Connection:
        """The loop's connection (opened at first use), which the per-hand jobs run on too
        (:meth:`paohuzi.server.db.Database.run`, issue 33): one page cache for the loop's transactions."""
        return self._connection()

    def session_connection(self) -> Connection:
        """SQLAlchemy over :meth:`connection`, kept, for the per-hand jobs' statements. No ``begin`` event: the
        caller begins the transaction on the sqlite3 connection first (SQLAlchemy's own begin is nothing)."""
        conn = self._session
        if conn is None or conn.closed or conn.invalidated:
            conn = self._session = create_engine("sqlite://", creator=self._connection, poolclass=StaticPool).connect()
        return conn

    def append(
        self,
        rows: Sequence[ActionLogRow],
        *,
        writer: Callable[[int], None] | None,
        rooms: Sequence[int],
        judge_rooms: Callable[[dict[int, int]], None],
        token: int | None = None,
    ) -> bool:
        """:func:`sqlite_appends` on this connection: True once committed, False when the database was locked
        by another connection (nothing written; the caller hands the batch to the worker).
        :raises: what :func:`sqlite_appends` raises (a judge's refusal, a bad row): nothing written."""
        try:
            sqlite_appends(self._connection(), rows, writer=writer, rooms=rooms, judge_rooms=judge_rooms, token=token)
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF in {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}:
                return False
            raise
        return True

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session.engine.dispose()
            self._session = None
        if self._raw is not None:
            self._raw.close()
            self._raw = None


@functools.lru_cache(maxsize=1024)
def _postgres_query(writer: bool, rows: int, fences: int) -> str:
    """The one statement of :func:`postgres_appends` for ``rows`` rows and ``fences`` room fences: the fences
    read ``FOR SHARE`` (as the general path reads them), the rows inserted only when each fence read is the
    writer's, and what was read and how many rows went in. A missing fence row is stale (NULL is equal to
    nothing), as the callbacks judge it. Each value is a parameter of its own — psycopg dumps a scalar in C,
    a list in Python (six arrays cost more than the rest of the call) — and the text is made once per shape,
    which psycopg then prepares."""
    ctes, checks, out = [], [], ["(SELECT count(*) FROM ins)"]
    if writer:
        ctes.append("writer AS (SELECT token FROM writer_fence WHERE id = 1 FOR SHARE)")
        checks.append("(SELECT token FROM writer) = %s::bigint")
        out.append("(SELECT token FROM writer)")
    if fences:
        pairs = ", ".join(["(%s::integer, %s::bigint)"] * fences)
        ctes.append(f"wanted (room_id, token) AS (VALUES {pairs})")
        ctes.append(
            "rooms AS (SELECT room_id, token FROM room_fences WHERE room_id IN (SELECT room_id FROM wanted) FOR SHARE)"
        )
        checks.append(f"(SELECT count(*) FROM rooms JOIN wanted USING (room_id, token)) = {fences:d}")
        out += [
            "(SELECT array_agg(room_id ORDER BY room_id) FROM rooms)",
            "(SELECT array_agg(token ORDER BY room_id) FROM rooms)",
        ]
    values = ", ".join(["(%s::integer, %s::integer, %s::integer, %s::text, %s::text, %s::timestamptz)"] * rows)
    ctes.append(
        'ins AS (INSERT INTO actions (hand_id, seq, seat, action, "by", created_at)'
        f" SELECT * FROM (VALUES {values}) AS v WHERE {' AND '.join(checks) or 'true'} RETURNING 1)"
    )
    return f"WITH {', '.join(ctes)} SELECT {', '.join(out)}"


def postgres_statement(
    rows: Sequence[ActionLogRow], *, token: int | None, fences: Sequence[tuple[int, int]]
) -> tuple[str, list[object]]:
    """The one statement (and its parameters) that appends ``rows`` on PostgreSQL: ``token``, the writer
    fence's token that must still be there (None: unchecked); ``fences``, the (room, token) pairs that must
    still be there (the shared mode). Sent in autocommit mode it is a transaction of its own."""
    params: list[object] = []  # in the statement's order: the fences, the rows, the writer's token
    for pair in fences:
        params += pair
    stamp = _PG_STAMP
    for r in rows:
        params += (r.hand_id, r.seq, r.seat, r.action, r.by, r.created_at if stamp is None else stamp(r.created_at))
    if token is not None:
        params.append(token)
    return _postgres_query(token is not None, len(rows), len(fences)), params


def postgres_verdict(  # noqa: PLR0913 (the fences and their judges, each named)
    found: Sequence[object],
    rows: int,
    *,
    token: int | None,
    writer: Callable[[int], None],
    fences: Sequence[tuple[int, int]],
    judge_rooms: Callable[[dict[int, int]], None],
) -> None:
    """Judge the row :func:`postgres_statement` returned (the rows inserted, the tokens read): ``writer``
    judges the writer fence's token (when ``token`` was checked), ``judge_rooms`` the rooms' tokens. Either
    raising means nothing was written (the statement's own check kept the rows out)."""
    inserted = cast(int, found[0])
    if token is not None:
        writer(int(cast(int, found[1])) if found[1] is not None else -1)
    if fences:
        ids, tokens = cast(list[int] | None, found[-2]) or [], cast(list[int] | None, found[-1]) or []
        judge_rooms({int(r): int(t) for r, t in zip(ids, tokens, strict=True)})
    if inserted != rows:  # the judges passed what the statement's own check refused: never, unless a bug
        raise RuntimeError(f"{rows} actions to append, {inserted} appended")


def postgres_appends(  # noqa: PLR0913 (the fences and their judges, each named)
    raw: PgConnection[TupleRow],
    rows: Sequence[ActionLogRow],
    *,
    token: int | None,
    writer: Callable[[int], None],
    fences: Sequence[tuple[int, int]],
    judge_rooms: Callable[[dict[int, int]], None],
) -> None:
    """Append ``rows`` in one transaction of ``raw`` (a psycopg connection, not in autocommit mode, between
    transactions: left so), committed before this returns, in one round trip. ``token``: the writer fence's
    token that must still be there (None: unchecked), the token read judged by ``writer``; ``fences``: the
    (room, token) pairs that must still be there (the shared mode), the rooms' tokens read judged by
    ``judge_rooms``. When a judge raises, nothing was written. Any error leaves ``raw`` between transactions
    (rolled back) unless the connection itself broke (``raw.broken``: the caller replaces it)."""
    query, params = postgres_statement(rows, token=token, fences=fences)
    # One statement in autocommit mode is a transaction of its own, committed at its Sync: BEGIN, the fence
    # reads, the insert and COMMIT in one round trip (psycopg's own BEGIN, even pipelined, waits for its
    # answer first: three round trips), and any error rolls it back, leaving the connection idle.
    raw.autocommit = True
    try:
        found = raw.execute(query, params).fetchone()
    finally:
        if not raw.broken and not raw.closed:  # a broken one is invalidated by the caller
            raw.autocommit = False  # as SQLAlchemy left it: its next transaction begins as before
    assert found is not None  # a SELECT without FROM: always one row
    postgres_verdict(found, len(rows), token=token, writer=writer, fences=fences, judge_rooms=judge_rooms)
