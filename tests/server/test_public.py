"""Public tables (匹配, issue 13 §4; R7.3 beans by points × the tier's multiplier) on a real server with real
websockets: three players waiting in a tier are seated together at once; one waiting player gets two
computers after the fill time, two get one; a waiting player takes a computer's seat at a table's next
hand; no 提示 and no 解散 at public tables; the queue's refusals; an offline player dropped; the queue
surviving a server restart (SQLite and PostgreSQL)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..support.clients import Client
from ..support.server import ServerProcess, running

SLOW_FILL = {"PAOHUZI_MATCH_FILL_SECONDS": "600"}  # nobody is seated with computers during a test
FILL = 3.0


@pytest.fixture(scope="module")
def slow(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir: Path = tmp_path_factory.mktemp("public")
    with running(workdir, env=SLOW_FILL) as proc:
        yield proc


@pytest.fixture(scope="module")
def filling(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Computers fill after 3 s; an offline player keeps its place for a minute."""
    workdir: Path = tmp_path_factory.mktemp("public-fill")
    env = {"PAOHUZI_MATCH_FILL_SECONDS": str(FILL), "PAOHUZI_OFFLINE_GRACE": "60"}
    with running(workdir, env=env) as proc:
        yield proc


def _queued(c: Client, tier: str) -> dict[str, Any]:
    """Join ``tier``'s queue over the websocket; the first ``queue`` frame."""
    c.send({"type": "queue_join", "tier": tier, "id": "q"})
    return c.expect("queue", where=lambda f: f["queue"] is not None)["queue"]


def _seated(c: Client) -> dict[str, Any]:
    """Wait until seated: ``queue: null`` then the public room (with its match on)."""
    c.expect("queue", where=lambda f: f["queue"] is None, timeout=30)
    return c.expect("room", where=lambda f: f["room"] is not None and f["room"]["status"] == "playing")["room"]


def _auto_hand(clients: list[Client]) -> list[dict[str, Any]]:
    """Every seat in 托管 plays the hand to its end: each client's ``hand_over``."""
    for c in clients:
        c.send({"type": "auto", "on": True})
    return [c.expect("hand_over", timeout=90) for c in clients]


