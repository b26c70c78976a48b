"""R4.1: the opening — dealt 提 go to the table, 天胡 checks (see rules/test_r6_4_tianhu_play), the first discard."""

from __future__ import annotations

from paohuzi.cards import parse_cards

from .helpers import BASE, QUIET, brief, deal, legal, swap

ONE_TI = {
    0: swap(BASE[0], "x2", "d2"),
    1: "x5 x5 x5 x7 x7 x7 d1 d1 d1 x2 x2 x2 x2 d7 d9 d10 x9 x4 x1 x8",
    2: swap(BASE[2], "x2", "d2"),
}
DEALER_TWO_TI = {
    0: "x1 x1 x1 x1 x3 x3 x3 x3 d9 d9 d9 d10 d10 d10 x2 x7 x8 x10 x10 d1",
    1: swap(BASE[1], "x1", "d8"),
    2: swap(BASE[2], "x3", "x4"),
}


def test_r4_1_1_four_of_a_kind_dealt_goes_to_the_table_as_ti() -> None:
    hand = deal(ONE_TI, stock=QUIET + "d2 x4 x6")
    assert brief(hand.events) == ["deal dealer 0 liangzhang x8", "ti 1 x2 dealt"]
    assert [str(g) for g in hand.table_of(1)] == ["ti:x2 x2 x2 x2"]
    assert len(hand.hand_of(1)) == 16
    # 提 shows one card: everyone sees it (R5).
    assert hand.observation(0).to_dict()["tables"][1] == [{"kind": "ti", "cards": ["x2"] * 4, "huxi": 9}]
    assert hand.observation(0).to_dict()["hand_counts"] == [21, 16, 20]


def test_r4_1_3_the_dealer_discards_first_never_a_kan_card() -> None:
    hand = deal(ONE_TI, stock=QUIET + "d2 x4 x6")
    assert hand.deciding == (0,) and hand.phase == "discard"
    # x1, x3, d9 and d10 are 坎 (R3): never offered.
    assert legal(hand, 0) == [
        "discard x4",
        "discard x7",
        "discard x8",
        "discard x10",
        "discard d1",
        "discard d2",
        "discard d8",
    ]
    assert legal(hand, 1) == [] and legal(hand, 2) == []


def test_r4_1_3_a_dealer_dealt_two_ti_owes_no_discard_and_the_xiajia_draws() -> None:
    hand = deal(DEALER_TWO_TI, stock=QUIET + "x2 x6")
    assert brief(hand.events)[:6] == [
        "deal dealer 0 liangzhang x8",
        "ti 0 x1 dealt",
        "ti 0 x3 dealt",
        "draw 1 d3",
        "show 1 d3",
        "unclaimed 1 d3",
    ]
    # 13 in hand + 8 on the table = 21 = 20 + (2 − 1): no discard (R4.6).
    assert len(hand.hand_of(0)) == 13
    assert not any(e.type == "discard" for e in hand.events)


def test_r4_1_the_liangzhang_can_complete_a_dealt_ti() -> None:
    # The dealer holds three x8 and the 亮张 is the fourth: a 提 like any other.
    dealer = swap(BASE[0], "x2 d10", "x8 x8")
    hand = deal({0: dealer, 1: swap(BASE[1], "x8", "d10"), 2: swap(BASE[2], "x8", "x2")}, liang="x8")
    assert brief(hand.events) == ["deal dealer 0 liangzhang x8", "ti 0 x8 dealt"]
    assert parse_cards("x8")[0] not in hand.hand_of(0)


def test_r4_1_2_tianhu_is_checked_after_the_opening_ti_and_before_any_play() -> None:
    three_ti = "x1 x1 x1 x1 x2 x2 x2 x2 x3 x3 x3 x3 d4 d5 d6 x8 x9 x10 d1 d2"
    dealer = "x5 x5 x6 x7 x9 d3 d9 d9 d9 d10 d10 d10 d5 x7 x4 x8 d1 x10 x10 d8"
    hand = deal({0: dealer, 2: three_ti})
    text = brief(hand.events)
    assert text[:4] == ["deal dealer 0 liangzhang x8", "ti 2 x1 dealt", "ti 2 x2 dealt", "ti 2 x3 dealt"]
    assert text[4].startswith("hu 2 None dealt") and hand.over
    assert not any(t.startswith(("discard", "draw")) for t in text)
