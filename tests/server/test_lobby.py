"""The lobby HTTP API (docs/protocol.md §2): guests, profiles, presets, rooms, errors, OpenAPI."""

from __future__ import annotations

import httpx

from ..support.clients import Client
from ..support.server import ServerProcess


def test_healthz(server: ServerProcess) -> None:
    data = server.api("GET", "/healthz")
    assert data["status"] == "ok" and data["database"] == "sqlite"


def test_guest_gets_a_long_random_token_and_a_nickname(server: ServerProcess) -> None:
    a, b = Client(server), Client(server)
    assert len(a.token) >= 43 and a.token != b.token
    assert a.player["nickname"] and a.player["points"] == 0 and a.player["title"] == "包身工"
    me = a.api("GET", "/api/me")
    assert me["player"]["id"] == a.id and me["room"] is None


def test_unknown_or_missing_token_is_401_with_an_error_body(server: ServerProcess) -> None:
    r = httpx.get(server.url + "/api/me")
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
    r = httpx.get(server.url + "/api/me", headers={"Authorization": "Bearer " + "x" * 43})
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"


def test_change_nickname(server: ServerProcess) -> None:
    a = Client(server)
    assert a.api("PATCH", "/api/me", {"nickname": "  老  王 "})["player"]["nickname"] == "老 王"
    assert a.api("GET", "/api/me")["player"]["nickname"] == "老 王"
    for bad in ("", "x" * 17, "a\x00b"):
        err = a.api("PATCH", "/api/me", {"nickname": bad}, expect=422)
        assert err["error"]["code"] == "invalid" and "nickname" in err["error"]["message"]
    err = a.api("PATCH", "/api/me", {"nickname": "ok", "admin": True}, expect=422)
    assert err["error"]["code"] == "invalid"


def test_presets_and_room_options(server: ServerProcess) -> None:
    data = server.api("GET", "/api/presets")
    assert [p["name"] for p in data["presets"]][0] == "qq"
    assert {"hands", "turn_seconds"} <= set(data["room_options"]["bounds"])


def test_private_room_code_share_link_and_join(server: ServerProcess) -> None:
    owner, guest = Client(server), Client(server)
    room = owner.api(
        "POST",
        "/api/rooms",
        {"preset": "hengyang", "hands": 2, "turn_seconds": 15, "bots_fill": False},
        expect=201,
    )["room"]
    code = room["code"]
    assert len(code) == 6 and code.isdigit()
    assert room["share_url"].endswith(f"/?room={code}") and room["owner"] == owner.id
    assert room["options"]["preset"] == "hengyang" and room["options"]["stake"] == 1
    assert room["options"]["hands"] == 2 and room["options"]["bots_fill"] is False
    assert room["seats"][0]["player"]["id"] == owner.id and room["status"] == "waiting"
    joined = guest.api("POST", f"/api/rooms/{code}/join", {"seat": 2})["room"]
    assert joined["seats"][2]["player"]["id"] == guest.id
    assert server.api("GET", f"/api/rooms/{code}")["room"]["seats"][2]["player"]["id"] == guest.id
    assert guest.api("GET", "/api/me")["room"]["code"] == code
    third = Client(server)
    assert third.api("POST", f"/api/rooms/{code}/join", {"seat": 2}, expect=409)["error"]["code"] == "room_full"
    assert third.api("POST", "/api/rooms/000000x/join", expect=404)["error"]["code"] == "not_found"
    left = guest.api("POST", "/api/rooms/leave")
    assert left == {"left": code, "penalty": None}
    assert server.api("GET", f"/api/rooms/{code}")["room"]["seats"][2]["player"] is None


def test_room_options_are_validated(server: ServerProcess) -> None:
    a = Client(server)
    for body in ({"hands": 0}, {"turn_seconds": 1}, {"preset": "nowhere"}, {"stake": -1}, {"colour": "red"}):
        err = a.api("POST", "/api/rooms", body, expect=422)
        assert err["error"]["code"] == "invalid", body


def test_room_house_options_r8_1_are_stored_with_the_rules(server: ServerProcess) -> None:
    """R8.1: 起胡, 自摸, 封顶, 有胡必胡, 放炮 (包赔), 坐庄 — set per room, else the preset's; bad values refused."""
    a = Client(server)
    body = {"preset": "qq", "cap": 100, "zimo": "double", "min_huxi": 18, "must_hu": True, "first_dealer": "owner"}
    rules = a.api("POST", "/api/rooms", body, expect=201)["room"]["options"]["rules"]
    assert (rules["cap"], rules["zimo"], rules["min_huxi"], rules["must_hu"], rules["first_dealer"]) == (
        100,
        "double",
        18,
        True,
        "owner",
    )
    preset = next(p["rules"] for p in server.api("GET", "/api/presets")["presets"] if p["name"] == "qq")
    assert (rules["win_on_discard"], rules["discarder_pays"]) == (preset["win_on_discard"], preset["discarder_pays"])
    b = Client(server)
    plain = b.api("POST", "/api/rooms", {"preset": "hunan"}, expect=201)["room"]["options"]["rules"]
    hunan = next(p["rules"] for p in server.api("GET", "/api/presets")["presets"] if p["name"] == "hunan")
    assert plain == dict(hunan, stake=plain["stake"])
    for bad in ({"cap": 77}, {"zimo": "triple"}, {"min_huxi": 16}, {"first_dealer": "oldest"}):
        err = b.api("POST", "/api/rooms", bad, expect=422)
        assert err["error"]["code"] == "invalid", bad