def _beans_of(deltas: list[int], stake: int, multiplier: int, held: list[int]) -> list[int]:
    """R7.3: each loser pays its points × multiplier (its 积分 loss / stake), at most what it holds; the
    winner gets what was paid."""
    moves = [0] * len(deltas)
    for s, pay in enumerate(deltas):
        if pay < 0:
            moves[s] = -min(-pay * multiplier // stake, held[s])
    winners = [s for s, pay in enumerate(deltas) if pay > 0]
    if winners:
        moves[winners[0]] = -sum(moves)
    return moves


def test_r7_3_three_waiting_are_seated_together_at_once_and_beans_move_by_points_times_five(
    slow: ServerProcess,
) -> None:
    players = [Client(slow, nickname=f"三人{i}") for i in range(3)]
    for c in players:
        c.connect()
    first = _queued(players[0], "junior")
    assert first == {
        "tier": "junior",
        "preset": "qq",  # the server's one 匹配 preset by default (issue 29)
        "multiplier": 5,
        "minimum": 1000,
        "position": 1,
        "waiting": 1,
        "waited_ms": first["waited_ms"],
        "fill_ms": 600_000,
        "online": True,
        "drop_ms": None,
    }
    second = _queued(players[1], "junior")
    assert (second["position"], second["waiting"]) == (2, 2)
    assert players[0].expect("queue")["queue"]["waiting"] == 2  # the first is told the line grew
    status = players[2].api("GET", "/api/queue")
    assert status["queue"] is None and status["fill_seconds"] == 600
    assert {t["name"]: t["waiting"] for t in status["tiers"]}["junior"] == 2
    players[2].send({"type": "queue_join", "tier": "junior"})
    rooms = [_seated(c) for c in players]
    code = rooms[0]["code"]
    assert all(r["code"] == code for r in rooms)
    room = rooms[2]
    assert room["kind"] == "public" and room["share_path"] is None and room["owner"] is None
    assert [s["player"]["id"] if s["player"] else None for s in room["seats"]] == [c.id for c in players]
    assert [s["bot"] for s in room["seats"]] == [None, None, None]
    opts = room["options"]
    assert (opts["tier"], opts["multiplier"], opts["minimum"], opts["hands"], opts["hints"]) == (
        "junior",
        5,
        1000,
        1,
        False,
    )
    # the code is no key: an outsider neither sees nor joins the table; a player at it sees it
    outsider = Client(slow)
    assert outsider.api("GET", f"/api/rooms/{code}", expect=404)["error"]["code"] == "not_found"
    assert outsider.api("POST", f"/api/rooms/{code}/join", {}, expect=404)["error"]["code"] == "not_found"
    assert players[0].api("GET", f"/api/rooms/{code}")["room"]["code"] == code
    for c in players:
        c.expect("game")
    # no 提示 and no 解散 at a public table
    players[0].send({"type": "hint", "id": "h"})
    assert players[0].expect("error", where=lambda f: f.get("id") == "h")["code"] == "hints_off"
    players[1].send({"type": "dissolve", "id": "d"})
    assert players[1].expect("error", where=lambda f: f.get("id") == "d")["code"] == "dissolve_off"
    # queued twice or queued while playing: refused
    players[0].send({"type": "queue_join", "tier": "novice", "id": "again"})
    assert players[0].expect("error", where=lambda f: f.get("id") == "again")["code"] == "in_game"
    overs = _auto_hand(players)
    over = overs[0]
    assert over["beans"] == _beans_of(over["deltas"], opts["stake"], 5, [1000, 1000, 1000])
    for i, c in enumerate(players):
        assert c.api("GET", "/api/me")["player"]["beans"] == 1000 + over["beans"][i]
    for c in players:
        c.expect("match_over")
        c.close()


def test_a_waiting_player_takes_a_computer_seat_at_the_next_hand(slow: ServerProcess) -> None:
    """docs/decisions.md: when every player at a public table has said 继续, players waiting in the tier's
    queue take the computers' seats; a computer leaving between hands is no 逃跑."""
    a, b, c = (Client(slow) for _ in range(3))
    for x in (a, b, c):
        x.connect()
    _queued(a, "novice")
    _queued(b, "novice")
    c.send({"type": "queue_join", "tier": "novice"})
    code = [_seated(x) for x in (a, b, c)][0]["code"]
    _auto_hand([a, b, c])
    for x in (a, b, c):
        x.expect("match_over")
    # between hands leaving is free (no 逃跑)
    assert b.api("POST", "/api/rooms/leave") == {"left": code, "penalty": None}
    assert c.api("POST", "/api/rooms/leave") == {"left": code, "penalty": None}
    a.send({"type": "start"})  # at a public table `start` and `ready` are 继续 too
    room = a.expect("room", where=lambda f: f["room"]["status"] == "playing")["room"]
    assert [s["player"]["id"] if s["player"] else s["bot"] for s in room["seats"]] == [a.id, "normal", "normal"]
    _auto_hand([a])
    a.expect("match_over")
    d = Client(slow)
    d.connect()
    assert _queued(d, "novice")["position"] == 1
    a.send({"type": "ready", "ready": True})
    seated = _seated(d)
    assert seated["code"] == code
    assert [s["player"]["id"] if s["player"] else s["bot"] for s in seated["seats"]] == [a.id, d.id, "normal"]
    game = d.expect("game")
    assert game["seat"] == 1
    for x in (a, b, c, d):
        x.close()


def test_queue_refusals_cancel_and_an_offline_player_dropped(slow: ServerProcess) -> None:
    me = Client(slow)
    me.connect()
    err = me.api("POST", "/api/queue", {"tier": "middle"}, expect=409)["error"]
    assert err == {"code": "not_enough_beans", "message": "this table asks 5000 欢乐豆 to sit down; you hold 1000"}
    err = me.api("POST", "/api/queue", {"tier": "vip"}, expect=422)["error"]
    assert err["code"] == "invalid" and "tiers: practice, novice, junior, middle, senior" in err["message"]
    assert me.api("POST", "/api/queue", {"tier": "senior"}, expect=409)["error"]["code"] == "not_enough_beans"
    place = me.api("POST", "/api/queue", {"tier": "practice"}, expect=201)["queue"]
    assert (place["tier"], place["multiplier"], place["minimum"], place["position"]) == ("practice", 0, 0, 1)
    assert me.expect("queue")["queue"]["tier"] == "practice"
    assert "paohuzi_queue_waiting 1.0" in httpx.get(slow.url + "/metrics", timeout=10).text
    err = me.api("POST", "/api/queue", {"tier": "novice"}, expect=409)["error"]
    assert err == {"code": "already_queued", "message": "you already wait for a table in the practice queue"}
    me.send({"type": "queue_join", "tier": "practice", "id": 5})
    assert me.expect("error", where=lambda f: f.get("id") == 5)["code"] == "already_queued"
    for path in ("/api/rooms/quick", "/api/rooms"):
        err = me.api("POST", path, {}, expect=409)["error"]
        assert err == {"code": "queued", "message": "you wait for a table in the practice queue; leave the queue first"}
    assert me.api("DELETE", "/api/queue") == {"left": "practice"}
    assert me.expect("queue") == {"type": "queue", "queue": None}
    assert me.api("DELETE", "/api/queue", expect=409)["error"]["code"] == "not_queued"
    me.send({"type": "queue_leave", "id": 6})
    assert me.expect("error", where=lambda f: f.get("id") == 6)["code"] == "not_queued"
    # disconnected while waiting: the place is kept for the offline grace (0.3 s here), then dropped
    _queued(me, "novice")
    me.close()
    deadline = time.monotonic() + 20
    while me.api("GET", "/api/queue")["queue"] is not None:
        assert time.monotonic() < deadline, "an offline player was not dropped from the queue"
        time.sleep(0.05)
    # a waiting room is left for the queue
    room = me.api("POST", "/api/rooms", {}, expect=201)["room"]
    me.connect()
    assert me.api("POST", "/api/queue", {"tier": "novice"}, expect=201)["queue"]["position"] == 1
    assert me.api("GET", "/api/me")["room"] is None
    assert me.api("GET", f"/api/rooms/{room['code']}", expect=404)["error"]["code"] == "not_found"
    me.api("DELETE", "/api/queue")
    me.close()


def test_one_waiting_player_gets_two_computers_after_the_fill_time(filling: ServerProcess) -> None:
    me = Client(filling)
    me.connect()
    started = time.monotonic()
    assert _queued(me, "novice")["fill_ms"] == 3000
    room = _seated(me)
    assert time.monotonic() - started >= FILL - 0.1
    assert room["kind"] == "public"
    assert [s["player"]["id"] if s["player"] else s["bot"] for s in room["seats"]] == [me.id, "normal", "normal"]
    me.expect("game")
    over = _auto_hand([me])[0]
    # R7.3 at 新手场 (×1): the computers hold bottomless beans and pay in full
    assert over["beans"] == _beans_of(over["deltas"], room["options"]["stake"], 1, [1000, 10**9, 10**9])
    assert me.api("GET", "/api/me")["player"]["beans"] == 1000 + over["beans"][0]
    me.close()


def test_two_waiting_players_get_one_computer(filling: ServerProcess) -> None:
    """Both wait offline first (an offline player is never seated), so the first has waited the fill time
    before the second is online; the first comes online last and both are seated with one computer."""
    a, b = Client(filling), Client(filling)
    a.api("POST", "/api/queue", {"tier": "novice"}, expect=201)
    deadline = time.monotonic() + 30
    while a.api("GET", "/api/queue")["queue"]["waited_ms"] < FILL * 1000:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert b.api("POST", "/api/queue", {"tier": "novice"}, expect=201)["queue"]["position"] == 2
    b.connect()
    a.connect()
    rooms = [_seated(x) for x in (a, b)]
    assert rooms[0]["code"] == rooms[1]["code"]
    assert [s["player"]["id"] if s["player"] else s["bot"] for s in rooms[0]["seats"]] == [a.id, b.id, "normal"]
    a.close()
    b.close()


def test_the_queue_survives_a_server_restart(database_url: str, tmp_path: Path) -> None:
    """kill -9 while two wait; after the restart each is queued again as it reconnects, in the same order
    and with its waiting time kept; a third joining seats all three together."""
    with running(tmp_path, database_url, env=SLOW_FILL) as server:
        a, b = Client(server), Client(server)
        a.connect()
        b.connect()
        _queued(a, "novice")
        _queued(b, "novice")
        waited = a.api("GET", "/api/queue")["queue"]["waited_ms"]
        server.kill()
        server.start()
        a.connect()
        place = a.expect("queue")["queue"]
        assert (place["tier"], place["position"], place["waiting"], place["online"]) == ("novice", 1, 2, True)
        assert place["waited_ms"] >= waited
        b.connect()
        assert b.expect("queue")["queue"]["position"] == 2
        c = Client(server)
        c.connect()
        c.send({"type": "queue_join", "tier": "novice"})
        rooms = [_seated(x) for x in (a, b, c)]
        assert len({r["code"] for r in rooms}) == 1
        assert [s["player"]["id"] for s in rooms[0]["seats"]] == [a.id, b.id, c.id]
        for x in (a, b, c):
            x.close()


def test_shared_mode_a_public_table_is_leased_like_any_room(
    shared_deployment: dict[str, str], tmp_path: Path
) -> None:
    """The shared mode (issue 14): a public table opened by 匹配 is a room leased and fenced like any; the
    player waiting alone is seated with two computers after the fill time and plays the hand through."""
    [server] = _processes(tmp_path, shared_deployment | {"PAOHUZI_MATCH_FILL_SECONDS": "1"}, 1)
    try:
        me = Client(server)
        me.connect()
        assert _queued(me, "novice")["fill_ms"] == 1000
        room = _seated(me)
        assert [s["bot"] for s in room["seats"]] == [None, "normal", "normal"] and room["kind"] == "public"
        me.expect("game")
        over = _auto_hand([me])[0]
        assert over["beans"] == _beans_of(over["deltas"], room["options"]["stake"], 1, [1000, 10**9, 10**9])
        me.close()
    finally:
        server.stop()


@pytest.fixture
def shared_env(shared_deployment: dict[str, str]) -> dict[str, str]:
    """One shared deployment (PostgreSQL schema, Redis prefix) whose processes never fill with computers."""
    return {**shared_deployment, "PAOHUZI_LEASE_MS": "1500", "PAOHUZI_QUEUE_RESUME_SECONDS": "60", **SLOW_FILL}


def _processes(tmp_path: Path, env: dict[str, str], n: int) -> list[ServerProcess]:
    variables = {k: v for k, v in env.items() if k.startswith("PAOHUZI_")}
    return [ServerProcess(tmp_path, env["database_url"], variables).start() for _ in range(n)]


def test_shared_mode_three_players_on_three_processes_get_one_table(
    shared_env: dict[str, str], tmp_path: Path
) -> None:
    """The shared mode (issue 14): one queue in Redis for every process. Three players, each connected to
    another process, wait in one tier: each sees the others in the line (positions 1, 2, 3 as they came) and
    all three are seated together at once at one public table, which they play through."""
    servers = _processes(tmp_path, shared_env, 3)
    try:
        clients = [Client(s) for s in servers]
        for c in clients:
            c.connect()
        places = [_queued(c, "novice")["position"] for c in clients[:2]]
        assert places == [1, 2]
        first = clients[0].expect("queue", where=lambda f: (f["queue"] or {}).get("waiting") == 2)["queue"]
        assert first["position"] == 1
        status = clients[2].api("GET", "/api/queue")
        assert {t["name"]: t["waiting"] for t in status["tiers"]}["novice"] == 2 and status["queue"] is None
        clients[2].send({"type": "queue_join", "tier": "novice"})
        rooms = [_seated(c) for c in clients]
        assert len({r["code"] for r in rooms}) == 1
        assert [s["player"]["id"] for s in rooms[0]["seats"]] == [c.id for c in clients]
        for c in clients:
            c.expect("game")
        overs = _auto_hand(clients)
        assert len({tuple(o["deltas"]) for o in overs}) == 1
        for c in clients:
            c.close()
    finally:
        for s in servers:
            s.stop()


def test_shared_mode_the_queue_outlives_a_killed_process(shared_env: dict[str, str], tmp_path: Path) -> None:
    """kill -9 of the process holding two waiting players' websockets: their places stay in Redis (offline
    for ``queue_resume_seconds``); they reconnect to the other process and wait online again in the same
    order; a third player joining there seats all three together."""
    servers = _processes(tmp_path, shared_env, 2)
    try:
        a, b = Client(servers[0]), Client(servers[0])
        for c in (a, b):
            c.connect()
        _queued(a, "novice")
        _queued(b, "novice")
        servers[0].kill()
        for c in (a, b):
            c.server = servers[1]
        deadline = time.monotonic() + 10
        while (place := a.api("GET", "/api/queue")["queue"])["online"] and time.monotonic() < deadline:
            time.sleep(0.1)  # until a tick of the other process finds their process gone
        assert (place["position"], place["waiting"], place["online"]) == (1, 2, False)
        assert 50_000 < place["drop_ms"] <= 60_000  # queue_resume_seconds, as after a restart
        a.connect()
        place = a.expect("queue")["queue"]
        assert (place["position"], place["waiting"], place["online"]) == (1, 2, True)
        b.connect()
        assert b.expect("queue")["queue"]["position"] == 2
        c = Client(servers[1])
        c.connect()
        c.send({"type": "queue_join", "tier": "novice"})
        rooms = [_seated(x) for x in (a, b, c)]
        assert len({r["code"] for r in rooms}) == 1
        assert [s["player"]["id"] for s in rooms[0]["seats"]] == [a.id, b.id, c.id]
        for x in (a, b, c):
            x.close()
    finally:
        for s in servers:
            s.stop()
