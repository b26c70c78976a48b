"""A player's wallet — 欢乐豆 (``beans``), 积分 (``points``), 双倍积分卡 held (``double_cards``) — changed
safely under concurrency (issue 27): several server processes (the shared mode), or a process and a tool,
may change the same player's wallet at once.

Every job that reads a balance to decide a change (a loser pays at most what it holds, relief only for the
broke and twice a day, a card only if one is held) first :func:`lock`\\ s the players' rows: on PostgreSQL
``SELECT … FOR UPDATE``, so that the decision and the write see the same balance and a second change waits
for the first to commit; on SQLite every transaction already holds the database's write lock from its
first statement (``BEGIN IMMEDIATE``, :func:`paohuzi.server.db.make_engine`). The change itself is an
increment (:func:`add`: ``SET beans = beans + :delta … RETURNING beans``), never a balance written back,
and the ledger row carries the balance the database returned.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from sqlalchemy import Connection, Table, bindparam, select, update
from sqlalchemy.orm import Session

from paohuzi.server.models import Player, core
from paohuzi.server.statements import Sql

__all__ = ["lock", "lock_rows", "add"]

_COLUMNS = {"beans": Player.beans, "points": Player.points, "double_cards": Player.double_cards}


def lock(s: Session, player_ids: Iterable[int]) -> None:
    """Hold these players' rows until the transaction ends (PostgreSQL ``FOR UPDATE``, in id order, so
    that two transactions locking some of the same players never wait on each other in a cycle). On
    SQLite the transaction holds the write lock already: nothing to do."""
    if s.get_bind().dialect.name == "postgresql":
        lock_rows(core(s), player_ids)


def lock_rows(conn: Sql, player_ids: Iterable[int]) -> None:
    """:func:`lock` in a job of Core statements alone (:class:`~paohuzi.server.statements.CoreJob`)."""
    wanted = sorted(set(player_ids))
    if wanted and isinstance(conn, Connection) and conn.dialect.name == "postgresql":
        conn.execute(_LOCK, {"b_ids": wanted}).all()


_PLAYERS = cast(Table, Player.__table__)
# built once, one compiled form whatever the number of players (issue 33)
_LOCK = select(_PLAYERS.c.id).where(_PLAYERS.c.id.in_(bindparam("b_ids", expanding=True)))
_LOCK = _LOCK.order_by(_PLAYERS.c.id).with_for_update()


def add(s: Session, player_id: int, column: str, delta: int) -> int:
    """``column`` (beans, points or double_cards) of the player goes up by ``delta`` in one statement;
    the balance after it. :raises KeyError: for another column."""
    target = _COLUMNS[column]
    stmt = update(Player).where(Player.id == player_id).values({target: target + delta}).returning(target)
    return int(s.execute(stmt).scalar_one())
