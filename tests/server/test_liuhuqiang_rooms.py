"""衡阳六胡抢 at the server (R9.3; issue 30 part 2) over real websockets and a real database: every seat at the
table plays — four (or three with the option ``players``) —, so a friend room has ``players`` seats, quick play
gives the player three computers, a public table of the preset seats four strangers, 解散 (R8.2) asks all four,
and a hand is dealt 15 / 14 cards (stock 23, or 37 with three) and settles among all the seats."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paohuzi.bots.hints import hint

from ..support.clients import Client, describe, play_seat
from ..support.server import ServerProcess, running
from .play import in_parallel

# Picked offline with the engine (``Match(rules, SEED, players=4, hands=1, owner=0)``): seat 0 deals the first
# hand. Under the friend room's rules below (一息一囤, 随醒, 一五十, 明偎), every seat following ``first_claim``
# (checked with the deciding seats answering in either order): seat 2 wins on seat 1's discard with 18 胡息,
# 囤 = 胡息 = 18, the 醒 card the card won, 大肆 — two of them: 2 醒, 大红 × 2 under 1xi1tun; (18 + 2) × 2 = 40,
# and the discarder pays the three losers' shares: 120 (R9.3, payment as R9.2).
SEED = 6


def first_claim(legal: list[str]) -> str:
    """胡 when offered, else 碰, else the first 吃, else 过, otherwise the first legal action."""
    for kind in ("hu", "peng", "chi"):
        for action in legal:
            if action.split()[0] == kind:
                return action
    return "pass" if "pass" in legal else legal[0]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose public tables play 六胡抢 (and qq), whose 解散 proposals cannot lapse in a test, dealing
    every match from :data:`SEED` (testing mode: the hands below are known)."""
    workdir: Path = tmp_path_factory.mktemp("liuhuqiang")
    env = {
        "PAOHUZI_TESTING": "1",
        "PAOHUZI_TEST_MATCH_SEED": str(SEED),
        "PAOHUZI_MATCH_PRESETS": "qq,liuhuqiang",
        "PAOHUZI_MATCH_FILL_SECONDS": "600",
        "PAOHUZI_DISSOLVE_SECONDS": "300",
    }
    with running(workdir, env=env) as proc:
        yield proc


def _room(server: ServerProcess, body: dict[str, Any], n: int) -> tuple[list[Client], dict[str, Any]]:
    """``n`` players in a friend room of ``body`` (the first owns it), each connected: the room as created."""
    players = [Client(server, nickname=f"抢{i}") for i in range(n)]
    room = players[0].api("POST", "/api/rooms", body, expect=201)["room"]
    for p in players[1:]:
        p.api("POST", f"/api/rooms/{room['code']}/join")
    for p in players:
        p.connect()
    return players, room


def _deal(players: list[Client]) -> list[dict[str, Any]]:
    """Everyone ready: the first game frame each player gets."""
    for p in players:
        p.send({"type": "ready", "ready": True})
    return [p.expect("game") for p in players]


def _dealt(view: dict[str, Any]) -> list[int]:
    """Each seat's dealt cards as the view shows them: its hand count and its table's cards (an opening 提 or
    偎 — R4.1 — has moved some from the hand; a face-down 偎 is three cards)."""
    size = {"ti": 4, "pao": 4}
    return [
        count + sum(len(g["cards"]) if g.get("cards") else size.get(g["kind"], 3) for g in table)
        for count, table in zip(view["hand_counts"], view["tables"], strict=True)
    ]


def test_r9_3_presets_offer_liuhuqiang_with_its_options(server: ServerProcess) -> None:
    presets = {p["name"]: p for p in server.api("GET", "/api/presets")["presets"]}
    offered = presets["liuhuqiang"]["family_options"]
    assert presets["liuhuqiang"]["family"] == "liuhuqiang"
    assert (offered["players"], offered["tun"], offered["di"]) == ([4, 3], ["3xi1tun", "1xi1tun"], [1, 2])
    assert (offered["yiwushi"], offered["mingwei"], offered["min_huxi"]) == ([False, True], [False, True], [6, 9, 15])
    assert "four_players" not in offered  # all four play: not 守醒
    assert presets["liuhuqiang"]["rules"]["players"] == 4


