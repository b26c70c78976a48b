"""Bad input (issue #5 §7): every bad frame gets an error frame or a close with a reason, changes nothing,
and the server keeps serving everyone else."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect
from websockets.typing import Origin

from ..support.clients import Client, play_seat
from ..support.server import ServerProcess, running


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir: Path = tmp_path_factory.mktemp("server")
    env = {
        "PAOHUZI_BOT_DELAY": "0.3",
        "PAOHUZI_HELLO_TIMEOUT": "1",
        "PAOHUZI_MAX_DROPPED": "30",
        "PAOHUZI_MAX_STRIKES": "12",
        "PAOHUZI_ALLOW_ORIGINS": "https://friends.example",
        "PAOHUZI_HTTP_RATE": "20",
        "PAOHUZI_HTTP_BURST": "60",
    }
    with running(workdir, env=env) as proc:
        yield proc


@pytest.fixture()
def player(server: ServerProcess) -> Iterator[Client]:
    client = Client(server)
    client.connect()
    yield client
    client.close()


def _still_serving(server: ServerProcess) -> None:
    assert server.api("GET", "/healthz")["status"] == "ok"
    other = Client(server)
    other.connect()
    other.send({"type": "ping", "id": "alive"})
    assert other.expect("pong")["id"] == "alive"
    other.close()


def test_malformed_json_and_non_objects_get_bad_json(player: Client) -> None:
    for text in ("{not json", "[1, 2]", '"hello"', "", "\x00\xff"):
        player.send_raw(text)
        assert player.expect("error")["code"] == "bad_json"
    player.send_raw(b'{"type": "ping", "id": 7}')  # a binary frame holding JSON is read as text
    assert player.expect("pong")["id"] == 7


def test_unknown_types_and_bad_fields_get_bad_message(player: Client) -> None:
    cases = [
        {"type": "dance", "id": 1},
        {"id": 2},
        {"type": "act", "id": 3},
        {"type": "act", "action": 5, "id": 4},
        {"type": "act", "action": "pass", "seat": "zero", "id": 5},
        {"type": "ready", "ready": "yes", "id": 6},
        {"type": "ping", "extra": 1, "id": 7},
        {"type": "act", "action": "x" * 500, "id": 8},
    ]
    for case in cases:
        player.send(case)
        err = player.expect("error")
        assert err["code"] == "bad_message" and err["id"] == case["id"], err
    player.send({"type": "hello", "token": player.token, "id": 9})
    assert player.expect("error")["code"] == "bad_message"
    player.send({"type": "ping", "id": "ok"})
    assert player.expect("pong")["id"] == "ok"


def test_game_frames_outside_a_room(player: Client) -> None:
    for msg in (
        {"type": "act", "action": "pass"},
        {"type": "ready"},
        {"type": "start"},
        {"type": "auto", "on": True},
        {"type": "leave"},
    ):
        player.send(dict(msg, id=msg["type"]))
        assert player.expect("error")["code"] == "not_in_room"


def test_an_act_chosen_on_another_view_than_the_newest_is_refused_and_nothing_is_played(
    server: ServerProcess, player: Client
) -> None:
    """``seq`` (docs/protocol.md §3.6): an ``act`` names the frame it was chosen on; any other than the newest
    the seat was sent is ``stale_view`` and changes nothing; the newest is played."""

    def discarding(frame: dict[str, Any]) -> bool:
        return bool(frame["view"]["legal"]) and all(a.startswith("discard") for a in frame["view"]["legal"])

    # a discard of seat 0's (while a seat discards, nobody else can act: no frame can overtake ours); a hand
    # can end before seat 0 has one (a computer's early 胡, a 天胡): then another one-hand match
    for _ in range(5):
        player.api("POST", "/api/rooms/quick", {"hands": 1}, expect=201)
        player.expect("game")
        if play_seat(player, stop_when=discarding, choose=lambda legal: legal[-1]) is None:
            break
        player.expect("match_over")
    else:
        raise AssertionError("five hands ended before seat 0 had a discard to make")
    frame = [f for f in player.frames if f["type"] in ("game", "update")][-1]
    seq, action = frame["seq"], frame["view"]["legal"][0]
    for other in {seq + 1, max(seq - 1, 0)} - {seq}:
        ref = player.next_id()
        player.send({"type": "act", "action": action, "hand": frame["hand"], "seq": other, "id": ref})
        err = player.expect("error", where=lambda f, r=ref: f.get("id") == r)
        assert err["code"] == "stale_view" and f"frame {other} " in err["message"], err
    before = len(player.frames)
    player.drain(0.3)
    assert not [f for f in player.frames[before:] if f["type"] == "update"]  # nothing was played
    ref = player.next_id()
    player.send({"type": "act", "action": action, "hand": frame["hand"], "seq": seq, "id": ref})
    done = player.expect("update", where=lambda f: f.get("id") == ref)
    assert done["seq"] == seq + 1
    player.send({"type": "act", "action": "pass", "seq": -1, "id": "neg"})
    assert player.expect("error", where=lambda f: f.get("id") == "neg")["code"] == "bad_message"


def test_wrong_seat_illegal_action_out_of_turn_and_stale_hand(server: ServerProcess, player: Client) -> None:
    player.api("POST", "/api/rooms/quick", {"hands": 1}, expect=201)
    game = player.expect("game")
    hand, seat = game["hand"], game["seat"]

    def check(action: str, code: str, **extra: int) -> None:
        player.send(dict({"type": "act", "action": action, "hand": hand, "id": code}, **extra))
        err = player.expect("error", where=lambda f: f.get("id") == code)
        assert err["code"] == code, err

    check("pass", "wrong_seat", seat=(seat + 1) % 3)
    check("pass", "stale_hand", hand=hand + 1000)
    # wait for a moment when seat 0 has no decision (a bot is thinking: bot delay 0.3 s)
    while True:
        player.drain(0.05)
        last = [f for f in player.frames if f["type"] in ("game", "update")][-1]
        if not last["view"]["legal"]:
            break
        ref = player.next_id()
        player.send({"type": "act", "action": last["view"]["legal"][0], "id": ref})
        player.expect("update", where=lambda f, r=ref: f.get("id") == r)
    check("pass", "not_your_turn")
    # now one where seat 0 decides: nonsense and illegal-but-well-formed actions are both refused
    while True:
        frame = player.recv(30)
        if frame["type"] in ("game", "update") and frame["view"]["legal"]:
            break
        assert frame["type"] != "hand_over", "the hand ended before seat 0 had to decide"
    view = frame["view"]
    # a well-formed action that is not legal now: a card the seat lacks, else (a hand may hold all 20 kinds)
    # any discard/claim not in its legal list
    kinds = [f"{case}{p}" for case in "xd" for p in range(1, 11)]
    candidates = [f"discard {c}" for c in kinds if c not in view["hand"]] + [f"discard {c}" for c in kinds]
    illegal = next(a for a in [*candidates, "peng", "hu", "pass"] if a not in view["legal"])
    # text that is no action at all is refused at the wire edge (bad_message, naming what is wrong); a well
    # formed action the seat may not play now is the engine's to refuse (illegal_action)
    cases = {
        "dance": ("bad_message", "action: unknown action 'dance' in 'dance' (expected discard, hu, peng, chi or pass)"),
        "chi x1 x2 x3 x4": (
            "bad_message",
            "action: chi takes the two hand cards it eats with, like 'chi x8 x9'; got 4",
        ),
        "discard": ("bad_message", "action: discard takes exactly one card, like 'discard x7'; got 'discard'"),
        "discard y2": ("bad_message", "action: bad card token 'y2' at position 0 in 'y2'"),
        illegal: ("illegal_action", None),
    }
    for action, (code, message) in cases.items():
        player.send({"type": "act", "action": action, "id": action})
        err = player.expect("error", where=lambda f, a=action: f.get("id") == a)
        assert err["code"] == code and err["message"], err
        if message is not None:
            assert err["message"] == message
    player.send({"type": "sync"})
    snap = player.expect("game")
    assert snap["view"] == view  # nothing changed
    player.api("POST", "/api/rooms/leave")


def test_frame_before_hello_and_bad_token_close_4001(server: ServerProcess) -> None:
    c = Client(server)
    c.connect(hello=False)
    c.send({"type": "ping", "id": 1})
    assert c.expect("error")["code"] == "not_authenticated"
    assert c.closed_with() == (4001, "expected hello")
    c.connect(hello=False)
    c.send({"type": "hello", "token": "y" * 43})
    assert c.expect("error")["code"] == "unauthorized"
    assert c.closed_with() == (4001, "unauthorized")
    _still_serving(server)


def test_no_hello_in_time_closes_4002(server: ServerProcess) -> None:
    c = Client(server)
    c.connect(hello=False)
    assert c.closed_with(timeout=10) == (4002, "hello timeout")


def test_oversized_frame_is_closed_with_1009(server: ServerProcess, player: Client) -> None:
    player.send({"type": "act", "action": "pass", "pad": "x" * 10_000})
    code, _reason = player.closed_with()
    assert code == 1009
    _still_serving(server)


def test_flood_is_rate_limited_then_closed(server: ServerProcess, player: Client) -> None:
    for i in range(200):
        try:
            player.send({"type": "ping", "id": i})
        except Exception:  # noqa: BLE001 — the server may close while we still send
            break
    codes = []
    try:
        while True:
            codes.append(player.recv(10)["type"])
    except Exception as exc:  # noqa: BLE001
        closed = exc
    assert "pong" in codes and "error" in codes
    errors = [f for f in player.frames if f["type"] == "error"]
    assert errors[0]["code"] == "rate_limited"
    assert getattr(closed, "rcvd", None) is not None and closed.rcvd.code == 1008  # type: ignore[attr-defined]
    assert closed.rcvd.reason == "rate limit exceeded"  # type: ignore[attr-defined]
    _still_serving(server)


def test_too_many_bad_frames_close_1008(server: ServerProcess, player: Client) -> None:
    for _ in range(12):
        player.send_raw("nope")
    assert player.closed_with() == (1008, "too many invalid frames")


def test_websocket_origin_check(server: ServerProcess) -> None:
    """The Origin must be the server's own — scheme, host and port — or an allowed one."""
    c = Client(server)
    port = server.port
    for bad in (
        "https://evil.example",
        f"https://127.0.0.1:{port}",  # the right host and port, but this server speaks http
        f"http://127.0.0.1:{port + 1}",
        f"http://localhost:{port}",
        "http://friends.example",  # the allowed origin is https
        "null",
    ):
        with pytest.raises(InvalidStatus) as refused:
            c.connect(origin=bad)
        assert refused.value.response.status_code == 403, bad
    for good in (server.url, f"HTTP://127.0.0.1:{port}", "https://friends.example", "https://friends.example:443"):
        assert c.connect(origin=good)["type"] == "welcome", good
        c.close()


