"""R4.6: the discard count rule (八块/重跑, dealt 提), never a 坎 card, 吃/碰 that would leave no discard,
and 死手."""

from __future__ import annotations

import pytest

from paohuzi.engine import IllegalActionError

from .helpers import BASE, W_HANDS, brief, deal, legal, play, quiet_draws, swap

TWO_TI_SEAT1 = {1: "x5 x5 x5 x5 x7 x7 x7 x7 d1 d1 d1 d2 d2 d2 d4 d4 x1 x2 x9 d10"}
NO_DISCARD_LEFT = {
    0: "x1 x1 x1 x3 x3 x3 d9 d9 d9 d10 d10 d10 d4 x6 x8 d1 d8 d7 x10 d2",
    1: "x5 x5 x5 x7 x7 x7 x9 x9 x9 x2 x2 x2 d3 d4 d4 d5 d5 d6 x4 x4",
}
DEAD_SEAT1 = {
    0: NO_DISCARD_LEFT[0],
    1: "x5 x5 x5 x7 x7 x7 x9 x9 x9 x2 x2 d3 d4 d4 d5 d5 d6 x4 x4 x10",
}


def _total(hand, seat):  # type: ignore[no-untyped-def]
    return len(hand.hand_of(seat)) + sum(len(g.cards) for g in hand.table_of(seat))


def test_r4_6_a_take_is_followed_by_a_discard() -> None:
    hand = deal(W_HANDS, stock="d3 x10")
    play(hand, "0: discard x2", "1: pass", "1: pass", "2: pass", "0: peng")
    assert hand.phase == "discard" and hand.deciding == (0,)
    assert _total(hand, 0) == 21  # 20 + max(0, 0 − 1) + the card owed


def test_r4_6_the_second_pao_needs_no_discard_babkuai() -> None:
    hand = deal(stock="d3 x6")
    assert play(hand, "0: discard d8") == ["discard 0 d8", "pao 2 d8 kan from 0"]
    assert hand.deciding == (2,)  # first 跑: 21 > 20, discard
    events = play(hand, "2: discard x4")
    assert events[:9] == [
        "discard 2 x4",
        "unclaimed 2 x4",
        "draw 0 d3",
        "show 0 d3",
        "unclaimed 0 d3",
        "draw 1 x6",
        "show 1 x6",
        "pao 2 x6 kan from 1",
        "draw 0 d4",  # second 跑 (八块): 21 = 20 + (2 − 1), no discard; the 下家 of seat 2 draws
    ]
    assert _total(hand, 2) == 21


def test_r4_6_a_seat_dealt_two_ti_discards_after_neither_its_first_take() -> None:
    hand = deal(TWO_TI_SEAT1, stock="d3 d4")
    assert brief(hand.events) == ["deal dealer 0 liangzhang x8", "ti 1 x5 dealt", "ti 1 x7 dealt"]
    assert play(hand, "0: discard x4") == ["discard 0 x4"]
    assert legal(hand, 1) == ["chi d4 d4", "pass"] and legal(hand, 2) == ["peng", "pass"]
    events = play(hand, "1: chi d4 d4", "2: pass")
    assert events[:4] == ["pass 2", "chou 2 x4 peng renpeng", "chi 1 x4 from 0 as x4 d4 d4", "draw 2 d3"]
    assert _total(hand, 1) == 21  # 20 + max(0, 2 − 1): no discard after the first 进牌


def test_r4_6_a_kan_card_is_never_discarded() -> None:
    hand = deal()
    assert "discard x1" not in legal(hand, 0)
    with pytest.raises(IllegalActionError, match="x1 is part of a 坎, which may never be discarded"):
        hand.apply(0, "discard x1")


def test_r4_6_chi_or_peng_that_leaves_no_discard_is_not_offered() -> None:
    hand = deal(NO_DISCARD_LEFT)
    play(hand, "0: discard d4")
    # Every 吃 that lays down all eight loose cards (with two 比) would leave only 坎: not offered.
    assert legal(hand, 1) == [
        "peng",
        "chi x4 d4 | bi d3 d4 d5",
        "chi x4 d4 | bi d4 d5 d6",
        "chi d3 d5 | bi x4 d4 d4",
        "chi d5 d6 | bi x4 d4 d4",
        "pass",
    ]


def test_r4_6_a_forced_wei_leaving_only_kan_makes_the_seat_dead() -> None:
    hand = deal(DEAD_SEAT1, stock="d3 d6 x2")
    play(hand, "0: discard d4", "1: chi d5 d6 | bi x4 x4 d4 | bi d3 d4 d5", "1: discard x10", "2: pass", "0: pass")
    assert [str(c) for c in hand.hand_of(1)] == "x2 x2 x5 x5 x5 x7 x7 x7 x9 x9 x9".split()
    events = play(hand, "0: pass")
    # 偎 x2 leaves three 坎 (9 + 3 胡息 with the table: not complete) and a discard owed: 死手.
    assert events[:6] == ["pass 0", "chou 0 d6 chi peng", "unclaimed 0 d6", "draw 1 x2", "wei 1 x2", "dead 1"]
    assert hand.observation(2).to_dict()["dead"] == [1]
    # Dead: never asked again, but still draws and still makes its forced 跑.
    while not hand.over:
        assert 1 not in hand.deciding
        seat = hand.deciding[0]
        acts = legal(hand, seat)
        hand.apply(seat, "pass" if "pass" in acts else acts[0])
    text = brief(hand.events)
    assert "pao 1 x7 kan from 0" in text
    assert any(e.startswith("draw 1 ") for e in text[text.index("dead 1") :])


def test_r4_6_quiet_draws_need_no_discard() -> None:
    hand = deal()
    assert play(hand, "0: discard x4")[2:8] == quiet_draws(1, 2)
    assert [_total(hand, s) for s in (0, 1, 2)] == [20, 20, 20]
    assert BASE and swap  # helpers used by the other tests
