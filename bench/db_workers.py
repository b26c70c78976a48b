"""The database's side of an action's latency at many tables, with one or several workers (issue 33).

``--tables`` tables each append an action, wait for its commit, then think ``--think`` seconds (jittered,
as ``bench/load.py``'s players do), for ``--duration`` seconds after a warm-up; every ``--hand`` actions a
table settles its hand (``ledger_store.settle_hand``, three players) and stores a new one — the server's
other jobs. Meanwhile the event loop is kept busy ``--loop-busy`` of the time in slices of 0.5 ms of Python
(the server's loop builds and sends frames: ~45 % busy at 1,000 tables), so the database threads wait for
the GIL as in the server. No websockets, no engine: what is timed is :meth:`Database.append_action` from
call to commit, on the server's own ``Database`` (uvloop): the wait of a player's action in the database. The
``--connections`` values are run in turn, ``--rounds`` times (alternating: the machine is shared), each in
a fresh PostgreSQL schema with ``synchronous_commit`` as the server has it (on).

    PYTHONPATH=src .venv/bin/python bench/db_workers.py --tables 1000 --connections 1,4 --rounds 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
import uuid
from typing import Any

PG = "host=127.0.0.1 port=5432 user=postgres dbname=test"
URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test?options=-csearch_path%3D{schema}"


async def _run(db: Any, args: argparse.Namespace) -> dict[str, Any]:  # noqa: C901, PLR0915 (one scenario)
    from paohuzi.rules import find_preset
    from paohuzi.server import ledger_store, store
    from paohuzi.server.config import Settings
    from paohuzi.server.protocol import QuickPlayIn
    from paohuzi.server.room_options import room_options

    rules = find_preset("qq")
    options = room_options(Settings(), QuickPlayIn(), quick=True)
    room = await db.run(store.create_room("123456", "private", None, options, 3))
    players = [(await db.run(store.create_player(uuid.uuid4().hex, f"p{i}"))).id for i in range(3)]
    seats = [store.MatchSeatRow(pid, None, f"p{i}") for i, pid in enumerate(players)]
    match = await db.run(store.create_match(room, 7, rules, 10**6, seats))
    tables, think, hand_every, warmup, duration = args.tables, args.think, args.hand, args.warmup, args.duration
    latencies: list[float] = []
    settles: list[float] = []  # a settlement's wait, call to commit
    start = time.monotonic()
    measure_from, stop_at = start + warmup, start + warmup + duration
    cpu: list[float] = []

    async def table(i: int) -> None:
        rng = random.Random(i)
        number = i * 10**4
        await asyncio.sleep(rng.random() * think)
        while time.monotonic() < stop_at:
            number += 1
            hand = await db.run(store.create_hand(match, number, 7, 0, rules))
            for seq in range(1, hand_every + 1):
                t0 = time.monotonic()
                await db.append_action(store.action_row(hand, seq, seq % 3, "pass", "bot"))
                t1 = time.monotonic()
                if measure_from <= t0 and t1 <= stop_at:
                    latencies.append(t1 - t0)
                if t1 >= stop_at:
                    return
                await asyncio.sleep(think * (0.5 + rng.random()))
            results = [(players[0], 6, True), (players[1], -3, False), (players[2], -3, False)]
            outcome, record = {"winner": 0, "payments": [6, -3, -3]}, {"actions": [[0, "pass"]] * 30, "seed": 1}
            finish = store.finish_hand(hand, outcome, record, match, [6, -3, -3], results)
            t0 = time.monotonic()
            await db.run(ledger_store.settle_hand(finish, hand, players, [0, 1, 2], [6, -3, -3], 1, 0, []))
            if measure_from <= t0:
                settles.append(time.monotonic() - t0)

    async def busy() -> None:
        if args.loop_busy <= 0:
            return
        rest = 0.0005 * (1 - args.loop_busy) / args.loop_busy
        while time.monotonic() < stop_at:
            until = time.perf_counter() + 0.0005
            while time.perf_counter() < until:
                pass
            await asyncio.sleep(rest)

    async def clock() -> None:
        await asyncio.sleep(max(0.0, measure_from - time.monotonic()))
        cpu.append(time.process_time())
        await asyncio.sleep(max(0.0, stop_at - time.monotonic()))
        cpu.append(time.process_time())

    await asyncio.gather(clock(), busy(), *(table(i) for i in range(tables)))
    latencies.sort()

    def pct(p: float) -> float:
        return round(latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000, 1)

    jobs = sum(w.batches for w in db.workers)
    return {
        "appends_per_s": round(len(latencies) / duration, 1),
        "p50_ms": pct(0.5),
        "p90_ms": pct(0.9),
        "p99_ms": pct(0.99),
        "max_ms": round(latencies[-1] * 1000, 1),
        "process_cpu_ms_per_append": round((cpu[1] - cpu[0]) * 1000 / max(1, len(latencies)), 3),
        "transactions": jobs,
        "transactions_each": [w.batches for w in db.workers],
        "settlement_p50_p99_ms": [round(1000 * sorted(settles)[int(q * len(settles))], 1) for q in (0.5, 0.99)]
        if settles
        else None,
    }


def one(connections: int, args: argparse.Namespace) -> dict[str, Any]:
    import psycopg
    import uvloop

    from paohuzi.server.db import Database

    schema = "paohuzi_bench_" + uuid.uuid4().hex[:8]
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    db = Database(URL.format(schema=schema), connections=connections)
    try:
        db.migrate()
        db.take_over("bench")
        db.start()
        result = uvloop.run(_run(db, args))
    finally:
        db.stop()
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    return {"connections": connections, **result, "loadavg": [round(x, 2) for x in os.getloadavg()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--think", type=float, default=1.0, help="seconds between a table's actions (mean)")
    parser.add_argument("--hand", type=int, default=55, help="actions a hand (then a new hand: a job)")
    parser.add_argument("--loop-busy", type=float, default=0.45, help="share of the event loop kept busy")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--connections", default="1,4", help="comma-separated, run in turn")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    for _ in range(args.rounds):
        for n in (int(x) for x in args.connections.split(",")):
            print(json.dumps(one(n, args)), flush=True)


if __name__ == "__main__":
    main()
