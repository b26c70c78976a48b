"""PostgreSQL: the action log's appends sent from the event loop itself, on a connection of its own (issue 33).

Each append handed to a database worker cost the process ~0.18 ms of CPU on PostgreSQL, of which the
statement and its answer through psycopg were ~0.07: the rest was the hand-over — the worker's wake-up, its wait
for the GIL behind the busy event loop, the answer's way back through ``call_soon_threadsafe``. Here the same
one statement (:func:`~paohuzi.server.db_appends.postgres_statement`: the fences read ``FOR SHARE``, the rows
inserted only if every fence is still the writer's, in autocommit mode a transaction of its own) goes out
through libpq in non-blocking mode (psycopg's ``pq`` layer, in C), and the loop reads the answer when the
socket is readable — no thread, no lock, no task.

One statement is in flight at a time; appends that come meanwhile wait here and go out together when its answer
is in (group commit, as on a worker). Each shape of the statement is prepared once on the connection.

Whatever is not a clean answer is handed back (:class:`PgLoopLink`'s ``fallback``): not connected yet (the
connection is opened on a thread, in the background), an error answer (a bad row: nothing was written, the
statement failed as a whole), or the connection lost with a statement in flight — which the worker, on its own
connection, then runs again, exactly as it runs a batch again after its own connection broke. The judging of
the tokens read is the caller's (``answered``), the same as on the worker.
"""

from __future__ import annotations

import asyncio
import functools
import re
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from paohuzi.server.db_appends import postgres_statement, postgres_verdict
from paohuzi.server.db_worker import Fence, Fenced, Job, resolve
from paohuzi.server.logs import log

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = ["PgLoopLink", "psycopg_connect"]

_RETRY_S = 1.0  # after a failed connect or a lost connection, the workers take the appends this long


@functools.lru_cache(maxsize=256)
def _numbered(query: str) -> bytes:
    """psycopg's ``%s`` placeholders as libpq's ``$1, $2 …`` (the statement has no other ``%``).

    >>> _numbered("SELECT %s::integer, %s::text")
    b'SELECT $1::integer, $2::text'
    """
    count = iter(range(1, query.count("%s") + 1))
    return re.sub(r"%s", lambda _: f"${next(count)}", query).encode()


def _text(value: Any) -> bytes | None:
    """A parameter in PostgreSQL's text format (the statement casts each one).

    >>> [_text(7), _text("七"), _text(None), _text(datetime(2026, 12, 6, 17, 0, 1, 5))]
    [b'7', b'\\xe4\\xb8\\x83', None, b'2026-12-06 17:00:01.000005']
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.isoformat(" ", "microseconds").encode()
    return str(value).encode()


def _ints(text: bytes | None) -> list[int] | None:
    """An ``integer[]``/``bigint[]`` in text format.

    >>> _ints(b"{3,12}"), _ints(b"{}"), _ints(None)
    ([3, 12], [], None)
    """
    if text is None:
        return None
    inner = text[1:-1]
    return [int(x) for x in inner.split(b",")] if inner else []


def _found(values: list[bytes | None]) -> tuple[object, ...]:
    """The statement's one row (text format) as the worker's psycopg gives it: the count, the writer's token,
    the rooms' ids and tokens as lists (only the columns asked for)."""
    out: list[object] = [int(values[0] or b"0")]
    rest = values[1:]
    if len(rest) % 2:  # the writer's token comes first when asked for
        out.append(int(rest[0]) if rest[0] is not None else None)
        rest = rest[1:]
    out += [_ints(v) for v in rest]
    return tuple(out)


def psycopg_connect(engine: Engine) -> Callable[[], object]:
    """What opens a new psycopg connection in autocommit mode with ``engine``'s settings (called on a thread)."""

    def connect() -> object:
        import psycopg

        args, kwargs = engine.dialect.create_connect_args(engine.url)
        return psycopg.connect(*args, **{**kwargs, "autocommit": True})

    return connect


