"""A hand's per-hand statements (issue 33): SQLAlchemy Core built and compiled once, run on SQLite by sqlite3 itself.

A hand's three database jobs — its 双倍积分卡 asked as it is dealt, its row, its settlement — are a dozen small
statements. Through SQLAlchemy each statement costs its execution context, its compiled form's lookup, its
result object, and each job a :class:`~sqlalchemy.orm.Session` and a transaction object: on SQLite about three
times what SQLite itself spends, and at ~30 actions a hand (bench/load.py) a tenth of an action's CPU.

:class:`Statement` keeps the Core statement — the one definition, which PostgreSQL still runs through
SQLAlchemy — and, for SQLite, its SQL text compiled once per set of parameter names, the order of its
parameters and each parameter's bind processor from the column type (so that dates and JSON are stored as
SQLAlchemy stores them, and read back through the ORM alike). Python-side column defaults (``default=utcnow``)
are filled in as SQLAlchemy's execution would. A driver error is raised as SQLAlchemy raises it
(:class:`~sqlalchemy.exc.DBAPIError` and its subclasses), whichever path ran.

:class:`CoreJob` is a job of such statements alone: run with a session like any job (on the database thread),
or, on the event loop's own SQLite connection, with the connection alone — no session, no SQLAlchemy
transaction (:meth:`paohuzi.server.db.Database.run`).
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Generic, TypeVar, cast

from sqlalchemy import Connection, Select
from sqlalchemy.dialects import sqlite
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql.base import Executable
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement

from paohuzi.server.models import core

__all__ = ["CoreJob", "Sql", "Statement", "driver_of"]

T = TypeVar("T")
#: What a per-hand statement runs on: SQLAlchemy's connection (in a transaction), or SQLite's own.
Sql = Connection | sqlite3.Connection
Params = Mapping[str, object]
_Processor = Callable[[object], object]
_DIALECT = sqlite.dialect()  # the pysqlite dialect, as the server's engine (db_engine.make_engine)


class _Form:
    """A statement compiled for SQLite with one set of parameter names."""

    def __init__(self, statement: Executable, keys: Sequence[str]) -> None:
        compiled = cast(SQLCompiler, cast(ClauseElement, statement).compile(dialect=_DIALECT, column_keys=list(keys)))
        self.compiled, self.sql = compiled, compiled.string
        self.expanding = "__[POSTCOMPILE_" in compiled.string  # an ``IN`` of a list: expanded per call
        processors: dict[str, _Processor] = {}
        for name, bind in compiled.binds.items():
            process = bind.type.dialect_impl(_DIALECT).bind_processor(_DIALECT)
            if process is not None:
                if bind.expanding:
                    raise TypeError(f"{name}: a list of values needing a bind processor is not supported")
                processors[name] = process
        self.processors = processors
        self.names = tuple(compiled.positiontup or ())
        # Python-side defaults (``default=``/``onupdate=`` a function or a value): computed per row as SQLAlchemy
        # does (its execution context's "prefetch"); a SQL-side default is the database's own.
        self.defaults: list[tuple[str, Callable[[], object]]] = []
        for column, attribute in [(c, "default") for c in compiled.insert_prefetch] + [
            (c, "onupdate") for c in compiled.update_prefetch
        ]:
            default = getattr(column, attribute)
            if default.is_callable:  # SQLAlchemy's wrapper of the function, which takes the execution context
                self.defaults.append((column.key, functools.partial(default.arg, None)))
            elif default.is_scalar:
                self.defaults.append((column.key, functools.partial(_same, default.arg)))
            else:
                raise TypeError(f"{column.key}: a {type(default).__name__} default is not supported")
        self.results: tuple[_Processor | None, ...] | None = None
        if isinstance(statement, Select):
            columns = statement.selected_columns
            found = tuple(c.type.dialect_impl(_DIALECT).result_processor(_DIALECT, None) for c in columns)
            self.results = found if any(p is not None for p in found) else None

    def bind(self, params: Params) -> tuple[str, tuple[object, ...]]:
        """The SQL and its positional parameters for one row of ``params``."""
        values = self.compiled.construct_params(params)
        for key, make in self.defaults:  # only columns the parameters do not name
            values[key] = make()
        sql, names = self.sql, self.names
        if self.expanding:
            state = self.compiled.construct_expanded_state(values)
            sql, names, values = state.statement, tuple(state.positiontup or ()), dict(state.parameters)
        processors = self.processors
        return sql, tuple(processors[name](values[name]) if name in processors else values[name] for name in names)


class Statement:
    """A Core statement, built once, that runs on SQLite through sqlite3 and elsewhere through SQLAlchemy (its
    SQLite forms compiled at first use). Rows come back as tuples either way."""

    def __init__(self, statement: Executable) -> None:
        self.statement = statement
        self._forms: dict[tuple[str, ...], _Form] = {}

    def _form(self, params: Params) -> _Form:
        keys = tuple(params)
        form = self._forms.get(keys)
        if form is None:
            form = self._forms[keys] = _Form(self.statement, keys)
        return form

    def execute(self, conn: Sql, params: Params) -> None:
        """Run it with one row of parameters."""
        driver = driver_of(conn)
        if driver is None:
            cast(Connection, conn).execute(self.statement, dict(params))
            return
        sql, values = self._form(params).bind(params)
        _run(driver, sql, values)

    def execute_many(self, conn: Sql, rows: Sequence[Params]) -> None:
        """Run it once for each row of parameters (the same names in every row)."""
        if not rows:
            return
        driver = driver_of(conn)
        if driver is None:
            cast(Connection, conn).execute(self.statement, [dict(row) for row in rows])
            return
        form = self._form(rows[0])
        bound = [form.bind(row) for row in rows]
        sql = bound[0][0]
        try:
            driver.executemany(sql, [values for _, values in bound])
        except sqlite3.Error as exc:
            raise DBAPIError.instance(sql, None, exc, sqlite3.Error) from exc

    def all(self, conn: Sql, params: Params) -> list[tuple[object, ...]]:
        """The rows a query returns, as tuples."""
        driver = driver_of(conn)
        if driver is None:
            return [tuple(row) for row in cast(Connection, conn).execute(self.statement, dict(params))]
        form = self._form(params)
        sql, values = form.bind(params)
        rows = _run(driver, sql, values).fetchall()
        if form.results is not None:
            processors = form.results
            rows = [tuple(p(x) if p is not None else x for p, x in zip(processors, row, strict=True)) for row in rows]
        return rows

    def scalars(self, conn: Sql, params: Params) -> list[object]:
        """The first column of each row a query returns."""
        return [row[0] for row in self.all(conn, params)]

    def insert(self, conn: Sql, params: Params) -> int:
        """Insert one row; its new integer primary key."""
        driver = driver_of(conn)
        if driver is None:
            key = cast(Connection, conn).execute(self.statement, dict(params)).inserted_primary_key
            assert key is not None  # an insert's
            return int(key[0])
        sql, values = self._form(params).bind(params)
        row_id = _run(driver, sql, values).lastrowid
        assert row_id is not None  # an insert's
        return row_id


def _same(value: object) -> object:
    return value


def driver_of(conn: Sql) -> sqlite3.Connection | None:
    """SQLite's own connection under ``conn`` when the statements may go to it directly: a sqlite3 connection, or
    SQLAlchemy's on SQLite inside a transaction (its ``BEGIN IMMEDIATE`` sent, db_engine.make_engine); else None."""
    if isinstance(conn, sqlite3.Connection):
        return conn
    if conn.dialect.name != "sqlite" or not conn.in_transaction():
        return None
    driver = conn.connection.driver_connection
    return driver if isinstance(driver, sqlite3.Connection) else None


def _run(driver: sqlite3.Connection, sql: str, values: tuple[object, ...]) -> sqlite3.Cursor:
    try:
        return driver.execute(sql, values)
    except sqlite3.Error as exc:  # as SQLAlchemy raises it: IntegrityError, OperationalError …
        raise DBAPIError.instance(sql, values, exc, sqlite3.Error) from exc


class CoreJob(Generic[T]):
    """A job of :class:`Statement` calls alone (no ORM): a database job like any (``job(session)``: the session's
    pending writes flushed first, its objects expired after, as :func:`~paohuzi.server.models.core` asks), or
    ``job.body(conn)`` on a connection in a transaction — the event loop's SQLite connection, without a session."""

    def __init__(self, body: Callable[[Sql], T]) -> None:
        self.body = body

    def __call__(self, s: Session) -> T:
        result = self.body(core(s))
        s.expire_all()
        return result
