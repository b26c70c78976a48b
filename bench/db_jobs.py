"""CPU of the game server's two commonest database jobs, on the database worker's own path (issue 14 item 6):

- one action-log append in its own transaction (fence checks, insert, commit): writer-fenced as one process
  does it, and room-fenced as the shared mode does it;
- one append as the game awaits it (``Database.append_action`` on an event loop, one after another): the
  process's CPU, every thread, per append — the hand-over to the worker and back included; with the appends
  on the event loop (``loop_appends``, issue 33: SQLite's committed there, PostgreSQL's sent on a connection of
  the loop's own) and without (``append_awaited_worker_ms``);
- a hand's settlement (``store.finish_hand`` inside ``ledger_store.settle_hand``) for three players;
- a whole hand's per-hand jobs (issue 33), each in its own transaction as the server runs them: the
  双倍积分卡 asked as it is dealt (``double_cards.active_players``), its row (``store.create_hand``), and its
  settlement in a 欢乐豆 room (beans move; the winner's card doubled its 积分), each part's median too.

Each is run in a fresh PostgreSQL schema (dropped afterwards; ``--sqlite``: a fresh SQLite file), called
inline (no event loop), and timed with the calling thread's CPU clock; the median over the runs after a
warm-up is printed. To compare two versions of the server, run the same command with ``PYTHONPATH`` naming
each one's ``src`` in turn (A/B, several times: the machine is shared).

    PYTHONPATH=src .venv/bin/python bench/db_jobs.py
    PYTHONPATH=/tmp/old/src .venv/bin/python bench/db_jobs.py
    PYTHONPATH=src .venv/bin/python bench/db_jobs.py --sqlite     # one process's SQLite (issue 33)
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

PG = "host=127.0.0.1 port=5432 user=postgres dbname=test"


SQLITE = False  # --sqlite: the jobs run on a SQLite file instead


@contextmanager
def _running(url: str, loop_appends: bool = True) -> Iterator[Any]:
    """The server's database on ``url``, migrated and taken over, stopped afterwards."""
    from paohuzi.server.db import Database

    db = Database(url, loop_appends=loop_appends)
    try:
        db.migrate()
        db.take_over("bench")
        yield db
    finally:
        db.stop()


@contextmanager
def _database(loop_appends: bool = True) -> Iterator[Any]:
    import psycopg

    if SQLITE:
        import tempfile

        with tempfile.TemporaryDirectory() as folder, _running(f"sqlite:///{folder}/bench.sqlite3", loop_appends) as db:
            yield db
        return
    schema = "paohuzi_bench_" + uuid.uuid4().hex[:8]
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        url = f"postgresql+psycopg://postgres@127.0.0.1:5432/test?options=-csearch_path%3D{schema}"
        with _running(url, loop_appends) as db:
            yield db
    finally:
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def _rules() -> Any:
    from paohuzi.rules import find_preset

    return find_preset("qq")


def _options() -> Any:
    """A quick play's room options (what the server stores for a room)."""
    from paohuzi.server.config import Settings
    from paohuzi.server.protocol import QuickPlayIn
    from paohuzi.server.room_options import room_options

    return room_options(Settings(), QuickPlayIn(), quick=True)


def _median_ms(step: Callable[[], None], runs: int, warmup: int = 20) -> float:
    times = []
    for i in range(warmup + runs):
        t0 = time.thread_time()
        step()
        if i >= warmup:
            times.append(time.thread_time() - t0)
    return round(statistics.median(times) * 1000, 3)


def appends(runs: int, room_fenced: bool) -> float:
    """Median CPU (ms) of a one-append transaction through the worker's batch path."""
    from paohuzi.server import store
    from paohuzi.server.db import fence_room
    from paohuzi.server.db_worker import Job

    with _database() as db:
        room = db.run_now(store.create_room("123456", "private", None, _options(), 3))
        match = db.run_now(store.create_match(room, 7, _rules(), 1, [store.MatchSeatRow(None, "greedy", "g")] * 3))
        hand = db.run_now(store.create_hand(match, 1, 7, 0, _rules()))
        fence = None
        if room_fenced:
            db.run_now(fence_room(room, 5, "bench"))
            fence = (room, 5)
        seq = iter(range(1, 10**6))

        def step() -> None:
            db.workers[0].run_batch([Job(None, None, None, store.action_row(hand, next(seq), 0, "pass", "bot"), fence)])

        return _median_ms(step, runs)