def test_r9_3_a_friend_room_of_four_deals_15_and_14_and_settles_among_four(server: ServerProcess) -> None:
    body = {"preset": "liuhuqiang", "hands": 1, "mingwei": True, "yiwushi": True, "tun": "1xi1tun", "xing": "sui"}
    players, room = _room(server, body, 4)
    assert len(room["seats"]) == 4
    rules = room["options"]["rules"]
    assert (rules["players"], rules["mingwei"], rules["yiwushi"], rules["tun"], rules["xing"]) == (
        4,
        True,
        True,
        "1xi1tun",
        "sui",
    )
    games = _deal(players)
    view = games[0]["view"]
    dealer = view["dealer"]
    assert len(view["hand_counts"]) == 4 and sorted(view["seats"]) == [0, 1, 2, 3]  # nobody sits out
    assert view["stock"] == 23 and view.get("sitting_out") is None  # R9.3: 80 − 15 − 3 × 14
    assert _dealt(view) == [15 if s == dealer else 14 for s in range(4)]
    for game in games:  # R5: each seat sees its own hand only
        mine = game["seat"]
        assert len(game["view"]["hand"]) == game["view"]["hand_counts"][mine]
        assert not game["view"].get("hands")
    try:
        overs = in_parallel(
            [lambda p=p: play_seat(p, until="hand_over", choose=first_claim, timeout=60) for p in players]
        )
    except TimeoutError:
        raise AssertionError(describe(players)) from None
    assert all(o["deltas"] == [0, -120, 120, 0] for o in overs), [o["deltas"] for o in overs]
    outcome = overs[3]["outcome"]
    assert {
        k: outcome[k] for k in ("kind", "winner", "source", "huxi", "tun", "xing", "xing_card", "fan", "points")
    } == {
        "kind": "hu",
        "winner": 2,
        "source": "discard",
        "huxi": 18,
        "tun": 18,
        "xing": 2,
        "xing_card": "d4",
        "fan": 2,
        "points": 40,
    }
    assert [(n["name"], n["fan"]) for n in outcome["names"]] == [("大红", 2)]
    over = players[0].expect("match_over")
    assert over["scores"] == [0, -120, 120, 0]
    history = players[3].api("GET", "/api/me/history")["matches"][0]
    assert history["preset"] == "liuhuqiang" and len(history["seats"]) == 4
    for p in players:
        p.close()


def test_r9_3_three_players_option_seats_three_all_playing(server: ServerProcess) -> None:
    players, room = _room(server, {"preset": "liuhuqiang", "players": 3, "hands": 1}, 3)
    assert len(room["seats"]) == 3 and room["options"]["rules"]["players"] == 3
    view = _deal(players)[0]["view"]
    assert view["stock"] == 37 and _dealt(view) == [15 if s == view["dealer"] else 14 for s in range(3)]
    full = Client(server).api("POST", f"/api/rooms/{room['code']}/join", expect=409)["error"]
    assert full["code"] in ("room_full", "room_started"), full  # no fourth seat
    for p in players:
        p.close()


def _my_decision(me: Client, timeout: float = 60.0) -> dict[str, Any]:
    """The newest game/update frame once it holds a decision for this seat."""
    deadline = time.monotonic() + timeout
    seen = [f for f in me.frames if f["type"] in ("game", "update")]
    if seen and seen[-1]["view"]["deciding"]:
        return seen[-1]
    while True:
        frame = me.recv(deadline - time.monotonic())
        if frame["type"] in ("game", "update") and frame["view"]["deciding"]:
            return frame
        assert frame["type"] != "hand_over", f"the hand ended before this seat had a decision: {frame}"


def test_r9_3_quick_play_against_three_computers_with_hint_and_auto(server: ServerProcess) -> None:
    """Quick play: the player and three computers; 提示 answers from the seat's own 15/14-card view (R5);
    托管 then plays the seat to the end of the hand, which settles among four."""
    me = Client(server)
    room = me.api("POST", "/api/rooms/quick", {"preset": "liuhuqiang", "hands": 1}, expect=201)["room"]
    assert len(room["seats"]) == 4 and [bool(s["bot"]) for s in room["seats"]] == [False, True, True, True]
    me.connect()
    view = me.expect("game")["view"]
    assert len(view["hand_counts"]) == 4 and view["stock"] == 23
    frame = _my_decision(me)
    me.send({"type": "hint", "id": "h1"})
    got = me.expect("hint", where=lambda f: f.get("id") == "h1")
    want = hint(frame["view"])
    assert got["suggest"] == want["suggest"] and got["suggest"] in frame["view"]["legal"]
    me.send({"type": "auto", "on": True})
    over = me.expect("hand_over", timeout=120)
    assert len(over["deltas"]) == 4 and sum(over["deltas"]) == 0
    me.expect("match_over")
    me.close()


def test_r8_2_dissolve_asks_all_four(server: ServerProcess) -> None:
    players, _ = _room(server, {"preset": "liuhuqiang", "hands": 2}, 4)
    _deal(players)
    a, b, c, d = players
    c.send({"type": "dissolve"})

    def votes(client: Client, expected: list[bool | None]) -> None:
        client.expect("room", where=lambda f: ((f["room"] or {}).get("dissolution") or {}).get("votes") == expected)

    for p in players:
        votes(p, [None, None, True, None])
    a.send({"type": "dissolve_vote", "agree": True})
    b.send({"type": "dissolve_vote", "agree": True})
    votes(d, [True, True, True, None])  # three of four agreeing is not enough (R8.2: everyone)
    d.send({"type": "dissolve_vote", "agree": True})
    for p in players:
        assert p.expect("dissolution")["result"] == "agreed"
        over = p.expect("match_over")
        assert (over["status"], over["scores"]) == ("dissolved", [0, 0, 0, 0])
    for p in players:
        p.close()