def test_first_dealer_owner_r8_1_deals_the_owner_the_first_hand(server: ServerProcess) -> None:
    """R8.1 坐庄 ``owner``: the owner deals the first hand — here the owner sits at seat 2 (ownership passed
    to the friend when the creator left and came back)."""
    creator, friend = Client(server), Client(server)
    code = creator.api("POST", "/api/rooms", {"hands": 1, "first_dealer": "owner"}, expect=201)["room"]["code"]
    friend.api("POST", f"/api/rooms/{code}/join", {"seat": 2})
    creator.api("POST", "/api/rooms/leave")
    room = creator.api("POST", f"/api/rooms/{code}/join", {"seat": 0})["room"]
    assert room["owner"] == friend.id
    creator.connect()
    friend.connect()
    creator.send({"type": "ready", "ready": True})
    friend.send({"type": "ready", "ready": True})
    friend.send({"type": "start"})
    game = friend.expect("game", timeout=20)
    assert game["seat"] == 2 and game["view"]["dealer"] == 2
    creator.close()
    friend.close()


def test_four_player_room_has_four_seats(server: ServerProcess) -> None:
    a = Client(server)
    room = a.api("POST", "/api/rooms", {"preset": "hunan", "four_players": True}, expect=201)["room"]
    assert len(room["seats"]) == 4 and room["options"]["rules"]["four_players"] is True
    # R8.1: 守醒 is offered with the hunan rules only
    refused = a.api("POST", "/api/rooms", {"preset": "qq", "four_players": True}, expect=422)
    assert refused["error"]["code"] == "invalid"
    assert "four_players is offered with the hunan rules only (R8.1), not with 'qq'" in refused["error"]["message"]


def test_leaderboard_and_unknown_things(server: ServerProcess) -> None:
    Client(server)
    board = server.api("GET", "/api/leaderboard?limit=5")["players"]
    assert board and board[0]["rank"] == 1 and "title" in board[0] and "token_hash" not in board[0]
    assert server.api("GET", "/api/replays/999999", expect=404)["error"]["code"] == "not_found"
    assert server.api("GET", "/api/matches/999999", expect=404)["error"]["code"] == "not_found"
    assert server.api("GET", "/api/players/999999", expect=404)["error"]["code"] == "not_found"
    assert server.api("GET", "/api/leaderboard?limit=0", expect=422)["error"]["code"] == "invalid"


def test_openapi_and_index_page(server: ServerProcess) -> None:
    spec = server.api("GET", "/openapi.json")
    assert "/api/rooms" in spec["paths"] and "/api/guests" in spec["paths"]
    r = httpx.get(server.url + "/")
    assert r.status_code == 200 and "paohuzi" in r.text


def test_owner_tools_kick_hand_over_and_seat_a_computer(server: ServerProcess) -> None:
    """Issue 12 item 5, before the first hand: the owner seats a computer of a chosen level, releases a seat
    (a computer, or a player who is told and leaves the room), and hands the room over; others may not."""
    owner, guest, other = Client(server), Client(server), Client(server)
    code = owner.api("POST", "/api/rooms", {"hands": 1}, expect=201)["room"]["code"]
    guest.api("POST", f"/api/rooms/{code}/join", {"seat": 1})
    for c in (owner, guest):
        c.connect()
    guest.send({"type": "kick", "seat": 0, "id": "k0"})
    assert guest.expect("error")["code"] == "not_owner"
    owner.send({"type": "add_bot", "seat": 2, "level": "expert", "id": "b1"})
    room = owner.expect("room", where=lambda f: f["room"]["seats"][2]["bot"] is not None)["room"]
    assert room["seats"][2]["bot"] == "expert" and room["seats"][2]["ready"] is True
    owner.send({"type": "add_bot", "seat": 1, "id": "b2"})
    assert owner.expect("error")["code"] == "room_full"
    owner.send({"type": "kick", "seat": 0, "id": "k1"})
    assert owner.expect("error")["code"] == "bad_request"
    owner.send({"type": "kick", "seat": 2})
    owner.expect("room", where=lambda f: f["room"]["seats"][2]["bot"] is None)
    owner.send({"type": "kick", "seat": 1})
    assert guest.expect("kicked") == {"type": "kicked", "room": code, "reason": "owner"}
    guest.expect("room", where=lambda f: f["room"] is None)
    assert guest.api("GET", "/api/me")["room"] is None
    owner.expect("room", where=lambda f: f["room"]["seats"][1]["player"] is None)
    other.api("POST", f"/api/rooms/{code}/join", {"seat": 2})
    owner.send({"type": "give_owner", "seat": 2})
    assert owner.expect("room", where=lambda f: f["room"]["owner"] == other.id)["room"]["owner"] == other.id
    owner.send({"type": "add_bot", "seat": 1, "id": "b3"})
    assert owner.expect("error")["code"] == "not_owner"
    for c in (owner, guest):
        c.close()
