"""Load test of the game server: N concurrent tables of bot clients over real websockets.

Starts ``paohuzi serve`` on a free port with a fresh SQLite database (or uses ``--url``), makes N private
rooms of three guest players each, and lets every player play its seat: when its view has legal actions it
waits ``--think`` seconds (a person's pace; 0 for flat out), sends one of them, and times how long the
server takes to answer with the ``update`` carrying the action's ``id`` (the action latency: frame in →
engine → action log committed → frames out → frame read). Matches are played back to back.

Reports actions/s, p50/p90/p99/max action latency and the server's CPU use. Figures go to
docs/PERFORMANCE.md with the command that produced them.

    .venv/bin/python bench/load.py --tables 300 --duration 60
    .venv/bin/python bench/load.py --tables 50 --think 0 --duration 30      # flat out
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.actions = 0
        self.errors: dict[str, int] = {}
        self.hands = 0
        self.measuring = False


async def _player(
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
    sent_at: dict[int, float] = {}
    state: dict[str, Any] = {"next_id": 0, "pending": None, "task": None, "legal": None}
    async with connect(ws_url, max_size=2**22, open_timeout=120, ping_interval=None) as ws:

        async def act_later(frame: dict[str, Any], ref: int) -> None:
            if think > 0:
                await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
            sent_at[ref] = time.perf_counter()
            action = rng.choice(frame["view"]["legal"])
            try:
                await ws.send(json.dumps({"type": "act", "action": action, "hand": frame["hand"], "id": ref}))
            except Exception:  # noqa: BLE001 — closing down
                pass

        await ws.send(json.dumps({"type": "hello", "token": token}))
        await ws.send(json.dumps({"type": "ready", "ready": True}))
        try:
            while not stop.is_set():
                try:
                    text = await asyncio.wait_for(ws.recv(), timeout=1.0)
                except TimeoutError:
                    continue
                frame = json.loads(text)
                kind = frame["type"]
                if kind in ("game", "update"):
                    started.set()
                    ref = frame.get("id")
                    if ref is not None and ref == state["pending"]:
                        t0 = sent_at.pop(ref, None)
                        if t0 is not None and stats.measuring:
                            stats.latencies.append(time.perf_counter() - t0)
                            stats.actions += 1
                        state["pending"] = None
                    legal = frame["view"]["legal"]
                    task = state["task"]
                    if state["pending"] is not None and state["pending"] not in sent_at and task is not None:
                        # still thinking: if the decision changed meanwhile, think about the new one
                        if legal != state["legal"]:
                            task.cancel()
                            state["pending"] = None
                    if state["pending"] is None and legal:
                        state["next_id"] += 1
                        state["pending"] = state["next_id"]
                        state["legal"] = legal
                        state["task"] = asyncio.create_task(act_later(frame, state["next_id"]))
                elif kind == "error":
                    if frame.get("id") == state["pending"]:
                        state["pending"] = None  # the decision went away (a claim of higher priority won)
                    if stats.measuring:
                        stats.errors[frame["code"]] = stats.errors.get(frame["code"], 0) + 1
                elif kind == "hand_over":
                    state["pending"] = None
                    if stats.measuring:
                        stats.hands += 1
                elif kind == "match_over":
                    state["pending"] = None
                    await ws.send(json.dumps({"type": "rematch"}))
        finally:
            if state["task"] is not None:
                state["task"].cancel()


def _make_tables(url: str, tables: int) -> list[list[str]]:
    out = []
    with httpx.Client(base_url=url, timeout=60) as http:
        for _ in range(tables):
            tokens = [http.post("/api/guests").json()["token"] for _ in range(3)]
            head = {"Authorization": f"Bearer {tokens[0]}"}
            code = http.post(
                "/api/rooms", json={"hands": 64, "turn_seconds": 300, "claim_seconds": 300}, headers=head
            ).json()["room"]["code"]
            for t in tokens[1:]:
                http.post(
                    f"/api/rooms/{code}/join", headers={"Authorization": f"Bearer {t}"}
                ).raise_for_status()
            out.append(tokens)
    return out


async def _drive(
    url: str, tables: list[list[str]], think: float, warmup: float, duration: float, seed: int, out: Any
) -> dict[str, Any]:
    stats = Stats()
    stop = asyncio.Event()
    rng = random.Random(seed)
    started = [asyncio.Event() for _ in tables]
    tasks = []
    for i, tokens in enumerate(tables):
        for token in tokens:
            tasks.append(
                asyncio.create_task(
                    _player(url, token, think, stats, random.Random(rng.random()), stop, started[i])
                )
            )
            await asyncio.sleep(0)
    await asyncio.wait_for(asyncio.gather(*(e.wait() for e in started)), timeout=300)
    await asyncio.sleep(warmup)
    stats.measuring = True
    out.put("measuring")
    t0 = time.perf_counter()
    await asyncio.sleep(duration)
    stats.measuring = False
    out.put("stopped")
    elapsed = time.perf_counter() - t0
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "latencies": stats.latencies,
        "actions": stats.actions,
        "errors": stats.errors,
        "hands": stats.hands,
        "elapsed": elapsed,
        "cpu": time.process_time(),
    }


def _worker(
    url: str, tables: list[list[str]], think: float, warmup: float, duration: float, seed: int, out: Any
) -> None:
    out.put(asyncio.run(_drive(url, tables, think, warmup, duration, seed, out)))


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start_server(workdir: Path, database_url: str | None) -> tuple[subprocess.Popen[bytes], str]:
    env = dict(
        os.environ,
        PAOHUZI_LOG_LEVEL="WARNING",
        PAOHUZI_BETWEEN_HANDS="0.2",
        PAOHUZI_RATE="50",
        PAOHUZI_BURST="100",
        PAOHUZI_HTTP_RATE="100000",
        PAOHUZI_HTTP_BURST="100000",
    )
    url = database_url or f"sqlite:///{workdir / 'load.sqlite3'}"
    log_path = workdir / "server.log"
    env["PAOHUZI_LOG_LEVEL"] = "INFO"  # for the port line; the room/hand lines are few
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "paohuzi.cli", "serve", "--port", "0", "--database-url", url],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"running on (http://127\.0\.0\.1:\d+)", log_path.read_text(errors="replace"))
        if found:
            return proc, found.group(1)
        if proc.poll() is not None:
            raise SystemExit("server failed to start:\n" + log_path.read_text(errors="replace")[-2000:])
        time.sleep(0.1)
    raise SystemExit("server did not start in time")


def _profile(proc: subprocess.Popen[bytes], args: argparse.Namespace) -> subprocess.Popen[bytes]:
    """py-spy sampling the server over the measured seconds (from when every client process has begun measuring)."""
    spy_bin = Path(sys.executable).with_name("py-spy")
    command = [str(spy_bin), "record", "--pid", str(proc.pid), "--rate", "100", "--nonblocking", "--threads"]
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
            results.append(item)


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds a player takes per decision")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds played before measuring")
    parser.add_argument("--procs", type=int, default=1, help="client processes")
    parser.add_argument("--url", default=None, help="use this running server instead of starting one")
    parser.add_argument("--database-url", default=None, help="database for the server started here")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--profile",
        default=None,
        metavar="FILE",
        help="sample the server with py-spy (the dev extra) while measuring; collapsed stacks to FILE",
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="paohuzi-load-") as tmp:
        proc = None
        url = args.url
        if url is None:
            proc, url = _start_server(Path(tmp), args.database_url)
        try:
            t_setup = time.perf_counter()
            tables = _make_tables(url, args.tables)
            took = time.perf_counter() - t_setup
            print(f"{args.tables} tables ({3 * args.tables} players) set up in {took:.1f} s", flush=True)
            queue: Any = multiprocessing.get_context("spawn").Queue()
            shares = [tables[i :: args.procs] for i in range(args.procs)]
            workers = [
                multiprocessing.get_context("spawn").Process(
                    target=_worker,
                    args=(url, share, args.think, args.warmup, args.duration, args.seed + i, queue),
                )
                for i, share in enumerate(shares)
                if share
            ]
            for w in workers:
                w.start()
            _wait_for(queue, "measuring", len(workers), [])
            cpu0 = _cpu_seconds(proc.pid) if proc else 0.0
            wall0 = time.perf_counter()
            spy = _profile(proc, args) if args.profile and proc else None
            results: list[dict[str, Any]] = []
            _wait_for(queue, "stopped", len(workers), results)
            cpu = (_cpu_seconds(proc.pid) - cpu0) / (time.perf_counter() - wall0) if proc else float("nan")
            while len(results) < len(workers):
                results.append(queue.get())
            for w in workers:
                w.join()
            if spy is not None:
                spy.wait(60)
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(30)
    latencies = [x for r in results for x in r["latencies"]]
    actions = sum(r["actions"] for r in results)
    elapsed = max(r["elapsed"] for r in results)
    errors: dict[str, int] = {}
    for r in results:
        for k, v in r["errors"].items():
            errors[k] = errors.get(k, 0) + v
    ms = [x * 1000 for x in latencies]
    report = {
        "tables": args.tables,
        "think_s": args.think,
        "duration_s": round(elapsed, 1),
        "actions": actions,
        "actions_per_s": round(actions / elapsed, 1),
        "hands": sum(r["hands"] for r in results),
        "latency_ms": {
            "p50": round(_pct(ms, 50), 1),
            "p90": round(_pct(ms, 90), 1),
            "p99": round(_pct(ms, 99), 1),
            "max": round(max(ms), 1) if ms else None,
        },
        "server_cpu": round(cpu, 2),
        "server_cpu_ms_per_action": round(1000 * cpu * elapsed / actions, 2) if actions else None,
        "client_cpu_s": round(sum(r["cpu"] for r in results), 1),
        "errors": errors,
        "cpus": os.cpu_count(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
