"""The action log's appends-only transaction on SQLite, in the sqlite3 driver's own terms (issue 33).

Most of the database thread's transactions are a few action-log appends and nothing else (the appends of
one turn of the event loop, :meth:`paohuzi.server.db.Database.append_action`). Through SQLAlchemy each
such transaction cost its ``begin`` event, the writer fence's ``SELECT`` and the Core insert, each compiled,
bound and wrapped in a result — Python on the database thread, which holds the GIL the event loop waits for
(issue 33's profile: 12 % of the loop's samples were that wait). Here the same statements go to
:mod:`sqlite3` directly: ``BEGIN IMMEDIATE``, the fences read in the transaction, one ``executemany``, the
commit. The rows are the same as SQLAlchemy writes them: ``created_at`` goes through the column type's own
bind processor for SQLite.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, cast

from sqlalchemy import Table
from sqlalchemy.dialects import sqlite

from paohuzi.server.models import ActionRow
from paohuzi.server.rows import ActionLogRow

__all__ = ["sqlite_appends"]

_WRITER = "SELECT token FROM writer_fence WHERE id = 1"
_INSERT = 'INSERT INTO actions (hand_id, seq, seat, action, "by", created_at) VALUES (?, ?, ?, ?, ?, ?)'
# The text SQLAlchemy stores for a ``DateTime`` on SQLite (rows read back through the ORM parse it).
_DIALECT = sqlite.dialect()
_STAMP = cast(
    Callable[[Any], Any],
    cast(Table, ActionRow.__table__).c.created_at.type.dialect_impl(_DIALECT).bind_processor(_DIALECT),
)


def _rooms_query(count: int) -> str:
    return f"SELECT room_id, token FROM room_fences WHERE room_id IN ({', '.join('?' * count)})"


def sqlite_appends(
    raw: sqlite3.Connection,
    rows: Sequence[ActionLogRow],
    *,
    writer: Callable[[int], None] | None,
    rooms: Sequence[int],
    judge_rooms: Callable[[dict[int, int]], None],
) -> None:
    """Append ``rows`` in one transaction of ``raw`` (a connection in autocommit mode, between
    transactions), committed before this returns. ``writer`` judges the writer fence's token read in the
    transaction (None: unchecked); ``judge_rooms`` the tokens of ``rooms`` (the shared mode's room fences).
    Either raising rolls the transaction back, as does any error: nothing is written."""
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
