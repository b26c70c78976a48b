"""欢乐豆 at the tables (issue 13 §2, R7.3) on a real server: tiers, the minimum to sit down, a hand moving
beans by points × the multiplier with its ledger rows, the relief refused to a player who is not broke."""

from __future__ import annotations

from ..support.clients import Client
from ..support.server import ServerProcess


def test_tiers_and_a_junior_hand_moves_beans_by_points_times_five(server: ServerProcess) -> None:
    tiers = server.api("GET", "/api/tiers")
    assert [(t["name"], t["multiplier"], t["minimum"]) for t in tiers["tiers"]] == [
        ("practice", 0, 0),
        ("novice", 1, 100),
        ("junior", 5, 1000),
        ("middle", 20, 5000),
        ("senior", 100, 20000),
    ]
    me = Client(server)
    assert me.player["beans"] == 1000
    err = me.api("POST", "/api/rooms/quick", {"tier": "middle"}, expect=409)["error"]
    assert err == {"code": "not_enough_beans", "message": "this table asks 5000 欢乐豆 to sit down; you hold 1000"}
    err = me.api("POST", "/api/rooms/quick", {"tier": "vip"}, expect=422)["error"]
    assert err["code"] == "invalid" and "tiers: practice, novice, junior, middle, senior" in err["message"]
    room = me.api("POST", "/api/rooms/quick", {"tier": "junior", "hands": 1}, expect=201)["room"]
    assert (room["options"]["tier"], room["options"]["multiplier"]) == ("junior", 5)
    me.connect()
    me.send({"type": "auto", "on": True})
    over = me.expect("hand_over", timeout=60)
    me.expect("match_over", timeout=60)
    me.close()
    stake = room["options"]["stake"]
    seat = 0
    pay = over["deltas"][seat]
    expected = -min(-pay * 5 // stake, 1000) if pay < 0 else None
    if expected is not None:
        assert over["beans"][seat] == expected
    elif pay > 0:  # the bots pay in full: points × 5 from each
        assert over["beans"][seat] == sum(-d * 5 // stake for d in over["deltas"] if d < 0)
    else:
        assert over["beans"] == [0, 0, 0]
    assert sum(over["beans"]) == 0
    profile = me.api("GET", "/api/me")["player"]
    assert profile["beans"] == 1000 + over["beans"][seat]
    ledger = me.api("GET", "/api/me/ledger")["entries"]
    beans_rows = [(e["reason"], e["amount"], e["balance_after"]) for e in ledger if e["currency"] == "beans"]
    expect = [("start", 1000, 1000)]
    if over["beans"][seat]:
        expect.insert(0, ("hand", over["beans"][seat], 1000 + over["beans"][seat]))
    assert beans_rows == expect
    points_rows = [(e["amount"], e["hand_id"]) for e in ledger if e["currency"] == "points"]
    assert points_rows == [(pay, over["hand"])]
    err = me.api("POST", "/api/me/relief", expect=409)["error"]
    assert err["code"] in ("not_broke", "relief_used") and (profile["beans"] >= 100) == (err["code"] == "not_broke")
    # nobody reads another player's ledger: the route is only ever one's own
    other = Client(server)
    assert [e["reason"] for e in other.api("GET", "/api/me/ledger")["entries"]] == ["start"]


def test_leaderboards_by_points_and_beans(server: ServerProcess) -> None:
    """R7.4 titles; all-time by balance, weekly by what hands gave (the ledger); bots have no account."""
    lb = server.api("GET", "/api/leaderboards/beans?period=all&limit=200")
    assert lb["board"] == "beans" and lb["period"] == "all"
    values = [p["value"] for p in lb["players"]]
    assert values == sorted(values, reverse=True) and [p["rank"] for p in lb["players"]] == list(
        range(1, len(values) + 1)
    )
    for p in lb["players"]:
        assert server.api("GET", f"/api/players/{p['id']}")["player"]["beans"] == p["value"]
    week = server.api("GET", "/api/leaderboards/points?period=week&limit=200")["players"]
    assert all(set(p) == {"rank", "id", "nickname", "title", "value"} for p in week)
    err = server.api("GET", "/api/leaderboards/karma", expect=422)["error"]
    assert err["code"] == "invalid"
