"""The database: engine set-up, migrations, and one worker thread that runs every database job.

All database work goes through :meth:`Database.run`: the job (a function of a
:class:`~sqlalchemy.orm.Session`) runs on the worker thread and its result comes back to the event loop.
Jobs that arrive together are run in one transaction (group commit), so the append-only action log keeps
up with many tables: each action costs a row, not a commit. If a batch fails, its jobs are run again one
by one so that one bad job fails alone.

SQLite runs in WAL mode with ``synchronous=NORMAL`` (a commit survives a crash of the server process, which
is what the recovery promise is about); PostgreSQL is used through psycopg 3.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event, insert
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from paohuzi.server.logs import log
from paohuzi.server.models import ActionRow
from paohuzi.server.rows import ActionLogRow

__all__ = ["Database", "normalize_url", "migrate"]

T = TypeVar("T")
_MAX_BATCH = 256
_STOP = object()


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


def make_engine(url: str) -> Engine:
    """An engine for ``url``; creates the folder of a SQLite file."""
    url = normalize_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def migrate(engine: Engine) -> None:
    """Bring the schema up to the newest alembic revision."""
    from alembic import command
    from alembic.config import Config

    here = Path(__file__).parent
    config = Config(str(here / "alembic.ini"))
    config.set_main_option("script_location", str(here / "migrations"))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


class _Job:
    __slots__ = ("fn", "future", "loop", "row")

    def __init__(
        self,
        fn: Callable[[Session], Any] | None,
        future: asyncio.Future[Any] | None,
        loop: asyncio.AbstractEventLoop | None,
        row: ActionLogRow | None = None,
    ) -> None:
        self.fn, self.future, self.loop, self.row = fn, future, loop, row


class Database:
    """The server's database: an engine and the worker thread that runs jobs on it."""

    def __init__(self, url: str) -> None:
        self.url = normalize_url(url)
        self.engine = make_engine(self.url)
        self.backend = self.engine.dialect.name
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()  # a _Job, a list of them, or _STOP
        self._pending: list[_Job] = []  # action-log appends not yet handed to the worker
        self._thread: threading.Thread | None = None
        # Observers for the metrics (paohuzi.server.metrics): a batch's seconds and job count (called on the
        # database thread), and who played each action-log row appended (called on the event loop).
        self.on_batch: Callable[[float, int], None] | None = None
        self.on_action: Callable[[str], None] | None = None

    def migrate(self) -> None:
        migrate(self.engine)

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="paohuzi-db", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._jobs.put(_STOP)
            self._thread.join(timeout=10)
            self._thread = None
        self.engine.dispose()

    def run_now(self, fn: Callable[[Session], T]) -> T:
        """Run a job on the calling thread (start-up and tests only, before the worker is busy)."""
        with Session(self.engine, expire_on_commit=False) as session:
            result = fn(session)
            session.commit()
            return result

    async def run(self, fn: Callable[[Session], T]) -> T:
        """Run ``fn(session)`` on the worker thread, in a transaction that is committed before this
        returns. ``fn`` must return plain data (no ORM objects bound to the session)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put(_Job(fn, future, loop))
        return await future

    async def append_action(self, row: ActionLogRow) -> None:
        """Append one row to the action log; committed
        before this returns. Appends made in the same turn of the event loop go to the worker as one job
        list (one hand-over between threads), and are written with one multi-row insert."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._flush_appends)
        self._pending.append(_Job(None, future, loop, row))
        if self.on_action is not None:
            self.on_action(row.by)
        await future

    def _flush_appends(self) -> None:
        jobs, self._pending = self._pending, []
        if jobs:
            self._jobs.put(jobs)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is _STOP:
                return
            batch = list(job) if isinstance(job, list) else [job]
            stop = False
            while len(batch) < _MAX_BATCH:
                try:
                    more = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if more is _STOP:
                    stop = True
                    break
                if isinstance(more, list):
                    batch.extend(more)
                else:
                    batch.append(more)
            try:
                self._run_batch(batch)
            except BaseException as exc:  # noqa: BLE001 — the worker must never die: fail the batch, go on
                log(40, "database worker error", exc_info=True)
                for job in batch:
                    if job.loop is not None and job.future is not None:
                        job.loop.call_soon_threadsafe(_resolve, [(job, False, exc)])
            if stop:
                return

    def _run_batch(self, batch: list[_Job]) -> None:
        started = time.monotonic()
        outcomes: list[tuple[_Job, bool, Any]] = []
        try:
            with Session(self.engine, expire_on_commit=False) as session:
                results = self._execute(session, batch)
                session.commit()
            outcomes = [(job, True, result) for job, result in zip(batch, results, strict=False)]
        except Exception:
            if len(batch) == 1:
                outcomes = [(batch[0], False, _current_exception())]
            else:
                for job in batch:  # one by one, so that one bad job fails alone
                    try:
                        with Session(self.engine, expire_on_commit=False) as session:
                            result = self._execute(session, [job])[0]
                            session.commit()
                        outcomes.append((job, True, result))
                    except Exception as exc:  # noqa: BLE001 — handed to the caller
                        outcomes.append((job, False, exc))
        took = time.monotonic() - started
        if self.on_batch is not None:
            self.on_batch(took, len(batch))
        if took > 2.0:
            log(30, "slow database batch", jobs=len(batch), seconds=round(took, 2))
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[_Job, bool, Any]]] = {}
        for outcome in outcomes:
            if outcome[0].loop is not None:
                by_loop.setdefault(outcome[0].loop, []).append(outcome)
        for loop, items in by_loop.items():
            try:
                loop.call_soon_threadsafe(_resolve, items)
            except RuntimeError:  # the loop is closed: nobody waits any more
                log(30, "database result dropped: event loop closed", jobs=len(items))

    @staticmethod
    def _execute(session: Session, batch: list[_Job]) -> list[Any]:
        """Run the jobs in order; runs of action-log appends become one multi-row insert."""
        results: list[Any] = []
        rows: list[dict[str, Any]] = []  # the column values of the appends in a row
        for job in batch:
            if job.row is not None:
                rows.append(job.row.values())
                results.append(None)
                continue
            if rows:
                session.execute(insert(ActionRow), rows)
                rows = []
            assert job.fn is not None
            results.append(job.fn(session))
        if rows:
            session.execute(insert(ActionRow), rows)
        return results


def _current_exception() -> BaseException:
    import sys

    exc = sys.exc_info()[1]
    assert exc is not None
    return exc


def _resolve(items: list[tuple[_Job, bool, Any]]) -> None:
    for job, ok, value in items:
        future = job.future
        if future is None or future.done():
            continue
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)
