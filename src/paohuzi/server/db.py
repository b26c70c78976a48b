"""The database: engine set-up, migrations, and the worker threads that run every database job.

All database work goes through :meth:`Database.run`: the job (a function of a
:class:`~sqlalchemy.orm.Session`) runs on a worker thread (:mod:`.db_worker`: one connection each, group
commit, a bad job failing alone) and its result comes back to the event loop. The appends are written with
one SQLAlchemy Core insert (no ORM unit of work); a batch of appends only skips SQLAlchemy: on SQLite
sqlite3 itself (:mod:`.db_appends`, issue 33), on PostgreSQL psycopg: ``BEGIN``, one statement (the fence
checks and the insert) and ``COMMIT`` in one round trip. On a SQLite file, while the worker has no job in
flight, that transaction is run on the event loop's own thread instead (:class:`~.db_appends.LoopAppends`:
a commit without ``fsync`` costs less than handing it to the worker and back), never waiting for a lock; so
is a per-hand job (:func:`~paohuzi.server.models.per_hand`: a hand dealt or settled), in a transaction of its
own, but every :data:`CHECKPOINT_EVERY`-th, which goes to the worker: its commit checkpoints the WAL.

**Workers** (issue 33). SQLite has one writer, so one worker. On PostgreSQL there are ``connections`` of
them (``PAOHUZI_DB_CONNECTIONS``), each with its own transaction in flight, so that a commit waiting for its
WAL flush (or its thread for the GIL) does not hold up every other table's (what it measured:
docs/PERFORMANCE.md, "several PostgreSQL transactions in flight"). A hand's appends always go to the same
worker (by its id), so they are committed in their order, as with one; its settlement (``run(…, hand=)``)
to a settling worker; every other job goes to the first worker, in the order the jobs came, as they always
did. With two or more workers the appends never go to the first, nor with three or more to the settlers
(:meth:`Database.worker_of`): a deal or a settlement is a dozen round trips. Across workers nothing is
ordered but what the callers await: a room awaits each append (under its lock) and each of its jobs before
the next, so its hand row is committed before its first append and its last append before its settlement.

SQLite runs in WAL mode with ``synchronous=NORMAL`` (a commit survives a crash of the server process, which
is what the recovery promise is about), every transaction ``BEGIN IMMEDIATE`` (serialised with any other
connection's from its first statement); PostgreSQL is used through psycopg 3.

**The writer fence** (issue 14). One process runs a database's rooms. At start-up it takes the database over
(:meth:`Database.take_over`: the ``writer_fence`` token goes up by one and becomes the process's own), and
every transaction it runs first checks that the token is still its own — on PostgreSQL under a shared row
lock, which the next process's take-over waits for. So a process that was paused (``SIGSTOP``, a VM
freeze) or left running while another was started on the same database can never write again — not an
action, not a hand's result — once the other has taken over: its transactions fail with :class:`Fenced`
and it stops (:attr:`Database.on_fenced`). A transaction already past the check when the take-over comes
commits first; the new owner reads the log after it.

**Room fences** (the shared mode, several processes on one database; :mod:`paohuzi.server.lease`). A room is
owned by the process holding its Redis lease, whose fencing token is stored in ``room_fences`` when it takes
the room over (:func:`fence_room`, only ever upwards). The owner writes for the room through a
:class:`RoomStore`: each transaction holding one of its jobs first checks the room's token (on PostgreSQL
under a shared row lock the next take-over waits for), and the jobs of a room whose token is no longer the
writer's fail with :class:`RoomFenced` — a stale owner can never append to the action log.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

from sqlalchemy import Connection, Table, bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from paohuzi.server import schema
from paohuzi.server.db_appends import LoopAppends, locked, postgres_appends, sqlite_appends
from paohuzi.server.db_engine import make_engine, normalize_url
from paohuzi.server.db_pg_loop import PgLoopLink, psycopg_connect
from paohuzi.server.db_worker import Broken, Fence, Fenced, Job, Worker, alone, resolve
from paohuzi.server.logs import log
from paohuzi.server.models import ActionRow, RoomFence, WriterFence, is_per_hand, utcnow
from paohuzi.server.rows import ActionLogRow, ActionLogValues
from paohuzi.server.statements import CoreJob, Statement

__all__ = ["Database", "Fenced", "alone", "RoomFenced", "RoomStore", "fence_room", "make_engine", "normalize_url"]

T = TypeVar("T")
DEFAULT_CONNECTIONS = 4  # PostgreSQL's workers unless told (PAOHUZI_DB_CONNECTIONS)
_INSERT_ACTIONS = cast(Table, ActionRow.__table__).insert()  # Core: no ORM unit of work per append
# SQLite: of the per-hand jobs the event loop could commit itself, every this many-th still goes to the worker,
# whose commit checkpoints the WAL (the loop's connection never does: a checkpoint syncs to disk). A hand's
# appends and jobs add ~300 pages to the WAL, so it is checkpointed every few hands, as it was (issue 33).
CHECKPOINT_EVERY = 16
_WRITER = "SELECT token FROM writer_fence WHERE id = 1"


class RoomFenced(RuntimeError):
    """Another server process took these rooms over (a newer fencing token): this one may not write for
    them any more."""

    def __init__(self, rooms: list[int]) -> None:
        super().__init__(f"rooms {rooms} are fenced: another process took them over")
        self.rooms = rooms


def fence_room(room_id: int, token: int, holder: str) -> Callable[[Session], bool]:
    """A job: make ``token`` the room's fencing token unless a newer one is there; True if it now is.

    On PostgreSQL the update waits for a transaction of the previous owner that is past its check."""

    def job(s: Session) -> bool:
        ins = (postgresql.insert if s.get_bind().dialect.name == "postgresql" else sqlite.insert)(RoomFence)
        stmt = ins.values(room_id=room_id, token=token, holder=holder[:128], taken_at=utcnow())
        stmt = stmt.on_conflict_do_update(
            index_elements=["room_id"],
            set_={"token": token, "holder": holder[:128], "taken_at": utcnow()},
            where=RoomFence.token < token,
        )
        s.execute(stmt)
        return int(s.execute(select(RoomFence.token).where(RoomFence.room_id == room_id)).scalar_one()) == token

    return job


_FENCE_READ = select(WriterFence.token).where(WriterFence.id == 1)
_ROOMS_READ = select(RoomFence.room_id, RoomFence.token).where(
    RoomFence.room_id.in_(bindparam("b_rooms", expanding=True))
)
# Each read as it is (SQLite) and FOR SHARE (PostgreSQL: a take-over waits for the transaction that read it).
_FENCE, _FENCE_SHARE = Statement(_FENCE_READ), Statement(_FENCE_READ.with_for_update(read=True))
_ROOMS, _ROOMS_SHARE = Statement(_ROOMS_READ), Statement(_ROOMS_READ.with_for_update(read=True))


class Database:
    """The server's database: an engine and the worker threads that run jobs on it."""

    def __init__(  # noqa: PLR0913 (the observers, each named)
        self,
        url: str,
        *,
        connections: int = DEFAULT_CONNECTIONS,
        on_fenced: Callable[[], None] | None = None,
        on_room_fenced: Callable[[list[int]], None] | None = None,
        on_batch: Callable[[float, int], None] | None = None,
        on_action: Callable[[str], None] | None = None,
        loop_appends: bool = True,
    ) -> None:
        """``connections``: PostgreSQL's workers, each a connection with a transaction in flight (SQLite:
        always one). ``loop_appends``: on a SQLite file, commit the appends on the event loop's thread while
        the worker is idle (:class:`~paohuzi.server.db_appends.LoopAppends`; off: always the worker)."""
        if connections < 1:
            raise ValueError(f"connections={connections}: at least one")
        self.url = normalize_url(url)
        count = 1 if make_url(self.url).get_backend_name() == "sqlite" else connections
        self.engine = make_engine(self.url, pool_size=max(5, count + 2))
        self.backend = self.engine.dialect.name
        self.workers = [
            Worker(self.engine, f"paohuzi-db-{i}" if i else "paohuzi-db", self._transact, on_batch)
            for i in range(count)
        ]
        self._settlers = (count - 1) // 2 if count >= 3 else 0  # settlements' own workers (worker_of)
        self._pending: list[Job] = []  # action-log appends not yet handed to a worker
        # SQLite's appends on the event loop (issue 33), while no job is in flight on the worker (``_busy``,
        # counted on the loop), from the one thread that first used it (``_loop_thread``)
        path = make_url(self.url).database if self.backend == "sqlite" else None
        self._loop_appends = LoopAppends(path) if loop_appends and path and path != ":memory:" else None
        # PostgreSQL's appends sent from the event loop on a connection of its own (issue 33; the workers
        # while it opens, and whatever it cannot finish)
        self._pg_loop = (
            PgLoopLink(
                psycopg_connect(self.engine),
                token=lambda: self.token,
                writer=self._judge_fence,
                judge_rooms=self._judge_rooms,
                fallback=self._to_workers,
                on_batch=lambda took, jobs: self.on_batch(took, jobs) if self.on_batch is not None else None,
            )
            if loop_appends and self.backend == "postgresql"
            else None
        )
        self._appends_out = 0  # PostgreSQL: appends handed to the workers and not done yet
        self._loop_thread: int | None = None
        self._busy = 0
        self._per_hand = 0  # per-hand jobs that could have run on the loop (every CHECKPOINT_EVERY-th did not)
        self._lock = threading.Lock()  # the fences' first reports, made once though several workers judge
        # Observers for the metrics (paohuzi.server.metrics): a batch's seconds and job count (called on the
        # database threads: the workers hold it; for SQLite's appends on the loop, on the event loop), and who
        # played each action-log row appended (called on the event loop).
        self.on_action = on_action
        self.on_batch = on_batch
        # The writer fence: this process's token once it has taken the database over (None: unchecked,
        # for tools and tests), and what to do, once, when another process has taken it (on the
        # database thread).
        self.token: int | None = None
        self.fenced = False
        self.on_fenced = on_fenced
        # The shared mode: called (on the database thread) with the rooms whose jobs were refused by their
        # room fence, each once per token.
        self.on_room_fenced = on_room_fenced
        self._rooms_fenced: set[Fence] = set()
        # Each transaction's fence checks, built once and run by the driver (issue 33: on PostgreSQL a hand's
        # settlement and deal each pay them); FOR SHARE: a take-over waits for this transaction.
        shared = self.backend == "postgresql"
        self._fence_query = _FENCE_SHARE if shared else _FENCE
        self._rooms_query = _ROOMS_SHARE if shared else _ROOMS

    def migrate(self) -> None:
        schema.migrate(self.engine)

    def start(self) -> None:
        for worker in self.workers:
            worker.start()

    def stop(self) -> None:
        if self._pg_loop is not None:  # first: what it holds goes to the workers, which run it before stopping
            self._pg_loop.close()
        for worker in self.workers:
            worker.stop()
        if self._loop_appends is not None:
            self._loop_appends.close()
        self.engine.dispose()

    def take_over(self, holder: str) -> int:
        """Make this process the database's one writer (start-up, before the worker runs and before the
        open rooms are read): the fencing token goes up by one and is this process's from now on. On
        PostgreSQL this waits for a transaction of the previous owner that is past its check."""
        with Session(self.engine) as session:
            session.execute(
                update(WriterFence)
                .where(WriterFence.id == 1)
                .values(token=WriterFence.token + 1, holder=holder[:128], taken_at=utcnow())
            )
            token = int(session.execute(select(WriterFence.token).where(WriterFence.id == 1)).scalar_one())
            session.commit()
        self.token = token
        return token

    def _check_fence(self, connection: Connection) -> None:
        """The first statement of each of this process's transactions. :raises Fenced:"""
        if self.token is None:
            return
        (current,) = self._fence_query.scalars(connection, {})  # the one row the migrations made
        self._judge_fence(int(cast(int, current)))

    def _judge_fence(self, current: int) -> None:
        """:raises Fenced: when the writer token read in this transaction is no longer this process's."""
        if current != self.token:
            with self._lock:
                first, self.fenced = not self.fenced, True
            if first:
                log(
                    50,
                    "fenced: another server took the database over; this one stops",
                    token=self.token,
                    current=int(current),
                )
                if self.on_fenced is not None:
                    self.on_fenced()
            raise Fenced(f"writer token {self.token} is stale (now {current})")

    def _check_rooms(self, connection: Connection, batch: list[Job]) -> None:
        """Each room written for in ``batch`` still has the token of the job's fence. :raises RoomFenced:"""
        wanted = {job.fence for job in batch if job.fence is not None}
        if not wanted:
            return
        current = self._rooms_query.all(connection, {"b_rooms": sorted({r for r, _ in wanted})})
        self._judge_rooms(wanted, {int(cast(int, r)): int(cast(int, t)) for r, t in current})

    def _judge_rooms(self, wanted: set[Fence], current: dict[int, int]) -> None:
        """:raises RoomFenced: when a room's token read in this transaction is not the writer's."""
        stale = sorted({f for f in wanted if current.get(f[0]) != f[1]})
        if not stale:
            return
        with self._lock:
            new = [f for f in stale if f not in self._rooms_fenced]
            self._rooms_fenced.update(new)
        for room_id, token in new:
            log(
                40,
                "room fenced: another process took it over",
                room_id=room_id,
                token=token,
                current=current.get(room_id),
            )
        if new and self.on_room_fenced is not None:
            self.on_room_fenced([r for r, _ in new])
        raise RoomFenced([r for r, _ in stale])

    def for_room(self, room_id: int, token: int) -> RoomStore:
        """What a room owned under ``token`` writes through (the shared mode)."""
        return RoomStore(self, (room_id, token))

    def run_now(self, fn: Callable[[Session], T]) -> T:
        """Run a job on the calling thread (start-up and tests only, before the worker is busy)."""
        with Session(self.engine, expire_on_commit=False) as session:
            result = fn(session)
            session.commit()
            return result

    async def run(self, fn: Callable[[Session], T], fence: Fence | None = None, *, hand: int | None = None) -> T:
        """Run ``fn(session)`` on a worker thread, in a transaction that is committed before this
        returns. ``fn`` must return plain data (no ORM objects bound to the session). With ``fence``
        (room id, token) the transaction first checks the room's fencing token. :raises RoomFenced:

        On the first worker, in the order the jobs came; with ``hand`` (a hand's settlement) on the worker of
        that hand's appends (:meth:`worker_of`), which the caller has awaited: behind the first worker's
        queue of deals and account jobs a thousand tables' settlements waited seconds (issue 33). On a SQLite
        file a per-hand job (:func:`~paohuzi.server.models.per_hand`) is committed on this thread, the event
        loop's, when it can (:meth:`_run_here`)."""
        if self._loop_appends is not None and is_per_hand(fn):
            done = self._run_here(fn, fence)
            if done is not None:
                ok, value = done
                if not ok:
                    raise cast(BaseException, value)
                return cast(T, value)  # what fn returned
        loop = asyncio.get_running_loop()
        future: asyncio.Future[object] = loop.create_future()
        worker = self.workers[0 if hand is None else self.settler_of(hand)]
        self._count(future)
        worker.put(Job(fn, future, loop, None, fence))
        return cast(T, await future)  # what fn returned

    def _count(self, future: asyncio.Future[object]) -> None:
        """Count a job handed to a worker until its future is done (SQLite's loop appends wait for none)."""
        if self._loop_appends is not None:
            self._busy += 1
            future.add_done_callback(self._done)

    def _done(self, _future: asyncio.Future[object]) -> None:
        self._busy -= 1

    async def append_action(self, row: ActionLogRow, fence: Fence | None = None) -> None:
        """Append one row to the action log; committed before this returns. Appends made in the same turn
        of the event loop go to each worker as one job list (one hand-over between threads), and are
        written with one multi-row insert; a hand's always to the same worker, in the order they came."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[object] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._flush_appends)
        self._pending.append(Job(None, future, loop, row, fence))
        if self.on_action is not None:
            self.on_action(row.by)
        await future

    def _flush_appends(self) -> None:
        jobs, self._pending = self._pending, []
        if not jobs or (self._loop_appends is not None and self._append_here(jobs)):
            return
        if self._pg_loop is not None and self._pg_loop.offer(jobs, may_start=not self._appends_out):
            return
        self._to_workers(jobs)

    def _to_workers(self, jobs: list[Job]) -> None:
        """Hand appends to their workers (each hand's to its own, in order)."""
        for job in jobs:
            assert job.future is not None
            self._count(job.future)
            if self._pg_loop is not None:  # counted until done: the loop's connection waits for them
                self._appends_out += 1
                job.future.add_done_callback(self._append_out_done)
        workers = self.workers
        if len(workers) == 1:
            workers[0].put(jobs)
            return
        parts: dict[int, list[Job]] = {}
        for job in jobs:
            assert job.row is not None
            parts.setdefault(self.worker_of(job.row.hand_id), []).append(job)
        for index, part in parts.items():
            workers[index].put(part)

    def _append_here(self, jobs: list[Job]) -> bool:
        """SQLite: commit ``jobs`` (appends) on this thread, the event loop's, and resolve their futures; False
        when they must go to the worker instead — it has a job in flight (which may write what they follow),
        another connection holds the write lock, the loop is not the one that began here, or the batch failed
        (a bad row, a room fenced: the worker runs it again, each job alone, and each fails or not by
        itself). A stale writer fails every job, as on the worker."""
        appends = self._loop_appends
        assert appends is not None
        thread = threading.get_ident()
        if self._busy or self._loop_thread not in {None, thread}:
            return False
        self._loop_thread = thread
        started = time.monotonic()
        wanted = {job.fence for job in jobs if job.fence is not None}
        try:
            if not appends.append(
                [job.row for job in jobs if job.row is not None],
                writer=self._judge_fence if self.token is not None else None,
                rooms=sorted({r for r, _ in wanted}),
                judge_rooms=lambda current: self._judge_rooms(wanted, current),
                token=self.token,
            ):
                return False
        except Fenced as exc:
            outcomes: list[tuple[Job, bool, object]] = [(job, False, exc) for job in jobs]
        except Exception:  # noqa: BLE001 — nothing was written: the worker's one-by-one run reports it
            return False
        else:
            outcomes = [(job, True, None) for job in jobs]
        if self.on_batch is not None:
            self.on_batch(time.monotonic() - started, len(jobs))
        resolve(outcomes)
        return True

    def _append_out_done(self, _future: asyncio.Future[object]) -> None:
        self._appends_out -= 1

    def _run_here(self, fn: Callable[[Session], object], fence: Fence | None) -> tuple[bool, object] | None:
        """SQLite: run the per-hand job ``fn`` in a transaction of its own on the loop's connection (that of the
        appends, :class:`~paohuzi.server.db_appends.LoopAppends`: busy timeout 0, no checkpoint), committed
        before this returns; (True, its result) or (False, what it raised). None when it must go to the worker
        instead, nothing written — the worker has a job in flight (which may write what this one reads),
        another connection holds the write lock, the loop is not the one that began here, or it is the
        :data:`CHECKPOINT_EVERY`-th. Issue 33: a deal's or a settlement's hand-over to the worker (its wake-up,
        the GIL handed back and forth, the worker's page cache re-read after the loop's commits) cost the
        worker ~2.5 times the job's own CPU."""
        thread = threading.get_ident()
        if self._busy or self._loop_thread not in {None, thread}:
            return None
        self._per_hand += 1
        if self._per_hand % CHECKPOINT_EVERY == 0:
            return None
        self._loop_thread = thread
        started = time.monotonic()
        outcome: tuple[bool, object]
        try:
            outcome = (True, self._transact_here(Job(fn, None, None, None, fence)))
        except sqlite3.OperationalError as exc:  # from BEGIN: nothing begun
            if not locked(exc):
                raise
            return None
        except DBAPIError as exc:
            if exc.connection_invalidated or locked(exc.orig):
                return None  # rolled back: the worker runs it
            outcome = (False, exc)
        except Exception as exc:  # noqa: BLE001 — the job's own failure, the caller's to handle (as on the worker)
            outcome = (False, exc)
        if self.on_batch is not None:
            self.on_batch(time.monotonic() - started, 1)
        return outcome

    def _transact_here(self, job: Job) -> object:
        """``job`` in one transaction of the loop's connection, committed; its result. The transaction is begun
        and the writer fence read through sqlite3 itself (as the appends', :mod:`.db_appends`: SQLAlchemy's
        ``begin`` event and the fence's compiled ``SELECT`` cost more than the per-hand job's own statements);
        the job then runs as on the worker, in SQLAlchemy's transaction on the same connection (whose own
        ``BEGIN`` is nothing on sqlite3). :raises sqlite3.OperationalError: locked: nothing begun."""
        appends = self._loop_appends
        assert appends is not None
        # A job of Core statements alone without a room's fence runs on the sqlite3 connection itself: no session,
        # no SQLAlchemy transaction (statements.CoreJob, issue 33)
        body = job.fn.body if isinstance(job.fn, CoreJob) and job.fence is None else None
        raw = appends.connection()
        conn = appends.session_connection() if body is None else None  # connected first: its set-up rolls back
        raw.execute("BEGIN IMMEDIATE")  # the write lock first, as every transaction of the server (make_engine)
        transaction = None
        try:
            if self.token is not None:
                found = raw.execute(_WRITER).fetchone()
                self._judge_fence(int(found[0]) if found is not None else -1)
            if body is not None:
                result = body(raw)
                raw.commit()
                return result
            assert conn is not None
            transaction = conn.begin()
            self._check_rooms(conn, [job])
            result = self._execute(conn, [job])[0]
            transaction.commit()
        except BaseException:
            if transaction is not None and transaction.is_active:
                transaction.rollback()
            if raw.in_transaction:  # a failed COMMIT leaves it open: the next BEGIN would fail
                raw.rollback()
            raise
        return result

    def worker_of(self, hand_id: int) -> int:
        """The worker that commits a hand's appends: with several, never the first, whose deals and other
        jobs of many round trips each would hold them up; with three or more, none of the settlers either."""
        count = len(self.workers)
        if count == 1:
            return 0
        appenders = count - 1 - self._settlers
        return 1 + hand_id % appenders

    def settler_of(self, hand_id: int) -> int:
        """The worker that settles a hand: the first with one or two workers; with more, one of the last half."""
        if not self._settlers:
            return 0
        return len(self.workers) - 1 - hand_id % self._settlers

    def _transact(self, conn: Connection, jobs: list[Job]) -> list[Any]:
        """Run ``jobs`` in one transaction on a worker's connection and commit it; their results (the
        workers' ``transact``). :raises Broken: the connection broke before the commit: nothing written."""
        if all(job.row is not None for job in jobs):
            if self.backend == "sqlite":
                return self._sqlite_appends(conn, jobs)
            if self.backend == "postgresql":
                return self._pg_appends(conn, jobs)
        transaction = conn.begin()
        try:
            self._check_fence(conn)
            self._check_rooms(conn, jobs)
            results = self._execute(conn, jobs)
        except BaseException:
            if transaction.is_active:
                transaction.rollback()
            raise
        transaction.commit()
        return results

    def _pg_appends(self, conn: Connection, batch: list[Job]) -> list[Any]:
        """A batch of action-log appends only on PostgreSQL, through psycopg itself in one round trip
        (:mod:`.db_appends`), outside SQLAlchemy's transaction (which is not begun, so the connection is
        as the next batch expects it). A connection that broke is invalidated, and the batch run again on
        a new one (:class:`Broken`), as SQLAlchemy's own statements do."""
        import psycopg

        raw = cast(Any, conn.connection.driver_connection)
        wanted = {job.fence for job in batch if job.fence is not None}
        try:
            postgres_appends(
                raw,
                [job.row for job in batch if job.row is not None],
                token=self.token,
                writer=self._judge_fence,
                fences=sorted(wanted),
                judge_rooms=lambda current: self._judge_rooms(wanted, current),
            )
        except psycopg.OperationalError as exc:
            if raw.broken or raw.closed:
                conn.invalidate(exc)
                raise Broken(str(exc)) from exc
            raise
        return [None] * len(batch)

    def _sqlite_appends(self, conn: Connection, batch: list[Job]) -> list[Any]:
        """A batch of action-log appends only on SQLite, through sqlite3 itself (:mod:`.db_appends`)."""
        wanted = {job.fence for job in batch if job.fence is not None}
        sqlite_appends(
            cast(Any, conn.connection.driver_connection),
            [job.row for job in batch if job.row is not None],
            writer=self._judge_fence if self.token is not None else None,
            rooms=sorted({r for r, _ in wanted}),
            judge_rooms=lambda current: self._judge_rooms(wanted, current),
        )  # no token: the worker begins IMMEDIATE and waits for the lock (the loop's one statement would fail)
        return [None] * len(batch)

    def _execute(self, conn: Connection, batch: list[Job]) -> list[Any]:
        """Run the jobs in order; runs of action-log appends become one multi-row insert (SQLAlchemy Core:
        no ORM unit of work), a :class:`~paohuzi.server.statements.CoreJob` runs on the connection itself, and
        the other jobs share one session on the same connection and transaction."""
        results: list[Any] = []
        rows: list[ActionLogValues] = []  # the column values of the appends in a row
        session: Session | None = None
        try:
            for job in batch:
                if job.row is not None:
                    if session is not None and not rows:
                        session.flush()  # the session's own writes first, in the jobs' order
                    rows.append(job.row.values())
                    results.append(None)
                    continue
                if rows:
                    conn.execute(_INSERT_ACTIONS, rows)
                    rows = []
                if isinstance(job.fn, CoreJob):  # statements alone: no session made for it (issue 33)
                    if session is not None:
                        session.flush()  # the session's own writes first, in the jobs' order
                    results.append(job.fn.body(conn))
                    if session is not None:
                        session.expire_all()  # its objects may be stale now
                    continue
                if session is None:
                    session = Session(bind=conn, expire_on_commit=False)
                assert job.fn is not None
                results.append(job.fn(session))
            if session is not None:
                session.flush()
            if rows:
                conn.execute(_INSERT_ACTIONS, rows)
        finally:
            if session is not None:
                session.close()
        return results


class RoomStore:
    """The database as one room sees it in the shared mode: every job and action-log append carries the
    room's fence (room id, token), checked in the job's transaction."""

    def __init__(self, db: Database, fence: Fence) -> None:
        self.db, self.fence = db, fence

    async def run(self, fn: Callable[[Session], T], *, hand: int | None = None) -> T:
        return await self.db.run(fn, self.fence, hand=hand)

    async def append_action(self, row: ActionLogRow) -> None:
        await self.db.append_action(row, self.fence)
