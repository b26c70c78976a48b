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
``paohuzi_lease_changes_total``           counter    room leases acquired/lost/released (shared mode)
``paohuzi_ws_slow_disconnects_total``     counter    clients dropped for not reading (send queue full)
``paohuzi_ws_bad_frames_total``           counter    frames answered with ``bad_json``/``bad_message``
``process_*``                             various    RSS, CPU seconds, open files (prometheus-client)
========================================  =========  ==========================================================

``rate(paohuzi_actions_total[1m])`` is the actions per second.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

__all__ = ["Metrics", "CONTENT_TYPE_LATEST"]

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


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
        self.lease_changes = Counter("paohuzi_lease_changes", "room leases changing hands", ["change"], registry=r)
        for change in ("acquired", "lost", "released"):
            self.lease_changes.labels(change=change)  # shown as 0 from the start
        self.slow_disconnects = Counter(
            "paohuzi_ws_slow_disconnects", "clients dropped for not reading their frames", registry=r
        )
        self.bad_frames = Counter("paohuzi_ws_bad_frames", "frames refused at the wire edge", ["code"], registry=r)
        ProcessCollector(registry=r)
        r.register(_HubGauges(hub))

    def observe_batch(self, seconds: float, jobs: int) -> None:
        """Called on the database thread after each batch (prometheus-client is thread-safe)."""
        self.db_commit_seconds.observe(seconds)
        self.db_batch_jobs.observe(jobs)

    def observe_action(self, by: str) -> None:
        """An action was appended to the log, played by ``by`` (player, bot or auto)."""
        self.actions.labels(by=by).inc()

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)
