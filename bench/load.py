"""Load test of the game server: N concurrent tables of bot clients over real websockets.

Starts ``--servers`` processes of ``paohuzi serve`` on free ports (or uses ``--url``), makes N private rooms
of three guest players each, and lets every player play its seat: when its view has legal actions it waits
``--think`` seconds (a person's pace; 0 for flat out), sends one of them, and times how long the server
takes to answer with the ``update`` carrying the action's ``id`` (the action latency: frame in → engine →
action log committed → frames out → frame read). Matches are played back to back.

Where the servers keep their data:

- no ``--database-url``: a fresh SQLite file per process;
- ``--database-url postgresql://…`` without ``--redis-url``: one PostgreSQL server, a fresh schema per
  process (the writer fence lets one process write a database, docs/server.md). The tables are dealt out
  round-robin: each is created on one process and its three players connect to that process;
- ``--database-url postgresql://… --redis-url redis://…``: the shared mode (issue 14): every process on the
  same schema and Redis, and each player connects to any process, round-robin, whatever process holds its
  room.

Reports actions/s, p50/p90/p99/max action latency and one CPU figure: ``server_cpu_ms_per_action``, the CPU
seconds of every server process (all its threads: the event loop, the database thread, uvloop's) over the
measured seconds, divided by the actions played in them (acknowledged ``act`` frames); ``split_ms_per_action``
divides the same total between the first server's event-loop thread and its other threads (same
denominator: the two add up to that server's share) and gives the kernel's part of the whole (``system``: the
socket writes and reads, epoll, the disk; every server). Also the event loop's lag (p50/p99 of how late the
server's 0.1 s timer ran, from ``paohuzi_loop_lag_seconds``), the database thread's jobs per transaction (more
under load: the CPU per action falls when the server is starved, issue 33), PostgreSQL's and the clients' CPU,
and the machine's. ``--client-nice``/``--client-cpus`` run the client processes (each in a process group of
its own) at a lower priority or on chosen cores, so that they take less of the server's CPU. Figures go to
docs/PERFORMANCE.md with the command that produced them.

    .venv/bin/python bench/load.py --tables 300 --duration 60
    .venv/bin/python bench/load.py --tables 1000 --servers 2 --database-url postgresql://postgres@127.0.0.1/test
    .venv/bin/python bench/load.py --tables 50 --think 0 --duration 30      # flat out
    .venv/bin/python bench/load.py --tables 300 --profile /tmp/p.txt       # py-spy samples of the server
    .venv/bin/python bench/load.py --tables 1000 --procs 2 --client-nice 10  # clients yield to the server
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import orjson
from websockets.asyncio.client import connect

Table = tuple[list[str], list[str]]  # (the three players' tokens, the server URL each one connects to)


class Window(NamedTuple):
    """The measured seconds, the same for every client process (multiprocessing events the main process sets):
    count from ``start``, stop counting at ``end``, close the sockets at ``release``."""

    start: Any
    end: Any
    release: Any


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.actions = 0
        self.errors: dict[str, int] = {}
        self.hands = 0
        self.measuring = False


class _Seat:
    """What one player is waiting for: the ``id`` of its pending action, and its thinking task."""

    __slots__ = ("next_id", "pending", "task", "legal", "sent_at")

    def __init__(self) -> None:
        self.next_id = 0
        self.pending: int | None = None
        self.task: asyncio.Task[None] | None = None
        self.legal: list[str] | None = None
        self.sent_at: dict[int, float] = {}


async def _player(  # noqa: PLR0913 (one parameter per thing a player needs)
    url: str,
    token: str,
    think: float,
    stats: Stats,
    rng: random.Random,
    stop: asyncio.Event,
    started: asyncio.Event,
) -> None:
    """One player: plays each decision of its seat after a think time and times the server's answer."""
    ws_url = url.replace("http", "ws", 1) + "/ws"
    me = _Seat()
    async with connect(ws_url, max_size=2**22, open_timeout=300, ping_interval=None) as ws:

        async def act_later(frame: dict[str, Any], ref: int) -> None:
            if think > 0:
                await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
            me.sent_at[ref] = time.perf_counter()
            action = rng.choice(frame["view"]["legal"])
            with contextlib.suppress(Exception):  # closing down
                await ws.send(json.dumps({"type": "act", "action": action, "hand": frame["hand"], "id": ref}))

        async def close_at_stop() -> None:
            await stop.wait()
            await ws.close()

        closer = asyncio.create_task(close_at_stop())
        await ws.send(json.dumps({"type": "hello", "token": token}))
        await ws.send(json.dumps({"type": "ready", "ready": True}))
        try:
            async for text in ws:
                frame = orjson.loads(text)
                kind = frame["type"]
                if kind in ("game", "update"):
                    started.set()
                    ref = frame.get("id")
                    if ref is not None and ref == me.pending:
                        t0 = me.sent_at.pop(ref, None)
                        if t0 is not None and stats.measuring:
                            stats.latencies.append(time.perf_counter() - t0)
                            stats.actions += 1
                        me.pending = None
                    legal = frame["view"]["legal"]
                    if me.pending is not None and me.pending not in me.sent_at and me.task is not None:
                        # still thinking: if the decision changed meanwhile, think about the new one
                        if legal != me.legal:
                            me.task.cancel()
                            me.pending = None
                    if me.pending is None and legal:
                        me.next_id += 1
                        me.pending = me.next_id
                        me.legal = legal
                        me.task = asyncio.create_task(act_later(frame, me.next_id))
                elif kind == "error":
                    if frame.get("id") == me.pending:
                        me.pending = None  # the decision went away (a claim of higher priority won)
                    if stats.measuring:
                        stats.errors[frame["code"]] = stats.errors.get(frame["code"], 0) + 1
                elif kind == "hand_over":
                    me.pending = None
                    if stats.measuring:
                        stats.hands += 1
                elif kind == "match_over":
                    me.pending = None
                    await ws.send(json.dumps({"type": "rematch"}))
        except Exception:  # noqa: BLE001 — the connection closed (at the stop, or the server went)
            if not stop.is_set():
                raise
        finally:
            closer.cancel()
            if me.task is not None:
                me.task.cancel()