def awaited_appends(runs: int, loop_appends: bool) -> float:
    """The process's CPU (ms, every thread) per append awaited through ``Database.append_action`` on an event
    loop, one after another (the median of 5 rounds of ``runs``)."""
    import asyncio
    import resource

    from paohuzi.server import store

    def cpu() -> float:
        used = resource.getrusage(resource.RUSAGE_SELF)
        return used.ru_utime + used.ru_stime

    async def rounds(db: Any) -> list[float]:
        db.start()
        room = await db.run(store.create_room("123456", "private", None, _options(), 3))
        match = await db.run(store.create_match(room, 7, _rules(), 1, [store.MatchSeatRow(None, "greedy", "g")] * 3))
        hand = await db.run(store.create_hand(match, 1, 7, 0, _rules()))
        seq, took = 0, []
        for _ in range(6):  # the first round warms up
            started = cpu()
            for _ in range(runs):
                seq += 1
                await db.append_action(store.action_row(hand, seq, 0, "pass", "bot"))
            took.append((cpu() - started) / runs)
        return took[1:]

    with _database(loop_appends) as db:
        return round(statistics.median(asyncio.run(rounds(db))) * 1000, 3)


def settlements(runs: int) -> float:
    """Median CPU (ms) of a three-player hand's settlement job, in its transaction."""
    from paohuzi.server import ledger_store, store
    from paohuzi.server.db_worker import Job

    with _database() as db:
        players = [db.run_now(store.create_player(uuid.uuid4().hex, f"p{i}")).id for i in range(3)]
        room = db.run_now(store.create_room("123456", "private", players[0], _options(), 3))
        seats = [store.MatchSeatRow(pid, None, f"p{i}") for i, pid in enumerate(players)]
        match = db.run_now(store.create_match(room, 7, _rules(), 10**6, seats))
        outcome, record = {"winner": 0, "payments": [6, -3, -3]}, {"actions": [[0, "pass"]] * 30, "seed": 1}
        hands = iter([(n, db.run_now(store.create_hand(match, n, 7, 0, _rules()))) for n in range(1, runs + 21)])

        def step() -> None:
            n, hand = next(hands)
            results = [(players[0], 6, True), (players[1], -3, False), (players[2], -3, False)]
            finish = store.finish_hand(hand, outcome, record, match, [6 * n, -3 * n, -3 * n], results)
            job = ledger_store.settle_hand(finish, hand, players, [0, 1, 2], [6, -3, -3], 1, 0, [])
            db.workers[0].run_batch([Job(job, None, None)])

        return _median_ms(step, runs)


def _run(db: Any, fn: Callable[[Any], Any]) -> Any:
    """``fn`` as the worker runs a job (its own transaction, the fence checked); what it returned."""
    from paohuzi.server.db_worker import Job

    out: list[Any] = []
    db.workers[0].run_batch([Job(lambda s: out.append(fn(s)), None, None)])
    return out[0]


def hands(runs: int, warmup: int = 20) -> dict[str, float]:
    """Median CPU (ms) of a hand's jobs in a 欢乐豆 room (multiplier 5): ``active_players`` of its three
    players (one with a card active), ``create_hand``, and the settlement (beans move, the winner doubled)."""
    from datetime import timedelta

    from paohuzi.server import double_cards, ledger_store, store

    with _database() as db:
        players = [db.run_now(store.create_player(uuid.uuid4().hex, f"p{i}")).id for i in range(3)]
        db.run_now(double_cards.activate(players[0], timedelta(days=1).total_seconds()))
        room = db.run_now(store.create_room("123456", "private", players[0], _options(), 3))
        seats = [store.MatchSeatRow(pid, None, f"p{i}") for i, pid in enumerate(players)]
        match = db.run_now(store.create_match(room, 7, _rules(), 10**6, seats))
        outcome, record = {"winner": 0, "payments": [12, -3, -3]}, {"actions": [[0, "pass"]] * 30, "seed": 1}
        parts: dict[str, list[float]] = {"active_players_ms": [], "create_hand_ms": [], "settle_ms": []}
        totals = []
        for n in range(1, warmup + runs + 1):
            clock = [time.thread_time()]
            active = _run(db, double_cards.active_players(players))
            clock.append(time.thread_time())
            doubled = sorted(i for i, pid in enumerate(players) if pid in active)
            hand = _run(db, store.create_hand(match, n, 7, 0, _rules(), doubled))
            clock.append(time.thread_time())
            results = [(players[0], 12, True), (players[1], -3, False), (players[2], -3, False)]
            finish = store.finish_hand(hand, outcome, record, match, [12 * n, -3 * n, -3 * n], results)
            _run(db, ledger_store.settle_hand(finish, hand, players, [0, 1, 2], [12, -3, -3], 3, 5, doubled))
            clock.append(time.thread_time())
            if n > warmup:
                for name, a, b in zip(parts, clock, clock[1:], strict=False):
                    parts[name].append(b - a)
                totals.append(clock[-1] - clock[0])
        report = {name: round(statistics.median(xs) * 1000, 3) for name, xs in parts.items()}
        return {"hand_jobs_ms": round(statistics.median(totals) * 1000, 3), **report}


