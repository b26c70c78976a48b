"""Observability (issue 14): the server's Prometheus metrics, served at ``/metrics``.

One :class:`Metrics` per app, on its own registry (not prometheus-client's global one, so two apps in one
process never clash). Counters and histograms are updated where things happen (the websocket, the database
thread, the room leases); the gauges — tables, players online, websocket queues — are read from the hub
when Prometheus scrapes, so keeping them costs nothing per action.

Every metric, its labels and what it observes: the table in docs/server.md ("Metrics"), made by
:func:`reference_table` from this registry and :data:`NOTES` (``tests/server/test_monitoring.py`` keeps the two
in step: a metric added here without a note, or a table not regenerated, fails it).

``rate(paohuzi_actions_total[1m])`` is the actions per second.

On the path of every action (issue 33) the labelled children are looked up once and kept (``labels()`` takes a
lock and builds a key each time).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

__all__ = ["Metrics", "CONTENT_TYPE_LATEST", "NOTES", "reference_table"]

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
_LAG_BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
LAG_PERIOD = 0.1  # seconds between two readings of the event loop's lag


class _HubGauges(Collector):
    """Gauges read from the hub at scrape time."""

    def __init__(self, hub: Callable[[], Any]) -> None:
        self._hub = hub

    def collect(self) -> Iterator[Metric]:
        hub = self._hub()
        rooms = list(hub.rooms.values()) if hub is not None else []
        conns = list(hub.conns.values()) if hub is not None else []
        sizes = [getattr(c, "queued_bytes", 0) for c in conns]
        queue = getattr(hub, "queue", None)
        waiting = len(queue.entries) if queue is not None else 0
        values = [
            ("paohuzi_rooms", "open rooms in this process", len(rooms)),
            ("paohuzi_tables", "rooms with a match being played", sum(1 for r in rooms if r.playing)),
            ("paohuzi_players_online", "players with an open websocket", len(conns)),
            ("paohuzi_ws_queue_frames", "frames waiting in websocket send queues",
             sum(getattr(c, "queued_frames", 0) for c in conns)),
            ("paohuzi_ws_queue_bytes", "bytes waiting in websocket send queues", sum(sizes)),
            ("paohuzi_ws_queue_bytes_max", "the largest websocket send queue, bytes", max(sizes, default=0)),
            ("paohuzi_queue_waiting", "players waiting for a public table (匹配)", waiting),
        ]
        for name, doc, value in values:
            yield GaugeMetricFamily(name, doc, value=float(value))


class _RelayCounts(Collector):
    """The shared mode's relay counters (:attr:`paohuzi.server.relay.Bus.counts`, kept by the bus as plain
    numbers: nothing is added on the path of a relayed frame), read at scrape time; zeros with one process."""

    WAYS = ("sent", "received", "packets_sent", "packets_received")

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def collect(self) -> Iterator[Metric]:
        doc = "messages relayed between server processes"
        family = CounterMetricFamily("paohuzi_relay_messages", doc, labels=["way"])
        for way in self.WAYS:
            family.add_metric([way], float(self.counts.get(way, 0)))
        yield family


class Metrics:
    """The app's metrics. ``hub`` returns the running hub (None before start-up)."""

    def __init__(self, hub: Callable[[], Any]) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.actions = Counter("paohuzi_actions", "actions written to the action log", ["by"], registry=r)
        self.action_seconds = Histogram(
            "paohuzi_action_seconds",
            "an act frame from receipt to applied, committed and sent",
            ["result"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.db_commit_seconds = Histogram(
            "paohuzi_db_commit_seconds", "one database batch with its commit", buckets=_LATENCY_BUCKETS, registry=r
        )
        self.db_batch_jobs = Histogram(
            "paohuzi_db_batch_jobs", "jobs per database batch", buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256), registry=r
        )
        self.db_connections = Gauge(
            "paohuzi_db_connections", "database connections, each with a transaction in flight", registry=r
        )
        self.loop_lag = Histogram(
            "paohuzi_loop_lag_seconds", "how late the event loop ran a timer", buckets=_LAG_BUCKETS, registry=r
        )
        self.lease_changes = Counter("paohuzi_lease_changes", "room leases changing hands", ["change"], registry=r)
        for change in ("acquired", "lost", "released"):
            self.lease_changes.labels(change=change)  # shown as 0 from the start
        self.slow_disconnects = Counter(
            "paohuzi_ws_slow_disconnects", "clients dropped for not reading their frames", registry=r
        )
        self.bad_frames = Counter("paohuzi_ws_bad_frames", "frames refused at the wire edge", ["code"], registry=r)
        ProcessCollector(registry=r)
        r.register(_HubGauges(hub))
        self.relay = _RelayCounts()  # app.py hands it the bus's counts in the shared mode
        r.register(self.relay)
        self._by: dict[str, Any] = {}  # the labelled children on the path of every action, kept
        self._results: dict[str, Any] = {}

    def observe_batch(self, seconds: float, jobs: int) -> None:
        """Called on the database thread after each batch (prometheus-client is thread-safe)."""
        self.db_commit_seconds.observe(seconds)
        self.db_batch_jobs.observe(jobs)

    def observe_action(self, by: str) -> None:
        """An action was appended to the log, played by ``by`` (player, bot or auto)."""
        child = self._by.get(by)
        if child is None:
            child = self._by[by] = self.actions.labels(by=by)
        child.inc()

    def observe_act(self, result: str, seconds: float) -> None:
        """An ``act`` frame was handled (``result``: ok, refused or failed) in ``seconds``."""
        child = self._results.get(result)
        if child is None:
            child = self._results[result] = self.action_seconds.labels(result=result)
        child.observe(seconds)

    async def watch_loop(self, period: float = LAG_PERIOD) -> None:
        """Read the event loop's lag for ever: how much later than asked a ``period`` sleep wakes up (the time the
        loop was busy with other work or stalled). Run as a task of the app."""
        clock = time.monotonic
        while True:
            before = clock()
            await asyncio.sleep(period)
            self.loop_lag.observe(max(0.0, clock() - before - period))

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)