class PgLoopLink:
    """One PostgreSQL connection driven by the event loop for the appends-only statement.

    ``connect()`` (called on a thread) opens a psycopg connection in autocommit mode. :meth:`offer` takes a
    batch of append jobs or refuses it (False: the caller hands it to a worker). The tokens each answer read
    are judged by the database's own judges, as on a worker (``token()``: the writer's token to check;
    ``writer``, ``judge_rooms``), and each job's future resolved; ``fallback(jobs)`` gets the batches this link
    could not finish (nothing committed, or — the connection lost in flight — not known); ``on_batch`` each
    batch's seconds and jobs (the metrics)."""

    def __init__(  # noqa: PLR0913 (the database's judges and observers, each named)
        self,
        connect: Callable[[], object],
        *,
        token: Callable[[], int | None],
        writer: Callable[[int], None],
        judge_rooms: Callable[[set[Fence], dict[int, int]], None],
        fallback: Callable[[list[Job]], None],
        on_batch: Callable[[float, int], None],
    ) -> None:
        self._connect, self._token, self._writer, self._judge_rooms = connect, token, writer, judge_rooms
        self._fallback, self._on_batch = fallback, on_batch
        self._conn: Any = None  # the psycopg connection, once open
        self._pq: Any = None  # its libpq connection
        self._fd = -1  # its socket, watched by the loop
        self._loop: asyncio.AbstractEventLoop | None = None
        self._connecting = False
        self._retry_at = 0.0
        self._prepared: dict[bytes, bytes] = {}  # statement text -> its prepared name
        self._waiting: list[Job] = []  # appends offered while a statement is in flight
        self._flight: list[Job] | None = None  # the batch whose statement is in flight
        self._flight_at = 0.0
        self._row: list[bytes | None] | None = None  # the in-flight statement's row, once read
        self._error: str | None = None  # its error answer, if any
        self._preparing: tuple[bytes, bytes, list[bytes | None]] | None = None  # (name, text, params)

    @property
    def connected(self) -> bool:
        return self._pq is not None

    def offer(self, jobs: list[Job], *, may_start: bool) -> bool:
        """Take ``jobs`` (appends): sent now, or when the statement in flight is answered. False when the
        caller must hand them to the workers: not connected (a connection is being opened), another event
        loop, or nothing here in flight and not ``may_start`` — the caller's appends on the workers are not
        all done, and these may follow one of them (a hand's appends are committed in the order they came:
        one path at a time)."""
        loop = asyncio.get_running_loop()
        if self._pq is None:
            self._open(loop)
            return False
        if loop is not self._loop:
            return False
        if self._flight is not None:
            self._waiting += jobs
            return True
        if not may_start:
            return False
        return self._send(jobs)

    # ---- the connection ------------------------------------------------------------------------------

    def _open(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._connecting or time.monotonic() < self._retry_at:
            return
        self._connecting = True
        opening = loop.run_in_executor(None, self._connect)
        opening.add_done_callback(functools.partial(self._opened, loop))

    def _opened(self, loop: asyncio.AbstractEventLoop, opening: asyncio.Future[object]) -> None:
        self._connecting = False
        failed = "cancelled" if opening.cancelled() else opening.exception()
        if failed is not None:
            self._retry_at = time.monotonic() + _RETRY_S
            log(30, "database: the event loop's connection could not be opened", error=repr(failed))
            return
        conn: Any = opening.result()  # a psycopg connection (connect's)
        if loop.is_closed():
            conn.close()
            return
        pq = conn.pgconn
        pq.nonblocking = 1
        fd = pq.socket  # kept: a broken connection no longer tells it, and the loop must forget it
        try:
            loop.add_reader(fd, self._readable)
        except Exception as exc:  # noqa: BLE001 — nothing to read it with: the workers keep the appends
            conn.close()
            self._retry_at = time.monotonic() + _RETRY_S
            log(30, "database: the event loop's connection could not be watched", error=repr(exc))
            return
        self._conn, self._pq, self._fd, self._loop = conn, pq, fd, loop
        self._prepared.clear()

    def _lost(self, error: str) -> None:
        """The connection broke: drop it; a batch in flight (and those waiting) go to the workers."""
        log(30, "database: the event loop's connection was lost", error=error[:200])
        self._drop()
        self._retry_at = time.monotonic() + _RETRY_S
        self._hand_back()

    def _drop(self) -> None:
        conn, fd, loop = self._conn, self._fd, self._loop
        self._conn = self._pq = None
        self._fd = -1
        if fd >= 0 and loop is not None and not loop.is_closed():
            loop.remove_writer(fd)  # before the socket is closed: its number may come back for the next one
            loop.remove_reader(fd)
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001 — closing a broken connection
                pass

    def _hand_back(self) -> None:
        batches = [b for b in (self._flight, self._waiting) if b]
        self._flight, self._waiting, self._preparing = None, [], None
        for batch in batches:
            self._fallback(batch)

    def close(self) -> None:
        """Finish the statement in flight (blocking: shutdown only), then close; what waited goes to the workers
        (the caller stops them after)."""
        pq = self._pq
        if pq is not None and self._flight is not None:
            try:
                pq.nonblocking = 0
                while self._flight is not None and self._pq is not None:
                    self._answer(pq.get_result())
            except Exception as exc:  # noqa: BLE001 — the connection broke at shutdown: the workers run it again
                self._lost(repr(exc))
        self._drop()
        self._hand_back()

    # ---- one statement at a time -----------------------------------------------------------------------

    def _send(self, jobs: list[Job]) -> bool:
        token = self._token()
        fences = sorted({job.fence for job in jobs if job.fence is not None})
        query, params = postgres_statement([j.row for j in jobs if j.row is not None], token=token, fences=fences)
        text, values = _numbered(query), [_text(p) for p in params]
        self._flight, self._flight_at, self._row, self._error = jobs, time.monotonic(), None, None
        pq = self._pq
        try:
            name = self._prepared.get(text)
            if name is None:  # its first time on this connection: prepared, then run (two round trips)
                name = b"paohuzi_append_%d" % len(self._prepared)
                self._preparing = (name, text, values)
                pq.send_prepare(name, text)
            else:
                pq.send_query_prepared(name, values)
            self._flush()
        except Exception as exc:  # noqa: BLE001 — the connection broke: the workers take the batch
            self._lost(repr(exc))
        return True

    def _flush(self) -> None:
        """Send what libpq holds; what the socket did not take yet goes when it is writable."""
        pq, loop = self._pq, self._loop
        if pq is not None and pq.flush() and loop is not None:
            loop.add_writer(self._fd, self._writable)

    def _writable(self) -> None:
        pq, loop = self._pq, self._loop
        try:
            if pq is not None and loop is not None and not pq.flush():
                loop.remove_writer(self._fd)
        except Exception as exc:  # noqa: BLE001 — the connection broke
            self._lost(repr(exc))

    def _readable(self) -> None:
        pq = self._pq
        if pq is None:
            return
        try:
            pq.consume_input()
            while self._pq is not None and not pq.is_busy():
                result = pq.get_result()
                if result is None and self._flight is None:
                    return  # nothing in flight
                self._answer(result)
        except Exception as exc:  # noqa: BLE001 — the connection broke
            self._lost(repr(exc))

    def _answer(self, result: Any) -> None:
        """A result of the command in flight, or None: the command's end, when the next may be sent."""
        from psycopg import pq as libpq

        if result is not None:
            ok = libpq.ExecStatus.COMMAND_OK if self._preparing is not None else libpq.ExecStatus.TUPLES_OK
            if result.status != ok:
                message = result.error_message
                self._error = message.decode("utf-8", "replace") if message else f"status {result.status}"
            elif self._preparing is None:
                self._row = [result.get_value(0, c) for c in range(result.nfields)]
            return
        if self._preparing is not None:
            name, text, values = self._preparing
            self._preparing = None
            if self._error is None:
                self._prepared[text] = name
                self._pq.send_query_prepared(name, values)
                self._flush()
                return
        jobs, row, error = self._flight, self._row, self._error
        self._flight = self._row = self._error = None
        if jobs is not None:
            if error is None and row is not None:
                self._verdict(jobs, _found(row), time.monotonic() - self._flight_at)
            else:  # nothing was written (the statement is its own transaction): the workers run it job by job,
                # and what waited behind it after it, in order
                log(
                    30,
                    "database: an append on the event loop's connection failed; the workers retry it",
                    error=(error or "no row")[:200],
                )
                jobs, self._waiting = jobs + self._waiting, []
                self._fallback(jobs)
        if self._flight is None and self._waiting and self._pq is not None:
            waiting, self._waiting = self._waiting, []
            self._send(waiting)

    def _verdict(self, jobs: list[Job], found: tuple[object, ...], took: float) -> None:
        """A batch answered: the tokens read judged as on a worker. A stale writer fails every job; a room
        fenced (nothing was written) sends the jobs to the workers, which run them one by one, each judged
        alone."""
        wanted = {job.fence for job in jobs if job.fence is not None}
        try:
            postgres_verdict(
                found,
                len(jobs),
                token=self._token(),
                writer=self._writer,
                fences=sorted(wanted),
                judge_rooms=lambda current: self._judge_rooms(wanted, current),
            )
        except Fenced as exc:
            outcomes: list[tuple[Job, bool, object]] = [(job, False, exc) for job in jobs]
        except Exception:  # noqa: BLE001 — nothing was written: the workers' one-by-one run reports it
            self._fallback(jobs)
            return
        else:
            outcomes = [(job, True, None) for job in jobs]
        self._on_batch(took, len(jobs))
        resolve(outcomes)
