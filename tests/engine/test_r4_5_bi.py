"""R4.5: 比 — every copy of the eaten kind left in hand must be laid down in 句/绞 with the 吃."""

from __future__ import annotations

from .helpers import BASE, deal, legal, play, swap

DISCARD_D4 = swap(BASE[0], "x4", "d4")


def test_r4_5_one_copy_left_must_be_bi() -> None:
    hand = deal({0: DISCARD_D4, 1: "x5 x5 x5 x7 x7 x7 d1 d1 d1 d2 d2 d2 d4 d5 d6 x4 x4 x1 x9 x10"})
    assert play(hand, "0: discard d4") == ["discard 0 d4"]
    # With d5 d6 the d4 left in hand must go with x4 x4; with x4 x4 it goes with d5 d6; x4 d4 leaves none.
    assert legal(hand, 1) == ["chi x4 x4 | bi d4 d5 d6", "chi x4 d4", "chi d5 d6 | bi x4 x4 d4", "pass"]
    assert play(hand, "1: chi d5 d6 | bi x4 x4 d4") == ["chi 1 d4 from 0 as d4 d5 d6 bi x4 x4 d4"]
    assert [str(g) for g in hand.table_of(1)] == ["ju:d4 d5 d6", "jiao:x4 x4 d4"]
    assert "d4" not in [str(c) for c in hand.hand_of(1)]


def test_r4_5_no_chi_when_bi_is_impossible() -> None:
    hand = deal({0: DISCARD_D4, 1: "x5 x5 x5 x7 x7 x7 d1 d1 d1 d2 d2 d2 d4 d5 d6 x1 x2 x8 x9 x10"})
    # d5 d6 could eat d4, but the d4 in hand could not be laid down: no 吃 (no 烧比).
    assert play(hand, "0: discard d4")[:3] == ["discard 0 d4", "unclaimed 0 d4", "draw 1 d3"]


def test_r4_5_two_copies_in_one_jiao_or_two_groups() -> None:
    seat1 = "x5 x5 x5 x7 x7 x7 x9 x9 x9 x2 x2 d3 d4 d4 d5 d5 d6 x4 x4 x10"
    seat0 = "x1 x1 x1 x3 x3 x3 d9 d9 d9 d10 d10 d10 d4 x6 x8 d1 d8 d7 x10 d2"
    hand = deal({0: seat0, 1: seat1}, stock="d3 d6 x2")
    play(hand, "0: discard d4")
    assert legal(hand, 1) == [
        "peng",
        "chi x4 x4 | bi d3 d4 d5 | bi d4 d5 d6",
        "chi x4 d4 | bi d3 d4 d5",
        "chi x4 d4 | bi d4 d5 d6",
        "chi d3 d5 | bi x4 x4 d4 | bi d4 d5 d6",
        "chi d3 d5 | bi x4 d4 d4",
        "chi d5 d6 | bi x4 x4 d4 | bi d3 d4 d5",
        "chi d5 d6 | bi x4 d4 d4",
        "pass",
    ]
    # R4.7: answering one's own 碰 with 吃 declines the 碰 (忍碰; qq: chou_blocks_peng).
    assert play(hand, "1: chi d3 d5 | bi x4 d4 d4") == [
        "chou 1 d4 peng renpeng",
        "chi 1 d4 from 0 as d3 d4 d5 bi x4 d4 d4",
    ]
    assert [str(g) for g in hand.table_of(1)] == ["ju:d3 d4 d5", "jiao:x4 d4 d4"]
