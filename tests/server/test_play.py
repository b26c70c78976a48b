"""Playing over real websockets (issue #5 §3–§5): a private room to settlement, quick play against bots,
reconnecting, 托管 for a disconnected or slow seat, leaving, rematch."""

from __future__ import annotations

import time
from typing import Any

from paohuzi.engine import replay

from ..support.clients import Client, never_hu, play_seat
from ..support.server import ServerProcess
from .play import in_parallel


def _private_table(server: ServerProcess, **options: Any) -> tuple[list[Client], str]:
    players = [Client(server) for _ in range(3)]
    code = players[0].api("POST", "/api/rooms", dict({"hands": 1}, **options), expect=201)["room"]["code"]
    for p in players[1:]:
        p.api("POST", f"/api/rooms/{code}/join")
    for p in players:
        p.connect()
        p.expect("room")
    return players, code


def _play_all(players: list[Client], until: str = "hand_over", timeout: float = 90) -> list[dict[str, Any]]:
    return in_parallel([lambda p=p: play_seat(p, until=until, timeout=timeout) for p in players])


def test_three_clients_play_a_private_room_hand_to_settlement(server: ServerProcess) -> None:
    players, code = _private_table(server)
    for p in players:
        p.send({"type": "ready", "ready": True})
    overs = _play_all(players)
    hand_id = overs[0]["hand"]
    assert all(o["hand"] == hand_id for o in overs)
    assert sum(overs[0]["deltas"]) == 0 and overs[0]["outcome"]["kind"] in ("hu", "draw")
    for p in players:
        p.expect("match_over")
    # every seat only ever saw its own hand, and the frames came in order
    for p in players:
        seqs = [f["seq"] for f in p.frames if f["type"] == "update"]
        assert seqs == sorted(seqs)
    data = players[0].api("GET", f"/api/replays/{hand_id}")  # a private room's hand: for its players
    again = replay(data["record"])
    assert again.over and list(again.outcome.payments) == overs[0]["deltas"]
    steps = data["steps"]
    assert len(steps) == len(data["record"]["actions"]) + 1 and steps[0]["action"] is None
    assert [[s["seat"], s["action"]] for s in steps[1:]] == data["record"]["actions"]
    assert steps[-1]["full"]["phase"] == "over" and all("hands" in v for v in steps[-1]["views"])
    # the 听牌 hint rides along with every view
    assert all(isinstance(f["waits"], list) for p in players for f in p.frames if f["type"] == "update")
    # points and history
    me = players[0].api("GET", "/api/me")["player"]
    seat0 = next(s for s in server.api("GET", f"/api/rooms/{code}")["room"]["seats"] if s["player"]["id"] == me["id"])
    assert me["hands_played"] == 1 and me["matches_played"] == 1
    history = players[0].api("GET", "/api/me/history")["matches"]
    assert history[0]["status"] == "finished" and history[0]["hands"][0]["id"] == hand_id
    assert seat0["ready"] is False
    for p in players:
        p.close()


def test_quick_play_starts_at_once_against_two_bots(server: ServerProcess) -> None:
    me = Client(server)
    room = me.api("POST", "/api/rooms/quick", {"hands": 1}, expect=201)["room"]
    assert room["status"] == "playing" and [s["bot"] for s in room["seats"]][1:] == ["normal", "normal"]
    me.connect()
    game = me.expect("game")
    assert game["seat"] == 0 and len(game["view"]["hand"]) in (20, 21) or game["view"]["tables"][0]
    over = play_seat(me, until="hand_over")
    assert sum(over["deltas"]) == 0
    result = me.expect("match_over")
    assert sorted(result["ranking"]) == [0, 1, 2]
    # rematch starts another match at once
    me.send({"type": "rematch"})
    again = me.expect("game")
    assert again["hand"] != over["hand"]
    me.api("POST", "/api/rooms/leave")
    me.close()


def _two_then_own_discard() -> dict[str, Any]:
    """play_seat arguments: decline 胡, and stop once two decisions are played and the seat must discard."""
    played: list[str] = []

    def choose(legal: list[str]) -> str:
        played.append(never_hu(legal))
        return played[-1]

    def my_discard(frame: dict[str, Any]) -> bool:
        legal = frame["view"]["legal"]
        return len(played) >= 2 and bool(legal) and all(a.startswith("discard ") for a in legal)

    return {"choose": choose, "stop_when": my_discard}


