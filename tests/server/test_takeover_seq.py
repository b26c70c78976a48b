"""The ``game`` snapshot after a take-over carries the count so far (docs/protocol.md §3.3, issue 35): a
player whose websocket stays on another process while the room's owner is stopped (SIGTERM, a rolling
restart) gets from the new owner a ``game`` whose ``seq`` is the number of frames it was sent about the hand,
and the next ``update`` that number plus one — never 0 again mid-hand (the client drops an ``update`` older
than what it shows). Two real processes on PostgreSQL and Redis."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..support.clients import never_hu
from .play import in_parallel
from .test_shared import Player, start_many, table


def _play_a_few(players: list[Player], actions: int) -> None:
    """Play (never 胡) until ``actions`` actions were acknowledged at the table."""
    done = 0
    deadline = time.monotonic() + 120
    while done < actions:
        assert time.monotonic() < deadline, "the hand did not move"
        for p in players:
            latest = [f for f in p.frames if f["type"] in ("game", "update")][-1]
            if latest["view"]["legal"]:
                ident = p.next_id()
                action = never_hu(latest["view"]["legal"])
                p.send({"type": "act", "action": action, "hand": latest["hand"], "id": ident})
                while not any(f.get("id") == ident for f in p.frames if f["type"] in ("update", "error")):
                    p.recv(30)
                done += 1
                break
        for p in players:  # everything sent so far read (updates to the others too)
            p.drain()


def test_the_snapshot_after_a_take_over_carries_the_count_so_far(
    shared_deployment: dict[str, str], tmp_path: Path
) -> None:
    shared = {**shared_deployment, "PAOHUZI_LEASE_MS": "30000"}  # no lease runs out: the SIGTERM hands over
    owner, edge = start_many(2, tmp_path, shared)
    try:
        players = table(owner, [edge, edge, edge])  # the room on `owner`, every websocket on `edge`
        _play_a_few(players, 6)
        hand = [f for f in players[0].frames if f["type"] == "game"][-1]["hand"]
        marks = [len(p.frames) for p in players]
        owner.stop()  # SIGTERM: rooms released, `edge` takes the room over and sends each seat a snapshot
        in_parallel([lambda p=p: p.expect("game", timeout=30) for p in players])
        before, snaps = [], []
        for p, mark in zip(players, marks, strict=True):
            at = next(i for i in range(mark, len(p.frames)) if p.frames[i]["type"] == "game")
            snaps.append(p.frames[at]["seq"])
            before.append([f for f in p.frames[:at] if f["type"] in ("game", "update")][-1]["seq"])
        assert min(before) >= 3, before
        assert snaps == before  # the count so far, not 0

        def updates(p: Player, mark: int) -> list[dict[str, Any]]:
            return [f for f in p.frames[mark:] if f["type"] == "update" and f["hand"] == hand]

        # the next frames go on from there: played until every seat was sent an update (another seat's 过 in a
        # claim window is told to nobody, R5, so one action may update only the seat that made it)
        for _ in range(20):
            if all(updates(p, mark) for p, mark in zip(players, marks, strict=True)):
                break
            _play_a_few(players, 1)
        for p, mark, seq in zip(players, marks, snaps, strict=True):
            got = updates(p, mark)
            assert got and got[0]["seq"] == seq + 1, (seq, got[:1])
        assert any(x.get("msg") == "room taken over" for x in edge.log_lines())
        prefix = shared["PAOHUZI_REDIS_PREFIX"]  # the start-up line names the mode, the prefix, the process id
        started = next(x for x in edge.log_lines() if x.get("msg") == "server started")
        pid, process = edge.pid, started["process"]
        line = f"shared mode: database postgresql, Redis prefix {prefix!r}, process {process}, pid {pid}"
        assert (started["mode"], started["redis_prefix"]) == ("shared", prefix) and line in [
            x.get("msg") for x in edge.log_lines()
        ]
        for p in players:
            p.close()
    finally:
        owner.stop()
        edge.stop()