def awaited_hands(hands_each: int, tables: int = 20, loop_appends: bool = True) -> dict[str, float]:
    """The process's CPU (ms, every thread) and the database worker thread's per hand, with ``tables`` tables
    playing on one event loop as game.py stores a hand: its 双倍积分卡 asked and its row written as it is dealt,
    93 appends awaited one by one (a table's actions ~2 ms apart, the tables' starts spread), its settlement
    (issue 33: the worker's share includes the hand-over, the GIL's and the page cache's costs, the appends
    that fall back to it while a job is in flight, and the WAL checkpoints of its commits)."""
    import asyncio
    import random
    import resource
    import threading
    from datetime import timedelta

    from paohuzi.server import double_cards, ledger_store, store

    def cpu(ident: int | None = None) -> float:
        if ident is not None:
            return time.clock_gettime(time.pthread_getcpuclockid(ident))
        used = resource.getrusage(resource.RUSAGE_SELF)
        return used.ru_utime + used.ru_stime

    async def play(db: Any) -> dict[str, float]:
        db.start()
        rules, shuffle = _rules(), random.Random(7)
        setup = []
        for t in range(tables):
            players = [db.run_now(store.create_player(uuid.uuid4().hex, f"p{t}.{i}")).id for i in range(3)]
            db.run_now(double_cards.activate(players[0], timedelta(days=1).total_seconds()))
            room = db.run_now(store.create_room(f"{t:06d}", "private", players[0], _options(), 3))
            seats = [store.MatchSeatRow(pid, None, f"p{i}") for i, pid in enumerate(players)]
            setup.append((players, db.run_now(store.create_match(room, 7, rules, 10**6, seats))))
        outcome, record = {"winner": 0, "payments": [12, -3, -3]}, {"actions": [[0, "pass"]] * 93, "seed": 1}

        async def table(players: list[int], match: int) -> None:
            await asyncio.sleep(shuffle.random() * 0.2)
            for n in range(1, hands_each + 1):
                active = await db.run(double_cards.active_players(players))
                doubled = sorted(i for i, pid in enumerate(players) if pid in active)
                hand = await db.run(store.create_hand(match, n, 7, 0, rules, doubled))
                for seq in range(1, 94):
                    await db.append_action(store.action_row(hand, seq, seq % 3, "pass", "bot"))
                    await asyncio.sleep(0.002)
                results = [(players[0], 12, True), (players[1], -3, False), (players[2], -3, False)]
                finish = store.finish_hand(hand, outcome, record, match, [12 * n, -3 * n, -3 * n], results)
                job = ledger_store.settle_hand(finish, hand, players, [0, 1, 2], [12, -3, -3], 3, 5, doubled)
                await db.run(job, hand=hand)

        worker = next(t.ident for t in threading.enumerate() if t.name == "paohuzi-db")  # the first worker
        loop = threading.get_ident()
        before = cpu(), cpu(worker), cpu(loop)
        await asyncio.gather(*(table(p, m) for p, m in setup))
        after = cpu(), cpu(worker), cpu(loop)
        count = tables * hands_each
        return {
            name: round((b - a) / count * 1000, 3)
            for name, a, b in zip(("process", "worker", "loop"), before, after, strict=True)
        }

    with _database(loop_appends) as db:
        return asyncio.run(play(db))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--sqlite", action="store_true", help="a SQLite file instead of PostgreSQL")
    parser.add_argument("--hands-only", action="store_true", help="only the hands awaited from an event loop")
    args = parser.parse_args()
    global SQLITE  # noqa: PLW0603 (one switch for the jobs' database)
    SQLITE = args.sqlite
    if args.hands_only:
        hands_each = max(2, args.runs // 60)
        print(json.dumps({
            "hand_awaited_ms": awaited_hands(hands_each),
            **({"hand_awaited_worker_ms": awaited_hands(hands_each, loop_appends=False)} if SQLITE else {}),
            "database": "sqlite" if SQLITE else "postgresql",
            "loadavg": [round(x, 2) for x in __import__("os").getloadavg()],
        }))
        return
    report = {
        "append_writer_fenced_ms": appends(args.runs, False),
        "append_room_fenced_ms": appends(args.runs, True),
        "append_awaited_ms": awaited_appends(args.runs, True),
        "append_awaited_worker_ms": awaited_appends(args.runs, False),
        "settlement_ms": settlements(max(20, args.runs // 3)),
        **hands(max(20, args.runs // 3)),
        "hand_awaited_ms": awaited_hands(max(2, args.runs // 60)),
        "database": "sqlite" if SQLITE else "postgresql",
        "loadavg": [round(x, 2) for x in __import__("os").getloadavg()],
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