def _at_third_decision(server: ServerProcess) -> Client:
    """A quick-play player whose seat has played two decisions (never 胡) and now has its own discard to
    make: nobody else can move until it does (a pending claim could be overtaken by a bot's 胡 while the
    test looks away). The bots may still win first (about one hand in 60, or a dealt 天胡, R6.4): then a
    new player tries a new hand."""
    for _ in range(5):
        me = Client(server)
        me.api("POST", "/api/rooms/quick", {"hands": 1}, expect=201)
        me.connect()
        me.expect("game")
        if play_seat(me, until="hand_over", **_two_then_own_discard(), timeout=60) is None:
            return me
        me.close()
    raise AssertionError("five hands in a row ended before the seat's third decision")


def test_reconnect_mid_hand_gets_the_full_snapshot_from_another_tab(server: ServerProcess) -> None:
    me = _at_third_decision(server)
    last = [f for f in me.frames if f["type"] in ("update", "game")][-1]
    # a second tab with the same token takes over; the first is closed with 4000
    tab = Client(server, token=me.token)
    tab.connect()
    room = tab.expect("room")["room"]
    snap = tab.expect("game")
    assert me.closed_with()[0] == 4000
    assert room["seats"][0]["player"]["id"] == me.id and room["status"] == "playing"
    assert snap["seat"] == 0 and snap["hand"] == last["hand"] and snap["seq"] >= last["seq"]
    assert set(snap) >= {"view", "timers", "scores", "auto", "seq"}
    assert snap["view"]["hand"] and "legal" in snap["view"]
    play_seat(tab, until="hand_over")
    tab.api("POST", "/api/rooms/leave")
    tab.close()


def test_a_disconnected_seat_is_played_by_a_bot_and_handed_back(server: ServerProcess) -> None:
    players, code = _private_table(server, hands=2)
    for p in players:
        p.send({"type": "ready", "ready": True})
    for p in players:
        p.expect("game")
    gone = players[2]
    gone.close()
    # the other two play on once seat 2 is in 托管 (after offline_grace): playing at once, a 胡 offered at
    # their first decision could end the hand before 托管 began
    players[0].expect(
        "room", where=lambda f: any(s["auto"] and (s["player"] or {}).get("id") == gone.id for s in f["room"]["seats"])
    )
    # seat 2's decisions are made by the bot
    others = players[:2]
    overs = _play_all(others)
    state = server.api("GET", f"/api/rooms/{code}")["room"]
    seat2 = next(s for s in state["seats"] if s["player"]["id"] == gone.id)
    assert seat2["auto"] is True and seat2["connected"] is False
    actions = players[0].api("GET", f"/api/replays/{overs[0]['hand']}")["record"]["actions"]
    seat_of_gone = seat2["seat"]
    assert any(s == seat_of_gone for s, _ in actions) or overs[0]["outcome"]["kind"] == "hu"
    # it comes back: 托管 ends and it plays the second hand itself
    back = Client(server, token=gone.token)
    back.connect()
    room = back.expect("room")["room"]
    assert room["seats"][seat_of_gone]["auto"] is False and room["seats"][seat_of_gone]["connected"] is True
    _play_all([players[0], players[1], back], until="match_over")
    for p in (players[0], players[1], back):
        p.close()


def test_one_missed_deadline_plays_that_decision_two_in_a_row_turn_on_tuoguan(server: ServerProcess) -> None:
    """docs/protocol.md §3.4: a missed deadline has the server play that one decision; 托管 begins only at
    the second missed deadline in a row; the player can turn it off and on again."""
    players, code = _private_table(server, turn_seconds=3, claim_seconds=2)
    for p in players:
        p.send({"type": "ready", "ready": True})
    games = [p.expect("game") for p in players]
    slow, first = next((p, g) for p, g in zip(players, games, strict=True) if g["view"]["legal"])
    seat = first["seat"]
    # the slow seat's own frame: the first decision may be a claim, whose timer the other seats never see
    # (R5), so only the seat itself is sure to have it
    timer = next(t for t in first["timers"] if t["seat"] == seat)
    assert 0 < timer["remaining_ms"] <= (3000 if timer["kind"] == "discard" else 2000)
    started = time.monotonic()
    room = slow.expect("room", timeout=30, where=lambda f: f["room"]["seats"][seat]["auto"])["room"]
    # two deadlines passed before 托管 began: what was left of the first, then a whole second one (≥ 2 s);
    # 0.25 s allows for the frame's time in flight
    assert time.monotonic() - started >= timer["remaining_ms"] / 1000 + 2.0 - 0.25
    assert room["seats"][seat]["auto"] is True
    # … and the first missed one was played for the seat without 托管
    index = len(slow.frames) - 1
    played = [
        f
        for f in slow.frames[:index]
        if f["type"] == "update" and any(e.get("seat") == seat for e in f["events"]) and not f["auto"][seat]
    ]
    assert played, slow.frames[:index]
    slow.send({"type": "auto", "on": False})
    room = slow.expect("room", where=lambda f: not f["room"]["seats"][seat]["auto"])["room"]
    slow.send({"type": "auto", "on": True})
    slow.expect("room", where=lambda f: f["room"]["seats"][seat]["auto"])
    for p in players:
        p.send({"type": "auto", "on": True})
    for p in players:
        p.expect("hand_over", timeout=60)
    for p in players:
        p.close()


