"""Issue 33: the CPU of one PostgreSQL statement through SQLAlchemy Core (as the server's per-hand jobs run them)
against psycopg alone (prepared), on a worker-like thread: where a hand's database jobs spend their time.

    PYTHONPATH=src .venv/bin/python bench/pg_statement.py          # µs of CPU (and of wall) a statement

A table of its own (``bench_statement``) in the ``test`` database, dropped afterwards. Figures in
docs/PERFORMANCE.md ("Issue 33: the game websocket's read path …").
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import psycopg
from sqlalchemy import Column, Integer, MetaData, Table, bindparam, create_engine, select, update

DSN = "host=127.0.0.1 port=5432 user=postgres dbname=test"


def _per_call(fn: Callable[[], None], n: int) -> dict[str, float]:
    fn()  # warm: compiled, prepared
    cpu, wall = time.thread_time(), time.perf_counter()
    fn()
    return {
        "cpu_us": round((time.thread_time() - cpu) / n * 1e6, 1),
        "wall_us": round((time.perf_counter() - wall) / n * 1e6, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n", type=int, default=2000, help="statements a measurement")
    n = parser.parse_args().n
    engine = create_engine("postgresql+psycopg://postgres@127.0.0.1/test")
    meta = MetaData()
    t = Table(
        "bench_statement", meta, Column("id", Integer, primary_key=True), Column("v", Integer), Column("w", Integer)
    )
    meta.drop_all(engine)
    meta.create_all(engine)
    try:
        with engine.begin() as c:
            c.execute(t.insert(), [{"id": i, "v": 0, "w": 0} for i in range(10)])
        add = update(t).where(t.c.id == bindparam("b_id")).values(v=t.c.v + bindparam("b_d"))
        read = select(t.c.id, t.c.v, t.c.w).where(t.c.id.in_(bindparam("b_ids", expanding=True)))
        out: dict[str, dict[str, float]] = {}
        with engine.connect() as c:

            def sa_update() -> None:
                for _ in range(n):
                    c.execute(add, {"b_id": 3, "b_d": 1})

            def sa_select() -> None:
                for _ in range(n):
                    c.execute(read, {"b_ids": [1, 2, 3]}).all()

            out["sqlalchemy_update"] = _per_call(sa_update, n)
            out["sqlalchemy_select_in"] = _per_call(sa_select, n)
            c.commit()
        with psycopg.connect(DSN) as pc:
            cur = pc.cursor()

            def pg_update() -> None:
                for _ in range(n):
                    cur.execute("UPDATE bench_statement SET v = v + %s WHERE id = %s", (1, 3), prepare=True)

            def pg_select() -> None:
                for _ in range(n):
                    cur.execute("SELECT id, v, w FROM bench_statement WHERE id = ANY(%s)", ([1, 2, 3],), prepare=True)
                    cur.fetchall()

            out["psycopg_update"] = _per_call(pg_update, n)
            out["psycopg_select_in"] = _per_call(pg_select, n)
            pc.commit()
        print(json.dumps(out))
    finally:
        meta.drop_all(engine)


if __name__ == "__main__":
    main()