def _welcomed(server: ServerProcess, origin: str, token: str, headers: dict[str, str]) -> bool:
    """Whether a websocket to ``server`` for the site ``play.example`` (its ``Host``, as a proxy keeps it)
    from ``origin``, with these request headers, is let in and welcomed."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    try:
        ws = connect("ws://play.example/ws", sock=sock, origin=Origin(origin), additional_headers=headers)
    except InvalidStatus as exc:
        sock.close()
        assert exc.response.status_code == 403
        return False
    with ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        return bool(json.loads(ws.recv(timeout=10))["type"] == "welcome")


def test_behind_a_trusted_proxy_the_forwarded_scheme_is_the_servers_own(tmp_path: Path) -> None:
    """Behind a TLS proxy (``--forwarded-allow-ips``, ``X-Forwarded-Proto: https``, docs/server.md) the
    page is https and the server's own origin is too; the plain-http origin of the same host is not. From a
    peer that is not a trusted proxy the header counts for nothing."""
    trusted = ServerProcess(
        tmp_path, f"sqlite:///{tmp_path / 'a.sqlite3'}", args=["--forwarded-allow-ips", "127.0.0.1"]
    )
    untrusted = ServerProcess(tmp_path, f"sqlite:///{tmp_path / 'b.sqlite3'}")
    try:
        for proc in (trusted, untrusted):
            proc.start()
        tls = {"X-Forwarded-Proto": "https"}
        token = Client(trusted).token
        assert _welcomed(trusted, "https://play.example", token, tls)
        assert not _welcomed(trusted, "http://play.example", token, tls)
        assert not _welcomed(trusted, "https://play.example:8443", token, tls)
        token = Client(untrusted).token
        assert not _welcomed(untrusted, "https://play.example", token, tls)
        assert _welcomed(untrusted, "http://play.example", token, tls)
    finally:
        trusted.stop()
        untrusted.stop()


def test_http_bad_bodies_never_show_a_stack_trace(server: ServerProcess) -> None:
    c = Client(server)
    for body in ("{", "[]", json.dumps({"hands": "many"})):
        r = httpx.post(
            server.url + "/api/rooms",
            content=body,
            headers={"Authorization": f"Bearer {c.token}", "Content-Type": "application/json"},
        )
        assert r.status_code == 422 and set(r.json()) == {"error"}, r.text
        assert "Traceback" not in r.text
    r = httpx.post(server.url + "/api/rooms/quick", headers={"Authorization": "Basic abc"})
    assert r.status_code == 401
    time.sleep(0.05)
    _still_serving(server)


def test_http_flood_gets_429_and_others_still_get_served(tmp_path: Path) -> None:
    # A server of its own with a bucket of 10 that gains a token every 5 s: 60 requests empty it however
    # slowly a loaded machine answers them (with the default 100 + 20/s, requests slower than 17 ms never did).
    env = {"PAOHUZI_HTTP_RATE": "0.2", "PAOHUZI_HTTP_BURST": "10"}
    with running(tmp_path, f"sqlite:///{tmp_path / 'db.sqlite3'}", env) as proc:
        with httpx.Client(base_url=proc.url) as http:
            started = time.monotonic()
            answers = [http.get("/api/leaderboard?limit=1") for _ in range(60)]
            elapsed = time.monotonic() - started
            codes = [r.status_code for r in answers]
            assert set(codes) == {200, 429} and codes[:10] == [200] * 10
            assert codes.count(200) <= 10 + 1 + elapsed * 0.2  # the burst, then the refill only
            refused = answers[codes.index(429)]
            assert refused.json()["error"]["code"] == "rate_limited" and "Traceback" not in refused.text
            assert http.get("/healthz").status_code == 200  # not the lobby API: not limited