def _make_table(http: httpx.Client) -> list[str]:
    tokens = [http.post("/api/guests").raise_for_status().json()["token"] for _ in range(3)]
    head = {"Authorization": f"Bearer {tokens[0]}"}
    options = {"hands": 64, "turn_seconds": 300, "claim_seconds": 300}
    code = http.post("/api/rooms", json=options, headers=head).raise_for_status().json()["room"]["code"]
    for t in tokens[1:]:
        http.post(f"/api/rooms/{code}/join", headers={"Authorization": f"Bearer {t}"}).raise_for_status()
    return tokens


def _make_tables(urls: list[str], tables: int, shared: bool, relayed: bool = False) -> list[Table]:
    """``tables`` rooms dealt round-robin over the servers, made two at a time per server. A player
    connects to the server of its room, or in the shared mode to the next server in turn (``relayed``: every
    player to a server other than its room's, so that every frame is relayed)."""

    def on(i: int) -> Table:
        url = urls[i % len(urls)]
        with httpx.Client(base_url=url, timeout=120) as http:
            tokens = _make_table(http)
        if shared and relayed:
            return tokens, [urls[(i + 1 + k % (len(urls) - 1)) % len(urls)] for k in range(3)]
        if shared:
            return tokens, [urls[(3 * i + k) % len(urls)] for k in range(3)]
        return tokens, [url] * 3

    with ThreadPoolExecutor(2 * len(urls)) as pool:
        return list(pool.map(on, range(tables)))


