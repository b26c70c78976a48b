"""A hand's per-hand statements (issue 33): SQLAlchemy Core built and compiled once, run by the driver itself.

A hand's three database jobs — its 双倍积分卡 asked as it is dealt, its row, its settlement — are a dozen small
statements. Through SQLAlchemy each statement costs its execution context, its compiled form's lookup, its
result object, and each job a :class:`~sqlalchemy.orm.Session` and a transaction object: on SQLite about three
times what SQLite itself spends, and at ~30 actions a hand (bench/load.py) a tenth of an action's CPU.

:class:`Statement` keeps the Core statement — the one definition — and, per backend (SQLite's sqlite3,
PostgreSQL's psycopg), its SQL text compiled once per set of parameter names by SQLAlchemy's own dialect, and
each parameter's bind processor from the column type, so that dates and JSON are sent exactly as SQLAlchemy
sends them (and read back through the ORM alike). Python-side column defaults (``default=utcnow``) are filled in
as SQLAlchemy's execution would. A driver error is raised as SQLAlchemy raises it
(:class:`~sqlalchemy.exc.DBAPIError` and its subclasses, a lost PostgreSQL connection invalidated), whichever path
ran. Any other connection runs the statement through SQLAlchemy.

:class:`CoreJob` is a job of such statements alone: run with a session like any job (on the database thread),
or, on the event loop's own SQLite connection, with the connection alone — no session, no SQLAlchemy
transaction (:meth:`paohuzi.server.db.Database.run`).
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Mapping, Sequence, Sized
from typing import Any, Generic, TypeVar, cast

from sqlalchemy import Connection, Insert, Select, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError, StatementError
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
_Bound = tuple[object, ...] | dict[str, object]  # qmark (sqlite3) or pyformat (psycopg) parameters


@functools.cache
def _dialect(name: str) -> Dialect:
    """SQLAlchemy's dialect of the server's engine for ``name`` (db_engine.make_engine): pysqlite, psycopg."""
    if name == "sqlite":
        return sqlite.dialect()
    return cast(Dialect, postgresql.psycopg.dialect())  # type: ignore[no-untyped-call]  # (SQLAlchemy untyped)


class _Form:
    """A statement compiled for one backend with one set of parameter names."""

    def __init__(self, statement: Executable, keys: Sequence[str], backend: str) -> None:
        dialect = self.dialect = _dialect(backend)
        compiled = cast(SQLCompiler, cast(ClauseElement, statement).compile(dialect=dialect, column_keys=list(keys)))
        self.compiled, self.sql = compiled, compiled.string
        self.expanding = "__[POSTCOMPILE_" in compiled.string  # an ``IN`` of a list: expanded per call
        processors: dict[str, _Processor] = {}
        for name, bind in compiled.binds.items():
            process = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if process is not None:
                if bind.expanding:
                    raise TypeError(f"{name}: a list of values needing a bind processor is not supported")
                processors[name] = process
        self.processors = processors
        self.positional = compiled.positional
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
        # an ``IN`` of a list: its bind's key; the plans (``bind``) by the lists' lengths
        self.lists = tuple(name for name, bind in compiled.binds.items() if bind.expanding)
        self._plans: dict[tuple[int, ...], tuple[str, list[_Entry]]] = {}
        # values rendered into the SQL text itself (``literal_execute``): no plan, each call bound by the compiler
        self.literal = bool(compiled.literal_execute_params)
        self.results: tuple[_Processor | None, ...] | None = None
        if isinstance(statement, Select):
            columns = statement.selected_columns
            found = tuple(c.type.dialect_impl(dialect).result_processor(dialect, None) for c in columns)
            self.results = found if any(p is not None for p in found) else None

    def bind(self, params: Params) -> tuple[str, _Bound]:
        """The SQL and the driver's parameters for one row of ``params``: by the plan for their shape."""
        if self.literal:
            return self.bind_by_compiler(params)
        shape = tuple(len(cast(Sized, params[k])) for k in self.lists) if self.lists else ()
        plan = self._plans.get(shape)
        if plan is None:
            plan = self._plans[shape] = self._plan(params)
        sql, entries = plan
        values: list[object] = []
        for _, kind, key, arg, process in entries:
            if kind == _PARAM:
                value = params[key]
            elif kind == _ITEM:
                value = cast(Sequence[object], params[key])[arg]
            elif kind == _CONSTANT:
                values.append(arg)  # processed when the plan was made
                continue
            else:  # _DEFAULT
                value = arg()
            values.append(process(value) if process is not None else value)
        if self.positional:
            return sql, tuple(values)
        return sql, {entry[0]: value for entry, value in zip(entries, values, strict=True)}

    def _plan(self, params: Params) -> tuple[str, list[_Entry]]:
        """Where each of the driver's parameters comes from, found once per shape of the parameters (the lists'
        lengths) by SQLAlchemy's own compiler run on stand-ins (:class:`_Slot`): a parameter of the call (an
        ``IN`` list's item by its index), a constant of the statement, a Python-side default computed per call;
        each with its bind processor. :meth:`bind` then does only that (tests/server/test_statements.py holds
        the two to the same output)."""
        probe = {
            k: [_Slot(k, i) for i in range(len(cast(Sized, v)))] if k in self.lists else _Slot(k)
            for k, v in params.items()
        }
        makers = dict(self.defaults)
        sql, names, values = self._compiled_call(probe)
        entries: list[_Entry] = []
        for name in names:
            value, process = values[name], self.processors.get(name)
            if name in makers:
                entries.append((name, _DEFAULT, "", makers[name], process))
            elif isinstance(value, _Slot):
                entries.append((name, _PARAM if value.index < 0 else _ITEM, value.key, value.index, process))
            else:  # a constant of the statement (``status="playing"``): processed once
                entries.append((name, _CONSTANT, "", process(value) if process is not None else value, None))
        return sql, entries

    def bind_by_compiler(self, params: Params) -> tuple[str, _Bound]:
        """The SQL and parameters as SQLAlchemy's compiler makes them for this call — ``construct_params``,
        Python-side defaults, the ``IN`` lists expanded, bind processors: how a plan is found, and how a
        statement that renders values into its SQL (``literal_execute``) is bound each time."""
        sql, names, values = self._compiled_call(params)
        processors = self.processors
        bound = [(n, processors[n](values[n]) if n in processors else values[n]) for n in names]
        if self.positional:
            return sql, tuple(value for _, value in bound)
        return sql, dict(bound)

    def _compiled_call(self, params: Params) -> tuple[str, Sequence[str], Mapping[str, Any]]:
        """(SQL, the driver's parameter names in order, their values before processing) by the compiler."""
        values = self.compiled.construct_params(params)
        for key, make in self.defaults:  # only columns the parameters do not name
            values[key] = make()
        if self.expanding:
            state = self.compiled.construct_expanded_state(values)
            values = dict(state.parameters)
            names = tuple(state.positiontup or ()) if self.positional else tuple(values)
            return state.statement, names, values
        return self.sql, self.names if self.positional else tuple(values), values


