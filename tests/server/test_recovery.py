"""Persistence and recovery (issue #5 §6): ``kill -9`` the server mid-hand, start it again on the same
database, finish the hand; the record equals an uninterrupted replay of the same actions. Runs on SQLite
and, when it answers on 127.0.0.1:5432, on PostgreSQL (a schema of its own per test)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..support.clients import Client, describe, first_legal, never_hu, play_seat
from ..support.server import ServerProcess, running
from .play import RecordingClient, check_replay, in_parallel, seated_table


def _acked(clients: list[RecordingClient], hand: int) -> dict[int, list[str]]:
    """seat -> the actions its client sent and saw accepted, in order."""
    return {next(f for f in c.frames if f["type"] == "game")["view"]["seat"]: c.acked(hand) for c in clients}


def _play(clients: list[RecordingClient], until: str, stop_when: Any = None, choose: Any = first_legal) -> None:
    jobs = [lambda c=c: play_seat(c, until=until, choose=choose, stop_when=stop_when, timeout=60) for c in clients]
    try:
        in_parallel(jobs)
    except BaseException as exc:
        raise AssertionError(describe(list(clients))) from exc


def _last_views(clients: list[Client]) -> dict[int, dict[str, Any]]:
    out = {}
    for c in clients:
        frames = [f for f in c.frames if f["type"] in ("game", "update")]
        out[c.id] = frames[-1]
    return out


def _seated_at_a_live_hand(server: ServerProcess) -> list[RecordingClient]:
    """Three players in a new one-hand room, the hand dealt."""
    return seated_table(server, [server] * 3, RecordingClient)


def test_kill_9_mid_hand_then_resume_and_finish(database_url: str, tmp_path: Path) -> None:
    # long turn timers: every action of this hand must be a player's own, even on a busy machine
    with running(
        tmp_path, database_url, {"PAOHUZI_TURN_SECONDS": "300", "PAOHUZI_CLAIM_SECONDS": "300"}
    ) as server:
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
        check_replay(record, overs[0]["outcome"])  # uninterrupted replay of the same actions, from scratch
        # the record holds exactly the actions the players saw accepted, in order — none lost, none doubled
        acked = _acked(clients, hand_id)
        for seat, actions in acked.items():
            assert [a for s, a in record["actions"] if s == seat] == actions
        assert len(record["actions"]) == sum(len(a) for a in acked.values())


def test_restart_between_hands_and_with_bots_resumes_the_match(database_url: str, tmp_path: Path) -> None:
    with running(tmp_path, database_url, {"PAOHUZI_BOT_DELAY": "0.01", "PAOHUZI_BETWEEN_HANDS": "3"}) as server:
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