async def _drive(  # noqa: PLR0913 (the worker's settings, passed through a process boundary)
    tables: list[Table], think: float, warmup: float, seed: int, out: Any, window: Window
) -> dict[str, Any]:
    stats = Stats()
    stop = asyncio.Event()
    rng = random.Random(seed)
    started = [asyncio.Event() for _ in tables]
    tasks = []
    for i, (tokens, urls) in enumerate(tables):
        for token, url in zip(tokens, urls, strict=True):
            player = _player(url, token, think, stats, random.Random(rng.random()), stop, started[i])
            tasks.append(asyncio.create_task(player))
            await asyncio.sleep(0)
    waiting = asyncio.gather(*(e.wait() for e in started))
    try:
        await asyncio.wait_for(waiting, timeout=600)
    except TimeoutError:
        failed = [t for t in tasks if t.done() and t.exception() is not None]
        reason = repr(failed[0].exception()) if failed else "no reason seen"
        missing = sum(1 for e in started if not e.is_set())
        raise SystemExit(f"{missing} of {len(tables)} tables did not start in 600 s ({reason})") from None
    await asyncio.sleep(warmup)
    out.put("warm")
    # one window for every client process, set by the main process around its CPU readings: no process
    # is still starting its tables, or already closing its sockets, while the others are measured
    await asyncio.to_thread(window.start.wait)
    stats.measuring = True
    t0 = time.perf_counter()
    await asyncio.to_thread(window.end.wait)
    stats.measuring = False
    elapsed = time.perf_counter() - t0
    await asyncio.to_thread(window.release.wait)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "latencies": stats.latencies,
        "actions": stats.actions,
        "errors": stats.errors,
        "hands": stats.hands,
        "elapsed": elapsed,
    }


def _worker(  # noqa: PLR0913 (the worker's settings, passed through a process boundary)
    tables: list[Table], think: float, warmup: float, seed: int, out: Any, window: Window, nice: int = 0,
    cpus: tuple[int, ...] = (),
) -> None:
    os.setpgid(0, 0)  # a process group of its own: the clients apart from the servers
    if nice:
        os.nice(nice)
    if cpus:
        os.sched_setaffinity(0, cpus)
    try:
        out.put(asyncio.run(_drive(tables, think, warmup, seed, out, window)))
    except BaseException as exc:  # noqa: BLE001 — told to the main process, which stops
        out.put({"error": f"client process failed: {exc!r}"})


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _system_seconds(pid: int) -> float:
    """System (kernel) CPU seconds of a process so far: the socket writes and reads, epoll, the disk (0 once gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return int(fields[12]) / os.sysconf("SC_CLK_TCK")


def _thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds so far of a process's main thread (the event loop) and of its other threads together."""
    out: dict[str, float] = {}
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                name = "main" if task.name == str(pid) else "others"
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
                ticks = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
                out[name] = out.get(name, 0.0) + ticks
    return out


def _postgres_cpu() -> float:
    """CPU seconds of every PostgreSQL process on this machine so far (its backends, WAL writer …)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if (entry / "comm").read_text().strip().startswith("postgres"):
                    total += _cpu_seconds(int(entry.name))
    return total


def _scrape(url: str) -> dict[str, float]:
    """The server's Prometheus samples that the report uses: the loop-lag histogram and the database batches."""
    wanted = (
        "paohuzi_loop_lag_seconds_bucket", "paohuzi_db_batch_jobs_sum", "paohuzi_db_batch_jobs_count",
        "paohuzi_lease_changes_total", "paohuzi_relay_messages_total", "paohuzi_db_commit_seconds_bucket",
        "paohuzi_action_seconds_bucket",
    )
    try:
        text = httpx.get(url + "/metrics", timeout=30).text
    except httpx.HTTPError:
        return {}
    return {
        name: float(value)
        for line in text.splitlines()
        if line.startswith(wanted)
        for name, value in [line.rsplit(" ", 1)]
    }