# What each metric observes beyond its help text, for the operator's table (docs/server.md "Metrics"): labels,
# where it is counted, how to read it. Keyed by the name as scraped (counters with ``_total``).
NOTES = {
    "paohuzi_rooms": "open rooms owned by this process (each process reports its own: sum them)",
    "paohuzi_tables": "its rooms with a match being played",
    "paohuzi_players_online": "websockets held by this process (the edge), whichever process owns their rooms",
    "paohuzi_queue_waiting": "匹配: players waiting for a public table (the shared mode: the whole Redis queue, "
    "the same on every process — take `max`, not `sum`)",
    "paohuzi_ws_queue_frames": "frames waiting in this process's websocket send queues",
    "paohuzi_ws_queue_bytes": "their bytes; a client over `PAOHUZI_SEND_QUEUE_BYTES` is dropped",
    "paohuzi_ws_queue_bytes_max": "the largest single connection's queue",
    "paohuzi_actions_total": "label `by`: `player`, `bot` (a computer seat), `auto` (托管 or a missed deadline). "
    "Counted by the process that owns the room, when the action is written to the log. `rate(…[1m])`: actions/s",
    "paohuzi_action_seconds": "label `result`: `ok`, `refused`, `failed`. One observation per `act` frame a "
    "player sent over this process's websocket, from receipt to the hub's answer (applied, committed, sent). "
    "Bots' and 托管 actions are not `act` frames, so it counts fewer than `paohuzi_actions_total` (29 against 94 "
    "in a hand against two computers). In the shared mode the edge holding the websocket observes it: for a "
    "room owned elsewhere it is the relay (the owner's work is in its `paohuzi_db_commit_seconds`)",
    "paohuzi_db_commit_seconds": "one batch of database jobs with its commit, on the database thread",
    "paohuzi_db_batch_jobs": "jobs per batch (group commit: many actions, one commit)",
    "paohuzi_db_connections": "the database's workers (`PAOHUZI_DB_CONNECTIONS` on PostgreSQL, 1 on SQLite); a "
    "hand's actions are committed on one of them, in order",
    "paohuzi_loop_lag_seconds": "how late the event loop ran a 0.1 s timer: a busy or stalled process (its p99 "
    "over ~50 ms is felt by players; the shared mode's leases are renewed off the loop, so a slow loop keeps "
    "its rooms)",
    "paohuzi_lease_changes_total": "shared mode, label `change`: `acquired` (a room made or taken over), `lost` "
    "(a lease not renewed in time: the process stalled or lost Redis — alert), `released` (handed over at a stop)",
    "paohuzi_relay_messages_total": "shared mode, label `way`: relay messages `sent` and `received` by this process "
    "(a frame in from an edge, a frame out to one, attach, calls …), and the `packets_sent`/`packets_received` that "
    "carried them (one Redis publish per receiving process and loop turn)",
    "paohuzi_ws_slow_disconnects_total": "clients dropped because their send queue was full (they do not read)",
    "paohuzi_ws_bad_frames_total": "label `code`: `bad_json`, `bad_message`… frames refused at the wire edge",
    "process_resident_memory_bytes": "RSS (the unit's `MemoryMax=2G` kills the process beyond)",
    "process_virtual_memory_bytes": "virtual memory",
    "process_cpu_seconds_total": "user + system CPU; `rate(…[1m])` is the share of one core",
    "process_open_fds": "open files and sockets (each websocket is one)",
    "process_max_fds": "the limit: 65,536 from the unit's `LimitNOFILE` (1,024 when started by hand)",
    "process_start_time_seconds": "start time (Unix seconds): a restart shows as a jump",
}


def reference_table() -> str:
    """The Markdown table of every metric this server exports — name as scraped, type, help text, note —
    read from a fresh registry (docs/server.md "Metrics" holds its output)."""
    rows = ["| metric | type | help | what it observes |", "|---|---|---|---|"]
    for family in Metrics(lambda: None).registry.collect():
        name = f"{family.name}_total" if family.type == "counter" else family.name
        note = NOTES.get(name, "")
        rows.append(f"| `{name}` | {family.type} | {family.documentation} | {note} |")
    return "\n".join(rows)
