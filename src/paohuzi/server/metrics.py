"""Observability (issue 14): the server's Prometheus metrics, served at ``/metrics``.

One :class:`Metrics` per app, on its own registry (not prometheus-client's global one, so two apps in one
process never clash). Counters and histograms are updated where things happen (the websocket, the database
thread, the room leases); the gauges — tables, players online, websocket queues — are read from the hub
when Prometheus scrapes, so keeping them costs nothing per action.

========================================  =========  ==========================================================
metric                                    type       meaning
========================================  =========  ==========================================================
``paohuzi_rooms``                         gauge      open rooms in this process
``paohuzi_tables``                        gauge      rooms with a match being played (tables)
``paohuzi_players_online``                gauge      players with an open websocket to this process
``paohuzi_ws_queue_frames``               gauge      frames waiting in all websocket send queues
``paohuzi_ws_queue_bytes``                gauge      bytes waiting in all websocket send queues
``paohuzi_ws_queue_bytes_max``            gauge      the largest single connection's queue, in bytes
``paohuzi_actions_total``                 counter    actions written to the action log (``by``: player/bot/…)
``paohuzi_action_seconds``                histogram  an ``act`` frame: received → applied, committed, sent
``paohuzi_db_commit_seconds``             histogram  one database batch (jobs + commit) on the database thread
``paohuzi_db_batch_jobs``                 histogram  jobs per database batch (group commit)
``paohuzi_loop_lag_seconds``              histogram  how late the event loop ran a 0.1 s timer (a stalled or busy loop)
``paohuzi_lease_changes_total``           counter    room leases acquired/lost/released (shared mode)
``paohuzi_ws_slow_disconnects_total``     counter    clients dropped for not reading (send queue full)
``paohuzi_ws_bad_frames_total``           counter    frames answered with ``bad_json``/``bad_message``
``process_*``                             various    RSS, CPU seconds, open files (prometheus-client)
========================================  =========  ==========================================================

``rate(paohuzi_actions_total[1m])`` is the actions per second.

On the path of every action (issue 33) the labelled children are looked up once and kept (``labels()`` takes a
lock and builds a key each time).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

__all__ = ["Metrics", "CONTENT_TYPE_LATEST"]

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