def _quantile(
    before: dict[str, float], after: dict[str, float], q: float, metric: str, label: str = ""
) -> float | None:
    """The ``q`` quantile (seconds) of a histogram (``metric``: its buckets' name; only the series with
    ``label``) observed between two scrapes, interpolated in its bucket as Prometheus'
    ``histogram_quantile`` does; None without observations."""
    buckets = []
    for name, value in after.items():
        if name.startswith(metric) and label in name:
            le = name.split('le="', 1)[1].split('"', 1)[0]
            buckets.append((float("inf") if le == "+Inf" else float(le), value - before.get(name, 0.0)))
    buckets.sort()
    if not buckets or buckets[-1][1] <= 0:
        return None
    rank, low, below = q * buckets[-1][1], 0.0, 0.0
    for bound, count in buckets:
        if count >= rank:
            if bound == float("inf"):
                return low
            return low + (bound - low) * ((rank - below) / (count - below) if count > below else 1.0)
        low, below = bound, count
    return low


def _machine_busy() -> tuple[float, float]:
    """(busy, total) CPU ticks of the whole machine so far (/proc/stat)."""
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    return float(sum(values) - idle), float(sum(values))


def _start_server(
    workdir: Path, database_url: str, redis_url: str | None, prefix: str
) -> tuple[subprocess.Popen[bytes], str]:
    env = dict(
        os.environ,
        PAOHUZI_LOG_LEVEL="INFO",  # for the port line; the room/hand lines are few
        PAOHUZI_BETWEEN_HANDS="0.2",
        PAOHUZI_RATE="50",
        PAOHUZI_BURST="100",
        PAOHUZI_HTTP_RATE="100000",
        PAOHUZI_HTTP_BURST="100000",
        PAOHUZI_READY_SECONDS="0",  # set-up of 1,000 tables takes longer than the default minute
    )
    if redis_url:
        env["PAOHUZI_REDIS_URL"] = redis_url
        env["PAOHUZI_REDIS_PREFIX"] = prefix  # each run its own keys: a fresh schema's player ids start at 1 again
    workdir.mkdir(parents=True, exist_ok=True)
    log_path = workdir / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "paohuzi.cli", "serve", "--port", "0", "--database-url", database_url],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = re.search(r"running on (http://127\.0\.0\.1:\d+)", log_path.read_text(errors="replace"))
        if found:
            return proc, found.group(1)
        if proc.poll() is not None:
            raise SystemExit("server failed to start:\n" + log_path.read_text(errors="replace")[-2000:])
        time.sleep(0.1)
    raise SystemExit("server did not start in time")


@contextlib.contextmanager
def _databases(args: argparse.Namespace, tmp: Path) -> Iterator[list[str]]:
    """One database URL per server: SQLite files, PostgreSQL schemas, or (shared mode) one schema."""
    if args.database_url is None:
        yield [f"sqlite:///{tmp / f'load{i}.sqlite3'}" for i in range(args.servers)]
        return
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(args.database_url)
    dsn = f"host={url.host or '127.0.0.1'} port={url.port or 5432} user={url.username} dbname={url.database}"
    count = 1 if args.redis_url else args.servers
    schemas = [f"paohuzi_load_{uuid.uuid4().hex[:8]}" for _ in range(count)]
    with psycopg.connect(dsn, autocommit=True) as conn:
        for schema in schemas:
            conn.execute(f'CREATE SCHEMA "{schema}"')
    base = args.database_url + ("&" if "?" in args.database_url else "?")
    urls = [f"{base}options=-csearch_path%3D{schema}" for schema in schemas]
    try:
        yield urls * args.servers if args.redis_url else urls
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for schema in schemas:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@contextlib.contextmanager
def _redis_prefix(redis_url: str | None) -> Iterator[str]:
    """A Redis key prefix for this run's servers (the shared mode), whose keys are deleted afterwards."""
    prefix = f"paohuzi-load-{uuid.uuid4().hex[:8]}"
    try:
        yield prefix
    finally:
        if redis_url:
            import redis

            client = redis.Redis.from_url(redis_url)
            keys = list(client.scan_iter(f"{prefix}:*", count=1000))
            for i in range(0, len(keys), 1000):
                client.delete(*keys[i : i + 1000])
            client.close()


