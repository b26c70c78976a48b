"""The database engine the server runs on: its URL (psycopg 3 for PostgreSQL) and each connection's settings —
SQLite's WAL mode and ``BEGIN IMMEDIATE`` transactions, PostgreSQL's idle-in-transaction limit. The jobs that
run on it are :mod:`paohuzi.server.db`'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url

__all__ = ["make_engine", "normalize_url"]


def normalize_url(url: str) -> str:
    """Use psycopg 3 for PostgreSQL URLs that name no driver.

    >>> normalize_url("postgresql://postgres@127.0.0.1/test")
    'postgresql+psycopg://postgres@127.0.0.1/test'
    >>> normalize_url("postgres://u@h/db"), normalize_url("sqlite:///x.db")
    ('postgresql+psycopg://u@h/db', 'sqlite:///x.db')
    """
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def make_engine(url: str, pool_size: int = 5) -> Engine:
    """An engine for ``url``; creates the folder of a SQLite file. ``pool_size``: PostgreSQL's pool, which
    must hold every worker's connection and a few more (start-up, health checks)."""
    url = normalize_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            # The driver begins a transaction only at a job's first write, so what the job read before it
            # could be stale by then; every transaction begins here instead (``_immediate``).
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        event.listen(engine, "begin", _immediate)
        return engine
    engine = create_engine(url, pool_pre_ping=True, pool_size=pool_size)

    @event.listens_for(engine, "connect")
    def _timeouts(dbapi_connection: Any, _record: Any) -> None:
        # A process frozen inside a transaction (SIGSTOP) must not hold the writer fence's row lock for
        # ever: PostgreSQL ends such a session after 5 s, and the next owner's take-over goes through.
        cursor = dbapi_connection.cursor()
        cursor.execute("SET idle_in_transaction_session_timeout = 5000")
        cursor.close()
        dbapi_connection.commit()

    return engine


def _immediate(connection: Connection) -> None:
    """Every SQLite transaction's ``begin``: the write lock from the first statement, so that its reads stay
    true until it commits, as a wallet change needs (read, check, write; issue 27, paohuzi.server.wallet)."""
    connection.exec_driver_sql("BEGIN IMMEDIATE")