class _Slot:
    """A stand-in for a call's parameter ``key`` (or the ``index``-th item of its list) while a plan is made."""

    __slots__ = ("index", "key")

    def __init__(self, key: str, index: int = -1) -> None:
        self.key, self.index = key, index

    def __repr__(self) -> str:
        return f"<parameter {self.key}[{self.index}]>"


# A plan's entry: (the driver's parameter name, where the value comes from, the call's parameter key, the
# list item's index / the constant / the default's function, the bind processor or None).
_Entry = tuple[str, int, str, Any, "_Processor | None"]
_PARAM, _ITEM, _CONSTANT, _DEFAULT = range(4)


class Statement:
    """A Core statement, built once, that runs on SQLite through sqlite3, on PostgreSQL through psycopg, and on
    anything else through SQLAlchemy (each backend's forms compiled at first use). Rows come back as tuples."""

    def __init__(self, statement: Executable) -> None:
        self.statement = statement
        self._forms: dict[tuple[str, tuple[str, ...]], _Form] = {}
        self._returning: Statement | None = None

    def _form(self, backend: str, params: Params) -> _Form:
        key = (backend, tuple(params))
        form = self._forms.get(key)
        if form is None:
            form = self._forms[key] = _Form(self.statement, key[1], backend)
        return form

    def execute(self, conn: Sql, params: Params) -> None:
        """Run it with one row of parameters."""
        driver = driver_of(conn)
        if driver is None:
            cast(Connection, conn).execute(self.statement, dict(params))
            return
        form = self._form(driver.backend, params)
        driver.run(conn, *form.bind(params))

    def execute_many(self, conn: Sql, rows: Sequence[Params]) -> None:
        """Run it once for each row of parameters (the same names in every row)."""
        if not rows:
            return
        driver = driver_of(conn)
        if driver is None:
            cast(Connection, conn).execute(self.statement, [dict(row) for row in rows])
            return
        form = self._form(driver.backend, rows[0])
        bound = [form.bind(row) for row in rows]
        driver.run_many(conn, bound[0][0], [values for _, values in bound])

    def all(self, conn: Sql, params: Params) -> list[tuple[object, ...]]:
        """The rows a query returns, as tuples."""
        driver = driver_of(conn)
        if driver is None:
            return [tuple(row) for row in cast(Connection, conn).execute(self.statement, dict(params))]
        form = self._form(driver.backend, params)
        rows = [tuple(row) for row in driver.run(conn, *form.bind(params)).fetchall()]
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
        if driver.backend == "sqlite":
            row_id = driver.run(conn, *self._form("sqlite", params).bind(params)).lastrowid
            assert row_id is not None  # an insert's
            return row_id
        if self._returning is None:
            insert = cast(Insert, self.statement)
            self._returning = Statement(insert.returning(*cast(Table, insert.table).primary_key))
        return int(cast(int, self._returning.all(conn, params)[0][0]))


