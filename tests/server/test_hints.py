"""提示 over real websockets (issue #16 item 4, docs/protocol.md §3.1 ``hint``): offered in quick play and in
friend rooms that allow it, answered from the seat's own view (R5), rate limited; refused where not offered."""

from __future__ import annotations

import time
from typing import Any

from paohuzi.bots.hints import hint

from ..support.clients import Client
from ..support.server import ServerProcess


def _my_decision(me: Client, timeout: float = 30.0) -> dict[str, Any]:
    """Frames are read until the newest game/update view has a decision for this seat; that frame."""
    deadline = time.monotonic() + timeout
    seen = [f for f in me.frames if f["type"] in ("game", "update")]
    if seen and seen[-1]["view"]["deciding"]:
        return seen[-1]
    while True:
        frame = me.recv(deadline - time.monotonic())
        if frame["type"] in ("game", "update") and frame["view"]["deciding"]:
            return frame
        assert frame["type"] != "match_over", f"the match ended before this seat had a decision: {frame}"


def test_quick_play_hint_is_the_hint_of_the_seats_own_view_and_rate_limited(server: ServerProcess) -> None:
    me = Client(server)
    room = me.api("POST", "/api/rooms/quick", {"hands": 1}, expect=201)["room"]
    assert room["options"]["hints"] is True
    me.connect()
    frame = _my_decision(me)
    me.send({"type": "hint", "id": "h1"})
    got = me.expect("hint", where=lambda f: f.get("id") == "h1")
    want = hint(frame["view"])  # R5: the view the player already has is all the hint is made from
    assert got["suggest"] == want["suggest"] and got["discards"] == want["discards"]
    assert got["suggest"] in frame["view"]["legal"]
    assert got["hand"] == frame["hand"] and got["seat"] == 0
    me.send({"type": "hint", "id": "h2"})  # within a second of the first
    err = me.expect("error", where=lambda f: f.get("id") == "h2")
    assert err["code"] == "hint_too_fast"
    me.api("POST", "/api/rooms/leave")
    me.close()


def test_friend_room_hints_follow_the_owners_option(server: ServerProcess) -> None:
    for allowed in (True, False):
        owner = Client(server)
        # 8 hands: a computer's quick 胡 (a random deal) may end a hand before the owner has a decision; the
        # next hand gives it one (with 1 hand the match ended and the test waited for nothing)
        body: dict[str, Any] = {"hands": 8} if allowed else {"hands": 8, "hints": False}
        room = owner.api("POST", "/api/rooms", body, expect=201)["room"]
        assert room["options"]["hints"] is allowed
        owner.connect()
        owner.expect("room")
        owner.send({"type": "hint", "id": 1})
        before = owner.expect("error", where=lambda f: f.get("id") == 1)
        assert before["code"] == ("no_hand" if allowed else "hints_off")
        owner.send({"type": "start"})  # free seats filled by bots
        frame = _my_decision(owner)
        owner.send({"type": "hint", "id": 2})
        if allowed:
            got = owner.expect("hint", where=lambda f: f.get("id") == 2)
            assert got["suggest"] == hint(frame["view"])["suggest"]
        else:
            assert owner.expect("error", where=lambda f: f.get("id") == 2)["code"] == "hints_off"
        owner.api("POST", "/api/rooms/leave")
        owner.close()


def test_presets_show_the_hints_default(server: ServerProcess) -> None:
    assert server.api("GET", "/api/presets")["room_options"]["defaults"]["hints"] is True