def _profile(pid: int, args: argparse.Namespace) -> subprocess.Popen[bytes]:
    """py-spy (the dev extra) sampling the first server over the measured seconds (from when every client
    process has begun measuring); collapsed stacks, one line per stack and its sample count."""
    spy_bin = Path(sys.executable).with_name("py-spy")
    command = [str(spy_bin), "record", "--pid", str(pid), "--rate", "100", "--nonblocking", "--threads"]
    command += ["--format", "raw", "--output", args.profile, "--duration", str(int(args.duration))]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait_for(queue: Any, word: str, count: int, results: list[dict[str, Any]]) -> None:
    """Read the workers' queue until ``count`` of them said ``word``; results read meanwhile are kept."""
    said = 0
    while said < count:
        item = queue.get()
        if item == word:
            said += 1
        elif isinstance(item, dict):
            if "error" in item:
                raise SystemExit(item["error"])
            results.append(item)


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def _measure(urls: list[str], pids: list[int], args: argparse.Namespace) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Set the tables up, play them, and read the CPU counters over the measured seconds."""
    t_setup = time.perf_counter()
    tables = _make_tables(urls, args.tables, bool(args.redis_url), args.all_relayed)
    took = time.perf_counter() - t_setup
    print(f"{args.tables} tables ({3 * args.tables} players) on {len(urls)} servers set up in {took:.1f} s", flush=True)
    context = multiprocessing.get_context("spawn")
    queue: Any = context.Queue()
    window = Window(context.Event(), context.Event(), context.Event())
    shares = [tables[i :: args.procs] for i in range(args.procs)]
    cpus = tuple(int(c) for c in args.client_cpus.split(",")) if args.client_cpus else ()
    workers = [
        context.Process(
            target=_worker,
            args=(share, args.think, args.warmup, args.seed + i, queue, window, args.client_nice, cpus),
        )
        for i, share in enumerate(shares)
        if share
    ]
    t_start = time.perf_counter()
    for w in workers:
        w.start()
    try:
        return _play(urls, pids, args, workers, queue, window, t_start)
    finally:  # a failed run lets its clients finish too (they wait on the window)
        for event in window:
            event.set()


def _play(  # noqa: PLR0913 (the measurement's parts, from _measure)
    urls: list[str], pids: list[int], args: argparse.Namespace, workers: list[Any], queue: Any, window: Window,
    t_start: float,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Warm up, measure one window for every client process, and collect their results."""
    results: list[dict[str, Any]] = []
    _wait_for(queue, "warm", len(workers), results)
    took = time.perf_counter() - t_start - args.warmup
    print(f"every table dealt {took:.1f} s after its players began connecting (+ {args.warmup} s warm-up)", flush=True)
    scraped0 = [_scrape(url) for url in urls]
    clients0 = [_cpu_seconds(w.pid) for w in workers if w.pid is not None]
    cpu0 = [_cpu_seconds(pid) for pid in pids]
    sys0 = [_system_seconds(pid) for pid in pids]
    threads0 = _thread_cpu(pids[0]) if pids else {}
    pg0, (busy0, total0) = _postgres_cpu(), _machine_busy()
    wall0 = time.perf_counter()
    window.start.set()
    spy = _profile(pids[0], args) if args.profile and pids else None
    time.sleep(args.duration)
    window.end.set()
    wall = time.perf_counter() - wall0
    busy1, total1 = _machine_busy()
    threads1 = _thread_cpu(pids[0]) if pids else {}
    cpu1 = [_cpu_seconds(pid) for pid in pids]
    sys1 = [_system_seconds(pid) for pid in pids]
    clients1 = [_cpu_seconds(w.pid) for w in workers if w.pid is not None]
    scraped1 = [_scrape(url) for url in urls]
    window.release.set()  # the clients close their sockets only now, outside the measured seconds
    usage = {
        "servers": [(c1 - c0) / wall for c1, c0 in zip(cpu1, cpu0, strict=True)],
        "system": sum(s1 - s0 for s1, s0 in zip(sys1, sys0, strict=True)) / wall,
        "clients": sum(c1 - c0 for c1, c0 in zip(clients1, clients0, strict=True)) / wall,
        "scraped": list(zip(scraped0, scraped1, strict=True)),
        "postgres": (_postgres_cpu() - pg0) / wall,
        "machine": (busy1 - busy0) / (total1 - total0) * (os.cpu_count() or 1),
        "threads": {k: (v - threads0.get(k, 0.0)) / wall for k, v in threads1.items() if v > threads0.get(k, 0.0)},
    }
    while len(results) < len(workers):
        item = queue.get()
        if isinstance(item, dict) and "error" in item:
            raise SystemExit(item["error"])
        if isinstance(item, dict):
            results.append(item)
    for w in workers:
        w.join()
    if spy is not None:
        spy.wait(60)
    return results, usage


