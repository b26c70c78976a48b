"""R4.3: claims on a shown card — 胡 (any player, 自摸, 胡过张), forced 跑 (坎, 偎, 碰), 碰, 吃."""

from __future__ import annotations

from .helpers import BASE, W_HANDS, brief, deal, legal, play, swap

WEI_SEAT1 = {1: swap(BASE[1], "x4 x8", "d4 d4")}


def test_r4_3_the_drawer_may_hu_its_own_draw() -> None:
    hand = deal(W_HANDS, stock="x10")
    assert play(hand, "0: discard x2") == ["discard 0 x2", "unclaimed 0 x2", "draw 1 x10", "show 1 x10"]
    assert hand.deciding == (0, 1, 2) and hand.phase == "claim"
    assert legal(hand, 0) == ["peng", "pass"]
    assert legal(hand, 1) == ["hu", "chi x8 x9", "pass"]
    assert legal(hand, 2) == ["chi x10 d10", "pass"]
    # The drawer's 胡 comes first: nobody else needs to answer.
    assert play(hand, "1: hu") == ["hu 1 x10 self 21胡息 4分", "settlement -12 24 -12"]
    assert hand.outcome is not None and hand.outcome.zimo and hand.outcome.winner == 1


def test_r4_3_any_player_may_hu_anothers_drawn_card() -> None:
    hand = deal(W_HANDS, stock="d3 x10")
    assert play(hand, "0: discard x2", "1: pass")[-2:] == ["draw 2 x10", "show 2 x10"]
    assert legal(hand, 1) == ["hu", "pass"]
    assert play(hand, "0: pass", "2: pass") == ["pass 0", "pass 2"]  # still waiting for the 胡
    assert hand.deciding == (1,)
    assert play(hand, "1: hu") == ["hu 1 x10 other 21胡息 3分", "settlement -9 18 -9"]
    assert hand.outcome is not None and not hand.outcome.zimo


def test_r4_3_a_player_who_could_peng_may_hu_instead() -> None:
    # 胡过张: seat 1 holds x10 x10 and wins with the third as 碰 (4 坎 + 一二三 + 肆伍陆 + 碰: 22 胡息).
    ready = "x5 x5 x5 x7 x7 x7 d1 d1 d1 d2 d2 d2 x1 x2 x3 d4 d5 d6 x10 x10"
    hand = deal({0: swap(BASE[0], "x10 x10", "x9 x4"), 1: ready, 2: W_HANDS[2]}, stock="d3 x10")
    assert play(hand, "0: discard x2", "1: pass")[-2:] == ["draw 2 x10", "show 2 x10"]
    assert legal(hand, 1) == ["hu", "peng", "pass"]
    # 22 胡息: base 3; ten red cards make 假点胡 (番 3, table A).
    assert play(hand, "1: hu")[0] == "hu 1 x10 other 22胡息 9分"
    assert "peng:x10 x10 x10" in [str(g) for g in hand.outcome.arrangement.groups]  # type: ignore[union-attr]


def test_r4_3_pao_is_forced_for_a_kan_holder() -> None:
    hand = deal(stock="x6")
    assert play(hand, "0: discard x2") == [
        "discard 0 x2",
        "unclaimed 0 x2",
        "draw 1 x6",
        "show 1 x6",
        "pao 2 x6 kan from 1",
    ]
    assert [str(g) for g in hand.table_of(2)] == ["pao:x6 x6 x6 x6"]
    assert hand.deciding == (2,) and hand.phase == "discard"  # the first 跑 is a 进牌 (R4.6)


def test_r4_3_pao_is_forced_for_a_wei_on_the_table() -> None:
    hand = deal(WEI_SEAT1, stock="d4 d3 d4")
    play(hand, "0: discard x2", "1: discard x2")
    assert play(hand, "2: pass")[-6:] == [
        "draw 2 d3",
        "show 2 d3",
        "unclaimed 2 d3",
        "draw 0 d4",
        "show 0 d4",
        "pao 1 d4 wei from 0",
    ]
    assert [str(g) for g in hand.table_of(1)] == ["pao:d4 d4 d4 d4"]


def test_r4_3_pao_from_a_peng_with_a_drawn_card_even_the_owners_own() -> None:
    own = deal(WEI_SEAT1, stock="d3 d4 d5 d6 d4")
    play(own, "0: discard x2")
    assert play(own, "1: peng") == ["peng 1 d4 from 2"]
    assert play(own, "1: discard x2") == ["discard 1 x2"]
    events = play(own, "2: pass")
    assert events[-3:] == ["draw 1 d4", "show 1 d4", "pao 1 d4 peng from 1"]
    assert [str(g) for g in own.table_of(1)] == ["pao:d4 d4 d4 d4"]

    other = deal(WEI_SEAT1, stock="d3 d4 d5 d4")
    play(other, "0: discard x2", "1: peng", "1: discard x2")
    assert play(other, "2: pass")[-3:] == ["draw 0 d4", "show 0 d4", "pao 1 d4 peng from 0"]


def test_r4_3_peng_is_optional() -> None:
    hand = deal(WEI_SEAT1, stock="d3 d4")
    play(hand, "0: discard x2")
    assert legal(hand, 1) == ["peng", "pass"]
    taken = hand.copy()
    assert play(taken, "1: peng") == ["peng 1 d4 from 2"]
    assert [str(g) for g in taken.table_of(1)] == ["peng:d4 d4 d4"]
    assert taken.deciding == (1,) and taken.phase == "discard"
    assert play(hand, "1: pass")[:3] == ["pass 1", "chou 1 d4 peng renpeng", "unclaimed 2 d4"]


def test_r4_3_the_drawer_and_its_xiajia_may_chi() -> None:
    hand = deal(W_HANDS, stock="x10")
    play(hand, "0: discard x2")
    assert "chi x8 x9" in legal(hand, 1)  # the drawer, on its own card
    assert "chi x10 d10" in legal(hand, 2)  # its 下家 (绞 x10 x10 d10)
    assert not any(a.startswith("chi") for a in legal(hand, 0))  # the drawer's 上家 may not


def test_r4_3_kan_cards_are_never_used_to_chi() -> None:
    hand = deal()
    events = play(hand, "0: discard x4")
    # Seat 0 draws d3 and seat 1 (its 下家) holds d1 d1 d1 and d2 d2 d2: 坎, so it is not asked.
    i = events.index("draw 0 d3")
    assert events[i : i + 3] == ["draw 0 d3", "show 0 d3", "unclaimed 0 d3"]
    assert brief(hand.events)[-1].startswith(("show", "unclaimed", "draw", "pao", "peng", "chi"))
