"""Persistence and recovery (issue #5 §6): ``kill -9`` the server mid-hand, start it again on the same
database, finish the hand; the record equals an uninterrupted replay of the same actions. Runs on SQLite
and, when it answers on 127.0.0.1:5432, on PostgreSQL (a schema of its own per test)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from paohuzi.engine import Hand, replay
from paohuzi.rules import RuleSet

from .support import (
    Client,
    ServerProcess,
    describe,
    first_legal,
    never_hu,
    play_seat,
)


def _acked(clients: list[Client]) -> dict[int, list[str]]:
    """seat -> the actions its client sent and saw accepted, in order."""
    out: dict[int, list[str]] = {}
    for c in clients:
        sent = {m["id"]: m["action"] for m in c.__dict__.get("sent", [])}
        for f in c.frames:
            if f["type"] == "update" and f.get("id") in sent:
                out.setdefault(f["view"]["seat"], []).append(sent[f["id"]])
    return out


class RecordingClient(Client):
    """Remembers the ``act`` frames it sent, to check them against the stored record."""

    def send(self, message: dict[str, Any]) -> None:
        if message.get("type") == "act":
            self.__dict__.setdefault("sent", []).append(message)
        super().send(message)


def _play(clients: list[Client], until: str, stop_when: Any = None, choose: Any = first_legal) -> None:
    errors: list[BaseException] = []

    def run(c: Client) -> None:
        try:
            play_seat(c, until=until, choose=choose, stop_when=stop_when, timeout=60)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise AssertionError(describe(clients)) from errors[0]


def _last_views(clients: list[Client]) -> dict[int, dict[str, Any]]:
    out = {}
    for c in clients:
        frames = [f for f in c.frames if f["type"] in ("game", "update")]
        out[c.id] = frames[-1]
    return out


def _seated_at_a_live_hand(server: ServerProcess) -> list[Client]:
    """Three players in a new one-hand room, the hand dealt. A dealt 天胡 (R6.4, about one deal in 10,000)
    ends a hand before anyone plays; then the players leave that (finished) room for a new one."""
    for _ in range(3):
        clients: list[Client] = [RecordingClient(server) for _ in range(3)]
        code = clients[0].api("POST", "/api/rooms", {"hands": 1}, expect=201)["room"]["code"]
        for c in clients[1:]:
            c.api("POST", f"/api/rooms/{code}/join")
        for c in clients:
            c.connect()
            c.send({"type": "ready", "ready": True})
        games = [c.expect("game") for c in clients]
        if games[0]["view"]["phase"] != "over":
            return clients
        for c in clients:
            c.close()
    raise AssertionError("three dealt 天胡 in a row")


def test_kill_9_mid_hand_then_resume_and_finish(database_url: str, tmp_path: Path) -> None:
    # long turn timers: every action of this hand must be a player's own, even on a busy machine
    server = ServerProcess(
        tmp_path, database_url, {"PAOHUZI_TURN_SECONDS": "300", "PAOHUZI_CLAIM_SECONDS": "300"}
    ).start()
    try:
        clients = _seated_at_a_live_hand(server)
        # part of the hand: until five cards are drawn from the stock, nobody taking a 胡 (so the hand cannot
        # end before: the random deal must not decide whether it lasts that long); then everyone reads the rest
        _play(clients, until="hand_over", stop_when=lambda f: f["view"]["stock"] <= 14, choose=never_hu)
        for c in clients:
            c.drain()
        assert all(f["type"] != "hand_over" for c in clients for f in c.frames), "the hand ended too soon"
        before = _last_views(clients)
        hand_id = next(iter(before.values()))["hand"]
        server.kill()
        for c in clients:
            c.close()

        server.start()
        for c in clients:
            c.connect()  # frames are kept: the ones before the crash count for the check below
        snaps = {c.id: c.expect("game") for c in clients}
        for c in clients:
            # every frame a seat was sent was committed first: the snapshot is exactly what it last saw
            assert snaps[c.id]["hand"] == hand_id and snaps[c.id]["view"] == before[c.id]["view"]
        _play(clients, until="hand_over")
        overs = [c.frames[-1] for c in clients]
        assert all(o["type"] == "hand_over" and o["hand"] == hand_id for o in overs)
        for c in clients:
            c.close()

        record = clients[0].api("GET", f"/api/replays/{hand_id}?steps=false")["record"]
        # uninterrupted replay of the same actions, from scratch
        fresh = Hand(RuleSet.from_dict(record["rules"]), record["seed"], record["dealer"])
        for seat, action in record["actions"]:
            fresh.apply(seat, action)
        assert fresh.over and fresh.record() == record
        assert fresh.outcome is not None and fresh.outcome.to_dict() == overs[0]["outcome"]
        assert replay(record).events == fresh.events
        # the record holds exactly the actions the players saw accepted, in order — none lost, none doubled
        acked = _acked(clients)
        for seat, actions in acked.items():
            assert [a for s, a in record["actions"] if s == seat] == actions
        assert len(record["actions"]) == sum(len(a) for a in acked.values())
    finally:
        server.stop()


def test_restart_between_hands_and_with_bots_resumes_the_match(database_url: str, tmp_path: Path) -> None:
    server = ServerProcess(tmp_path, database_url, {"PAOHUZI_BOT_DELAY": "0.01", "PAOHUZI_BETWEEN_HANDS": "3"}).start()
    try:
        me = Client(server)
        me.api("POST", "/api/rooms/quick", {"hands": 2}, expect=201)
        me.connect()
        first = play_seat(me, until="hand_over")
        assert first is not None
        server.kill()  # within the pause between the hands
        me.close()
        server.start()
        me.frames.clear()
        me.connect()
        room = me.expect("room")["room"]
        assert room["status"] == "playing" and room["match"]["scores"] == first["scores"]
        game = me.expect("game")
        assert game["number"] == 2 and game["hand"] != first["hand"]
        play_seat(me, until="match_over")
        history = me.api("GET", "/api/me/history")["matches"]
        assert history[0]["status"] == "finished" and len(history[0]["hands"]) == 2
        me.close()
    finally:
        server.stop()