def _report(args: argparse.Namespace, results: list[dict[str, Any]], usage: dict[str, Any]) -> dict[str, Any]:
    latencies = [x for r in results for x in r["latencies"]]
    actions = sum(r["actions"] for r in results)
    elapsed = max(r["elapsed"] for r in results)
    errors: dict[str, int] = {}
    for r in results:
        for k, v in r["errors"].items():
            errors[k] = errors.get(k, 0) + v
    ms = [x * 1000 for x in latencies]
    server_cpu = sum(usage["servers"])
    per_action = 1000 * elapsed / actions if actions else float("nan")  # ms per action for 1 core busy

    def quantiles(metric: str, label: str = "") -> dict[str, list[float | None]]:  # ms, each server
        found = [[_quantile(b, a, q, metric, label) for q in (0.5, 0.99)] for b, a in usage["scraped"]]
        return {
            key: [round(1000 * x[i], 1) if x[i] is not None else None for x in found]
            for i, key in ((0, "p50"), (1, "p99"))
        }

    batches = [
        (a.get("paohuzi_db_batch_jobs_sum", 0.0) - b.get("paohuzi_db_batch_jobs_sum", 0.0),
         a.get("paohuzi_db_batch_jobs_count", 0.0) - b.get("paohuzi_db_batch_jobs_count", 0.0))
        for b, a in usage["scraped"]
    ]
    jobs, txns = sum(j for j, _ in batches), sum(t for _, t in batches)

    def delta(name: str) -> int:  # a counter's increase over the measured seconds, every server together
        return round(sum(a.get(name, 0.0) - b.get(name, 0.0) for b, a in usage["scraped"]))

    leases = {c: delta(f'paohuzi_lease_changes_total{{change="{c}"}}') for c in ("acquired", "lost", "released")}
    lost_since_start = round(sum(a.get('paohuzi_lease_changes_total{change="lost"}', 0.0) for _, a in usage["scraped"]))
    relay = {w: delta(f'paohuzi_relay_messages_total{{way="{w}"}}') for w in ("sent", "packets_sent")}
    mode = "shared (one schema, Redis)" if args.redis_url else "own database per process"
    return {
        "tables": args.tables,
        "servers": args.servers,
        "mode": mode if args.url is None else "--url",
        "database": "postgresql" if args.database_url else "sqlite",
        "think_s": args.think,
        "duration_s": round(elapsed, 1),
        "actions": actions,
        "actions_per_s": round(actions / elapsed, 1),
        "hands": sum(r["hands"] for r in results) // 3,  # each of a table's three players reads the hand_over
        "latency_ms": {
            "p50": round(_pct(ms, 50), 1),
            "p90": round(_pct(ms, 90), 1),
            "p99": round(_pct(ms, 99), 1),
            "max": round(max(ms), 1) if ms else None,
        },
        "server_cpu": round(server_cpu, 2),
        "server_cpu_each": [round(x, 2) for x in usage["servers"]],
        "server_cpu_ms_per_action": round(server_cpu * per_action, 3) if actions else None,
        "split_ms_per_action": {
            "event_loop": round(usage["threads"].get("main", 0.0) * per_action, 3),
            "other_threads": round(usage["threads"].get("others", 0.0) * per_action, 3),
            # of the whole figure (every server), the kernel's part: socket writes and reads, epoll, the disk
            "system": round(usage["system"] * per_action, 3),
        },
        "loop_lag_ms": quantiles("paohuzi_loop_lag_seconds_bucket"),
        "db_jobs_per_transaction": round(jobs / txns, 2) if txns else None,
        # the server's own share of the latency: an `act` from receipt to answered (applied, committed, sent),
        # and one database transaction with its commit (both interpolated in their histograms' buckets)
        "server_act_ms": quantiles("paohuzi_action_seconds_bucket", 'result="ok"'),
        "db_transaction_ms": quantiles("paohuzi_db_commit_seconds_bucket"),
        # the shared mode: rooms changing owner while measured (acquired/lost; none is created then), leases
        # lost since the servers started, and the relay's messages per action and per Redis publish
        "lease_changes": leases if args.redis_url else None,
        "leases_lost_since_start": lost_since_start if args.redis_url else None,
        "relay": {  # None from a server without the relay's counters (before issue 33)
            "messages_per_action": round(relay["sent"] / actions, 2) if actions else None,
            "messages_per_publish": round(relay["sent"] / relay["packets_sent"], 2) if relay["packets_sent"] else None,
        } if relay["packets_sent"] else None,
        "postgres_cpu": round(usage["postgres"], 2) if args.database_url else None,
        "machine_cpu": round(usage["machine"], 2),
        "client_cpu": round(usage["clients"], 2),
        "client_nice_cpus": [args.client_nice, args.client_cpus],
        "errors": errors,
        "cpus": os.cpu_count(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds a player takes per decision")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds played before measuring")
    parser.add_argument("--procs", type=int, default=1, help="client processes")
    parser.add_argument("--servers", type=int, default=1, help="server processes started here")
    parser.add_argument("--url", default=None, help="use this running server instead of starting any")
    parser.add_argument("--database-url", default=None, help="PostgreSQL for the servers (default: SQLite files)")
    parser.add_argument(
        "--redis-url", default=None, help="the shared mode: every server on one schema and this Redis"
    )
    parser.add_argument(
        "--all-relayed", action="store_true", help="shared mode: every player on a server other than its room's"
    )
    parser.add_argument("--logs", default=None, metavar="DIR", help="keep the servers' logs in DIR/server<i>/")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--client-nice", type=int, default=0, help="niceness of the client processes (0-19)")
    parser.add_argument("--client-cpus", default="", help="cores the client processes may use, e.g. 1 or 0,1")
    parser.add_argument(
        "--profile", default=None, metavar="FILE", help="py-spy samples of the (first) server to FILE while measuring"
    )
    args = parser.parse_args(argv)
    if args.redis_url and not args.database_url:
        parser.error("--redis-url needs --database-url (the processes share one PostgreSQL)")
    if args.all_relayed and (not args.redis_url or args.servers < 2):
        parser.error("--all-relayed needs the shared mode (--redis-url) and --servers 2 or more")
    # SIGTERM (e.g. from `timeout`) unwinds like an error, so the servers stop and the schemas are dropped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("bench/load.py: terminated"))

    with tempfile.TemporaryDirectory(prefix="paohuzi-load-") as tmp:
        procs: list[subprocess.Popen[bytes]] = []
        try:
            if args.url is not None:
                urls = [args.url]
                results, usage = _measure(urls, [], args)
            else:
                with _databases(args, Path(tmp)) as databases, _redis_prefix(args.redis_url) as prefix:
                    urls = []
                    for i, database in enumerate(databases):
                        logs = Path(args.logs) if args.logs else Path(tmp)
                        proc, url = _start_server(logs / f"server{i}", database, args.redis_url, prefix)
                        procs.append(proc)
                        urls.append(url)
                    try:
                        results, usage = _measure(urls, [p.pid for p in procs], args)
                    finally:
                        for proc in procs:
                            proc.terminate()
                        for proc in procs:
                            proc.wait(30)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
    print(json.dumps(_report(args, results, usage), indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