def test_r9_3_liuhuqiang_options_are_its_own(server: ServerProcess) -> None:
    """The R9.3 options are refused at a room of another family, naming the option and the family; a value
    outside the wire's choices is refused naming the field."""
    a = Client(server)
    for option, value in (("players", 4), ("mingwei", True), ("yiwushi", True), ("tun", "1xi1tun"), ("di", 2)):
        err = a.api("POST", "/api/rooms", {"preset": "qq", option: value}, expect=422)["error"]
        assert err["code"] == "invalid" and option in err["message"] and "classic" in err["message"], err
    for option, value in (("players", 5), ("tun", "2xi1tun"), ("di", 3)):
        err = a.api("POST", "/api/rooms", {"preset": "liuhuqiang", option: value}, expect=422)["error"]
        assert err["code"] == "invalid" and option in err["message"], err
    assert a.api("GET", "/api/me")["room"] is None


def test_r9_3_a_public_table_seats_four_strangers(server: ServerProcess) -> None:
    """匹配 with the preset: three waiting are not a table; the fourth seats all four at one table of four."""
    players = [Client(server, nickname=f"匹{i}") for i in range(4)]
    for p in players:
        p.connect()
    for p in players[:3]:
        p.send({"type": "queue_join", "tier": "practice", "preset": "liuhuqiang"})
        p.expect("queue", where=lambda f: f["queue"] is not None)
    queue = players[0].api("GET", "/api/queue")["queue"]
    assert (queue["preset"], queue["waiting"]) == ("liuhuqiang", 3)
    players[3].send({"type": "queue_join", "tier": "practice", "preset": "liuhuqiang"})
    rooms = []
    for p in players:
        rooms.append(p.expect("room", where=lambda f: (f["room"] or {}).get("status") == "playing", timeout=30)["room"])
    assert len({r["code"] for r in rooms}) == 1 and len(rooms[0]["seats"]) == 4
    assert sorted(s["player"]["id"] for s in rooms[0]["seats"]) == sorted(p.id for p in players)
    for p in players:
        p.close()


@pytest.fixture(scope="module")
def wei_deal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Testing mode with the deal of tests/web/test_liuhuqiang.py (seed 79): seat 3 makes a 偎 of 小九 with 10
    cards left in the stock, under ``first_claim`` at every seat, 明偎 or not."""
    workdir: Path = tmp_path_factory.mktemp("liuhuqiang-wei")
    with running(workdir, env={"PAOHUZI_TESTING": "1", "PAOHUZI_TEST_MATCH_SEED": "79"}) as proc:
        yield proc


@pytest.mark.parametrize("mingwei", [False, True])
def test_r5_r9_3_a_wei_reaches_the_other_seats_face_up_only_with_mingwei(
    wei_deal: ServerProcess, mingwei: bool
) -> None:
    """R5: a 偎 is face down to the other seats — the server sends its kind and no cards — unless the room chose
    明偎 (R9.3): then every seat's frames carry its cards. Every game/update frame of the hand in play is looked at."""
    players, _ = _room(wei_deal, {"preset": "liuhuqiang", "hands": 1, "mingwei": mingwei}, 4)
    _deal(players)
    overs = in_parallel([lambda p=p: play_seat(p, until="hand_over", choose=first_claim, timeout=60) for p in players])
    # 21 胡息: 囤 1 + ⌊(21 − 6)/3⌋ = 6, no 醒 here; 一点红 × 3; 自摸 × 2: 36 from each of the others
    assert overs[0]["outcome"]["winner"] == 3 and overs[0]["deltas"] == [-36, -36, -36, 108]
    seen = []
    for p in players:
        me = next(f["seat"] for f in p.frames if f["type"] == "game")
        for frame in p.frames:
            if frame["type"] not in ("game", "update") or frame["view"]["phase"] == "over":
                continue  # once the hand is over every table is shown (R5)
            for seat, table in enumerate(frame["view"]["tables"]):
                seen += [(me, seat, g["cards"]) for g in table if g["kind"] == "wei" and seat != me]
    assert seen and {me for me, _, _ in seen} == {0, 1, 2}
    want = ["x9", "x9", "x9"] if mingwei else None
    assert all(seat == 3 and cards == want for _, seat, cards in seen), [x for x in seen if x[1:] != (3, want)]
    for p in players:
        p.close()