def test_leaving_mid_hand_pays_the_escape_penalty(server: ServerProcess) -> None:
    players, code = _private_table(server, hands=3)
    for p in players:
        p.send({"type": "ready", "ready": True})
    for p in players:
        p.expect("game")
    leaver = players[1]
    before = leaver.api("GET", "/api/me")["player"]["points"]
    leaver.send({"type": "leave"})
    over = leaver.expect("hand_over")
    assert over["outcome"]["kind"] == "escape"
    result = players[0].expect("match_over")
    assert result["status"] == "aborted" and result["penalty"] > 0
    leaver.expect("room", where=lambda f: f["room"] is None)
    after = leaver.api("GET", "/api/me")["player"]["points"]
    assert after == before - result["penalty"]
    room = server.api("GET", f"/api/rooms/{code}")["room"]
    assert room["status"] == "waiting" and leaver.id not in [s["player"] and s["player"]["id"] for s in room["seats"]]
    for p in players:
        p.close()


def test_owner_starts_with_bots_filling_free_seats(server: ServerProcess) -> None:
    owner, friend = Client(server), Client(server)
    code = owner.api("POST", "/api/rooms", {"hands": 1}, expect=201)["room"]["code"]
    friend.api("POST", f"/api/rooms/{code}/join")
    owner.connect()
    friend.connect()
    friend.send({"type": "start", "id": "s1"})
    assert friend.expect("error")["code"] == "not_owner"
    owner.send({"type": "start", "id": "s2"})
    assert owner.expect("error")["code"] == "not_ready"
    friend.send({"type": "ready", "ready": True})
    # two websockets: the owner starts once it has seen the friend ready (its start could overtake the ready)
    owner.expect("room", where=lambda f: f["room"]["seats"][1]["ready"])
    owner.send({"type": "start"})
    room = owner.expect("room", where=lambda f: f["room"]["status"] == "playing")["room"]
    assert [s["bot"] for s in room["seats"]] == [None, None, "normal"]
    _play_all([owner, friend])
    owner.close()
    friend.close()


def test_four_player_room_one_seat_sits_each_hand_out(server: ServerProcess) -> None:
    me = Client(server)
    room = me.api("POST", "/api/rooms", {"preset": "hunan", "four_players": True, "hands": 1}, expect=201)
    assert len(room["room"]["seats"]) == 4
    me.connect()
    me.send({"type": "start"})
    game = me.expect("game")
    view = game["view"]
    assert len(view["hand_counts"]) == 4 and view["sitting_out"] == (view["dealer"] + 2) % 4
    assert len(view["seats"]) == 3 and view["sitting_out"] not in view["seats"]
    over = play_seat(me, until="hand_over")
    assert len(over["deltas"]) == 4 and over["deltas"][view["sitting_out"]] == 0 and sum(over["deltas"]) == 0
    me.expect("match_over")
    me.close()


def test_quick_chat_is_relayed_to_the_table_and_rate_limited(server: ServerProcess) -> None:
    """Issue 12 item 6: a phrase of the fixed list goes to everyone seated (the sender too), by number; a
    second one within 3 s is refused politely (chat_too_fast) and not sent; a number off the list or a
    player in no room is refused."""
    players, code = _private_table(server)
    a, b, c = players
    seat_a = next(
        s["seat"] for s in server.api("GET", f"/api/rooms/{code}")["room"]["seats"] if s["player"]["id"] == a.id
    )
    a.send({"type": "chat", "phrase": 0, "id": "c1"})
    for p in players:
        assert p.expect("chat") == {"type": "chat", "seat": seat_a, "phrase": 0}
    a.send({"type": "chat", "phrase": 9, "id": "c2"})
    error = a.expect("error")
    assert error["code"] == "chat_too_fast" and error["id"] == "c2"
    b.send({"type": "chat", "phrase": 14, "id": "c3"})
    assert b.expect("error")["code"] == "bad_message"
    b.send({"type": "chat", "phrase": 13, "id": "c4"})
    assert c.expect("chat")["phrase"] == 13
    assert not [f for f in c.frames if f["type"] == "chat" and f["phrase"] == 9]
    loner = Client(server)
    loner.connect()
    loner.send({"type": "chat", "phrase": 1, "id": "c5"})
    assert loner.expect("error")["code"] == "not_in_room"
    for p in (*players, loner):
        p.close()