class _Driver:
    """One backend's driver as the statements use it: its connection under SQLAlchemy's, its errors as SQLAlchemy's."""

    def __init__(self, backend: str, error: type[Exception]) -> None:
        self.backend, self.error = backend, error

    def connection(self, conn: Sql) -> sqlite3.Connection:  # the DB-API's shape; psycopg's has the same methods
        if isinstance(conn, sqlite3.Connection):
            return conn
        return cast(sqlite3.Connection, conn.connection.driver_connection)

    def run(self, conn: Sql, sql: str, values: _Bound) -> sqlite3.Cursor:
        try:
            return self.connection(conn).cursor().execute(sql, values)
        except self.error as exc:
            raise self._raised(conn, sql, values, exc) from exc

    def run_many(self, conn: Sql, sql: str, rows: list[_Bound]) -> None:
        try:
            self.connection(conn).cursor().executemany(sql, rows)  # psycopg's connection has no executemany
        except self.error as exc:
            raise self._raised(conn, sql, None, exc) from exc

    def _raised(self, conn: Sql, sql: str, values: _Bound | None, exc: Exception) -> StatementError:
        """SQLAlchemy's error for the driver's, as its own execution raises it: a lost connection invalidated."""
        gone = False
        if isinstance(conn, Connection):
            gone = conn.dialect.is_disconnect(cast(Any, exc), conn.connection.driver_connection, None)
            if gone:
                conn.invalidate(exc)
        return DBAPIError.instance(sql, values, exc, self.error, connection_invalidated=gone)


_SQLITE = _Driver("sqlite", sqlite3.Error)


@functools.cache
def _postgres() -> _Driver:
    import psycopg  # the server extra's, present wherever a PostgreSQL engine was made

    return _Driver("postgresql", psycopg.Error)


def _same(value: object) -> object:
    return value


def driver_of(conn: Sql) -> _Driver | None:
    """The driver that runs the statements on ``conn`` directly: a sqlite3 connection's, or that of SQLAlchemy's
    connection on SQLite (its ``BEGIN IMMEDIATE`` sent, db_engine.make_engine) or PostgreSQL's psycopg inside a
    transaction; None: through SQLAlchemy."""
    if isinstance(conn, sqlite3.Connection):
        return _SQLITE
    if not conn.in_transaction():
        return None
    dialect = conn.dialect
    if dialect.name == "sqlite" and dialect.driver == "pysqlite":
        return _SQLITE
    if dialect.name == "postgresql" and dialect.driver == "psycopg":
        return _postgres()
    return None


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
