"""Observability (issue 14 item 4): ``/metrics`` in the Prometheus text format, ``/healthz`` (liveness) and
``/readyz`` (readiness: the database, and Redis when configured)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx
import pytest

from ..support.clients import Client, play_seat
from ..support.databases import postgres_available, postgres_schema
from ..support.server import ServerProcess, running


def _sample(text: str, name: str) -> float:
    found = re.search(rf"^{re.escape(name)} ([0-9.e+-]+)$", text, re.M)
    assert found, f"{name} not in /metrics"
    return float(found.group(1))


def test_metrics_count_tables_players_actions_latency_and_commits(server: ServerProcess) -> None:
    me = Client(server)
    me.api("POST", "/api/rooms/quick", {"hands": 1}, expect=201)
    me.connect()
    me.expect("game")
    text = httpx.get(server.url + "/metrics").text
    assert _sample(text, "paohuzi_tables") >= 1 and _sample(text, "paohuzi_players_online") >= 1
    assert play_seat(me, "hand_over", timeout=120) is not None
    # An act is timed once the hub has handled it (ws.py), after its frames went out: the last act's time may
    # land just after the hand_over reached us, so read until it has (on state, with a bound), then check.
    deadline = time.monotonic() + 10
    while True:
        r = httpx.get(server.url + "/metrics")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        text = r.text
        bot = _sample(text, 'paohuzi_actions_total{by="bot"}')
        player = _sample(text, 'paohuzi_actions_total{by="player"}')
        acts = _sample(text, 'paohuzi_action_seconds_count{result="ok"}')
        if acts >= player or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert bot > 0 and player >= 1 and acts >= player
    assert _sample(text, "paohuzi_db_commit_seconds_count") >= 1
    assert _sample(text, "paohuzi_ws_queue_bytes") >= 0 and _sample(text, "paohuzi_ws_queue_frames") >= 0
    assert _sample(text, 'paohuzi_lease_changes_total{change="acquired"}') == 0  # one process: no leases
    assert _sample(text, "process_resident_memory_bytes") > 10e6
    me.close()


def test_healthz_is_liveness_and_readyz_checks_the_database(server: ServerProcess) -> None:
    assert httpx.get(server.url + "/healthz").json()["status"] == "ok"
    r = httpx.get(server.url + "/readyz")
    assert r.status_code == 200 and r.json() == {"status": "ready", "checks": {"database": "ok"}}


@pytest.mark.skipif(not postgres_available(), reason="no PostgreSQL on 127.0.0.1:5432")
def test_readyz_is_503_while_redis_is_unreachable(tmp_path: Path) -> None:
    env = {"PAOHUZI_REDIS_URL": "redis://127.0.0.1:1/0"}  # nothing listens on port 1
    with postgres_schema() as url, running(tmp_path, url, env) as proc:  # the shared mode: PostgreSQL only
        assert httpx.get(proc.url + "/healthz").status_code == 200  # alive, so not restarted...
        r = httpx.get(proc.url + "/readyz")  # ...but not ready: the load balancer sends nobody
        assert r.status_code == 503 and r.json()["status"] == "unavailable"
        assert r.json()["checks"]["database"] == "ok"
        assert r.json()["checks"]["redis"].startswith("unreachable")
