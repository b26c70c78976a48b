"""Regional families in the lobby (R9.1, R9.2; issue 29): ``/api/presets`` names each preset's family and the
house options a room of it may set with their allowed values (``family_options``); friend rooms and quick
play take every family; an option the family does not offer, or a value it does not allow, is refused (422)
with a message naming the option and the family."""

from __future__ import annotations

from typing import Any

from paohuzi.rules import find_preset

from ..support.clients import Client
from ..support.server import ServerProcess


def _presets(server: ServerProcess) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in server.api("GET", "/api/presets")["presets"]}


def test_r9_presets_answer_each_family_and_its_options(server: ServerProcess) -> None:
    presets = _presets(server)
    assert list(presets) == ["qq", "changde", "changde_qmt", "hengyang", "huayang", "hunan", "liuhuqiang", "shihuka"]
    assert {n: p["family"] for n, p in presets.items()} == {
        "qq": "classic",
        "changde": "changde",
        "changde_qmt": "changde",
        "hengyang": "classic",
        "huayang": "classic",
        "hunan": "classic",
        "liuhuqiang": "liuhuqiang",  # R9.3: the engine plays it (issue 30 part 2)
        "shihuka": "shihuka",
    }
    # R9.1: 常德 never wins on a discard — no 放炮 to choose; 红黑点's 对对胡 and 全名堂's four options
    changde, qmt = presets["changde"]["family_options"], presets["changde_qmt"]["family_options"]
    assert "win_on_discard" not in changde and "discarder_pays" not in changde
    assert changde["min_huxi"] == [15, 18, 21] and changde["duiduihu"] == [False, True]
    assert [k for k in ("shuahou", "hanghangxi", "tuanyuan", "huangfan") if qmt.get(k) == [False, True]] == [
        "shuahou",
        "hanghangxi",
        "tuanyuan",
        "huangfan",
    ]
    # R9.2: 十胡卡 starts at 10 胡息 only; 自摸 doubles or nothing; 醒 and 底分 are its own
    shihuka = presets["shihuka"]["family_options"]
    assert (shihuka["min_huxi"], shihuka["zimo"]) == ([10], ["double", "none"])
    assert (shihuka["xing"], shihuka["base_bonus"]) == (["none", "fan", "sui"], ["none", "plus_one", "double"])
    # the classic presets' rules are as before (R8): no family fields in their rules
    assert presets["qq"]["rules"] == find_preset("qq").to_dict() and "family" not in presets["qq"]["rules"]
    assert presets["shihuka"]["rules"]["family"] == "shihuka"
    # R9.3: 六胡抢 is played by 4 (or 3), all active, on 15-card hands
    liuhuqiang = presets["liuhuqiang"]
    assert liuhuqiang["family_options"]["players"] == [4, 3] and liuhuqiang["rules"]["dealer_cards"] == 15


def test_r9_a_friend_room_of_each_family_stores_its_options(server: ServerProcess) -> None:
    a, b, c = Client(server), Client(server), Client(server)
    body = {"preset": "changde_qmt", "huangfan": True, "shuahou": True, "min_huxi": 18, "hands": 2}
    rules = a.api("POST", "/api/rooms", body, expect=201)["room"]["options"]["rules"]
    assert (rules["name"], rules["family"], rules["huangfan"], rules["shuahou"], rules["min_huxi"]) == (
        "changde_qmt",
        "changde",
        True,
        True,
        18,
    )
    assert (rules["hanghangxi"], rules["tuanyuan"], rules["win_on_discard"]) == (False, False, False)
    body = {"preset": "shihuka", "xing": "sui", "base_bonus": "double", "hongheidian": False, "zimo": "none"}
    rules = b.api("POST", "/api/rooms", body, expect=201)["room"]["options"]["rules"]
    assert (rules["xing"], rules["base_bonus"], rules["hongheidian"], rules["zimo"], rules["min_huxi"]) == (
        "sui",
        "double",
        False,
        "none",
        10,
    )
    # 守醒 (four players) as in hunan (R9.1)
    room = c.api("POST", "/api/rooms", {"preset": "changde", "four_players": True}, expect=201)["room"]
    assert len(room["seats"]) == 4 and room["options"]["rules"]["four_players"] is True


def test_r9_quick_play_of_each_new_preset(server: ServerProcess) -> None:
    for preset in ("changde", "changde_qmt", "shihuka"):
        me = Client(server)
        room = me.api("POST", "/api/rooms/quick", {"preset": preset}, expect=201)["room"]
        assert (room["options"]["preset"], room["options"]["rules"]["name"]) == (preset, preset)
        me.api("POST", "/api/rooms/leave")


def test_r9_an_option_outside_the_family_is_refused_naming_option_and_family(server: ServerProcess) -> None:
    a = Client(server)
    refused = {
        # R9.1: only drawn cards are won in 常德
        ("changde", "win_on_discard", True): "win_on_discard cannot be turned on in the changde family",
        ("changde", "xing", "fan"): "xing is not an option of the changde family",
        ("changde", "min_huxi", 10): "min_huxi must be one of 15, 18, 21 in the changde family",
        ("changde", "shuahou", True): "shuahou is an option of the changde_qmt rules of the changde family only",
        ("shihuka", "min_huxi", 15): "min_huxi must be 10 in the shihuka family",
        ("shihuka", "zimo", "plus_one"): "zimo",
        ("qq", "hongheidian", True): "hongheidian is not an option of the classic family",
        ("qq", "min_huxi", 10): "min_huxi",
    }
    for (preset, option, value), words in refused.items():
        err = a.api("POST", "/api/rooms", {"preset": preset, option: value}, expect=422)["error"]
        assert err["code"] == "invalid" and words in err["message"], (preset, option, err)
        assert option in err["message"], err
    # a value no family knows: refused at the wire edge, naming the field
    err = a.api("POST", "/api/rooms", {"preset": "shihuka", "xing": "both"}, expect=422)["error"]
    assert err["code"] == "invalid" and "xing" in err["message"], err
    assert a.api("GET", "/api/me")["room"] is None
