"""Difficulty levels in the protocol (issue #16 item 3): 入门 / 普通 / 高手 / 大师 offered by ``/api/presets``,
chosen for quick play's opponents and a friend room's computers (``bot_level``), shown on the bot seats;
托管 and rooms that chose none play the ``normal`` level (``levels.AUTOPLAY``)."""

from __future__ import annotations

from paohuzi.bots import levels
from paohuzi.server.config import Settings

from ..support.clients import Client
from ..support.server import ServerProcess


def test_autoplay_is_the_default_bot() -> None:
    assert Settings().bot_name == levels.AUTOPLAY == "normal"


def test_presets_offer_the_levels(server: ServerProcess) -> None:
    data = server.api("GET", "/api/presets")
    assert [(lv["key"], lv["zh"], lv["en"]) for lv in data["room_options"]["levels"]] == [
        ("beginner", "入门", "Beginner"),
        ("normal", "普通", "Normal"),
        ("expert", "高手", "Expert"),
        ("master", "大师", "Master"),
    ]
    assert data["room_options"]["defaults"]["bot_level"] == "normal"


def test_quick_play_opponents_play_the_chosen_level(server: ServerProcess) -> None:
    me = Client(server)
    room = me.api("POST", "/api/rooms/quick", {"hands": 1, "bot_level": "入门"}, expect=201)["room"]
    assert [s["bot"] for s in room["seats"]] == [None, "beginner", "beginner"]
    assert room["options"]["bot_level"] == "beginner"
    me.api("POST", "/api/rooms/leave")
    err = me.api("POST", "/api/rooms/quick", {"bot_level": "godlike"}, expect=422)["error"]
    assert err["code"] == "invalid" and "unknown level 'godlike'" in err["message"]


def test_friend_room_fills_free_seats_with_the_chosen_level(server: ServerProcess) -> None:
    owner = Client(server)
    room = owner.api("POST", "/api/rooms", {"hands": 1, "bot_level": "expert"}, expect=201)["room"]
    assert room["options"]["bot_level"] == "expert"
    owner.connect()
    owner.expect("room")
    owner.send({"type": "start"})
    state = owner.expect("room", where=lambda f: f["room"]["status"] == "playing")["room"]
    assert [s["bot"] for s in state["seats"]] == [None, "expert", "expert"]
    owner.api("POST", "/api/rooms/leave")
    owner.close()
