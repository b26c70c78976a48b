"""A database worker: one connection and the thread that runs transactions on it, one at a time.

:class:`paohuzi.server.db.Database` hands every job to a worker. Jobs that arrive together are run in one
transaction (group commit): each action costs a row, not a commit — all but an :func:`alone` job (a wallet
change), which has a transaction of its own. If a batch fails, its jobs are run again one by one so that one
bad job fails alone. The worker keeps its connection from batch to batch (no pool check-out, ping and reset
per transaction); a connection found broken before its commit is replaced and the batch run again.

What a transaction *is* — the fence checks, the appends' fast paths, the commit — is the database's: it
comes in as ``transact`` (issue 33: on PostgreSQL several workers, each its own transaction in flight).
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from paohuzi.server.logs import log
from paohuzi.server.rows import ActionLogRow

__all__ = ["Broken", "Fence", "Fenced", "Job", "Worker", "alone", "resolve"]

T = TypeVar("T")
MAX_BATCH = 256
_STOP = object()

Fence = tuple[int, int]  # (room id, fencing token)


class Fenced(RuntimeError):
    """Another server process took the database over: this one may not write any more."""


class Broken(RuntimeError):
    """The worker's connection broke before the commit (nothing was written): run the batch again."""


class Job:
    """A function of a session, or an action-log row to append (``row``); ``fence``: the room's, checked in
    its transaction. ``future`` (on ``loop``) gets the result."""

    __slots__ = ("fn", "future", "loop", "row", "fence")

    def __init__(
        self,
        fn: Callable[[Session], object] | None,
        future: asyncio.Future[object] | None,
        loop: asyncio.AbstractEventLoop | None,
        row: ActionLogRow | None = None,
        fence: Fence | None = None,
    ) -> None:
        self.fn, self.future, self.loop, self.row, self.fence = fn, future, loop, row, fence


class Worker:
    """One connection and its thread. Jobs handed over (:meth:`put`) are run in the order they came, in
    transactions of up to :data:`MAX_BATCH` jobs, each committed before the next begins."""

    def __init__(
        self,
        engine: Engine,
        name: str,
        transact: Callable[[Connection, list[Job]], Sequence[object]],
        on_batch: Callable[[float, int], None] | None = None,
    ) -> None:
        """``transact(connection, jobs)``: run the jobs in one transaction and commit it, their results;
        :raises Broken: (or an invalidated connection's ``DBAPIError``) when nothing was written."""
        self.engine, self.name, self.transact, self.on_batch = engine, name, transact, on_batch
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()  # a Job, a list of them, or _STOP
        self._thread: threading.Thread | None = None
        self._conn: Connection | None = None
        self.batches = 0  # transactions run (tests: that every worker had its share)

    def put(self, item: Job | list[Job]) -> None:
        self._jobs.put(item)

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name=self.name, daemon=True)
            self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._jobs.put(_STOP)
            self._thread.join(timeout=10)
            self._thread = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is _STOP:
                return
            batch = list(job) if isinstance(job, list) else [job]
            stop = False
            while len(batch) < MAX_BATCH:
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
            for part in _apart(batch):
                try:
                    self.run_batch(part)
                except BaseException as exc:  # noqa: BLE001 — the worker must never die: fail the batch, go on
                    log(40, "database worker error", exc_info=True)
                    for job in part:
                        if job.loop is not None and job.future is not None:
                            job.loop.call_soon_threadsafe(resolve, [(job, False, exc)])
            if stop:
                return

    def _connection(self) -> Connection:
        """The worker's own connection, kept from batch to batch (on PostgreSQL a pool check-out, ping and
        reset per transaction would be three round trips); a new one after it broke."""
        conn = self._conn
        if conn is None or conn.closed or conn.invalidated:
            if conn is not None:
                conn.close()
            conn = self._conn = self.engine.connect()
        return conn

    def _transaction(self, jobs: list[Job]) -> Sequence[object]:
        """``jobs`` in one committed transaction; once more on a new connection when the connection turned
        out broken before the commit (the database restarted, a timeout): nothing was written."""
        for attempt in (1, 2):
            try:
                return self.transact(self._connection(), jobs)
            except Broken:
                if attempt == 2:
                    raise
            except DBAPIError as exc:
                if attempt == 2 or not exc.connection_invalidated:
                    raise
        raise AssertionError("unreachable")

    def run_batch(self, batch: list[Job]) -> None:
        """Run ``batch`` (on this thread) and hand each job's outcome to its loop."""
        started = time.monotonic()
        outcomes: list[tuple[Job, bool, Any]] = []
        try:
            results = self._transaction(batch)
            outcomes = [(job, True, result) for job, result in zip(batch, results, strict=False)]
        except Fenced as exc:
            outcomes = [(job, False, exc) for job in batch]
        except Exception as failed:
            if len(batch) == 1:
                outcomes = [(batch[0], False, failed)]
            else:
                for job in batch:  # one by one, so that one bad job fails alone
                    try:
                        outcomes.append((job, True, self._transaction([job])[0]))
                    except Exception as exc:  # noqa: BLE001 — handed to the caller
                        outcomes.append((job, False, exc))
        self.batches += 1
        took = time.monotonic() - started
        if self.on_batch is not None:
            self.on_batch(took, len(batch))
        if took > 2.0:
            log(30, "slow database batch", jobs=len(batch), seconds=round(took, 2), worker=self.name)
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[Job, bool, Any]]] = {}
        for outcome in outcomes:
            if outcome[0].loop is not None:
                by_loop.setdefault(outcome[0].loop, []).append(outcome)
        for loop, items in by_loop.items():
            try:
                loop.call_soon_threadsafe(resolve, items)
            except RuntimeError:  # the loop is closed: nobody waits any more
                log(30, "database result dropped: event loop closed", jobs=len(items))


_ALONE: weakref.WeakSet[Callable[[Session], Any]] = weakref.WeakSet()


def alone(fn: Callable[[Session], T]) -> Callable[[Session], T]:
    """Mark a job to run in a transaction of its own, never batched with others: a wallet change
    (:mod:`paohuzi.server.wallet`), whose row locks are taken in one order within its job — in a shared
    transaction the locks of several jobs would pile up in any order, and two processes' batches could
    wait on each other (a deadlock PostgreSQL breaks only after a second)."""
    _ALONE.add(fn)
    return fn


def _apart(batch: list[Job]) -> list[list[Job]]:
    """The batch in transactions, in order: each :func:`alone` job by itself, the others together."""
    parts: list[list[Job]] = []
    for job in batch:
        if job.fn is not None and job.fn in _ALONE:
            parts += [[job], []]
        elif parts:
            parts[-1].append(job)
        else:
            parts.append([job])
    return [part for part in parts if part]


def resolve(items: Sequence[tuple[Job, bool, object]]) -> None:
    """Hand each job its outcome (on its loop): a result, or an exception raised by its await."""
    for job, ok, value in items:
        future = job.future
        if future is None or future.done():
            continue
        if ok:
            future.set_result(value)
        else:
            assert isinstance(value, BaseException)  # a failed job's outcome is what it raised
            future.set_exception(value)
