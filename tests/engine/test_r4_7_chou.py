"""R4.7: 臭牌 and 过张 — never 吃 a kind one discarded, a declined 吃 is 臭, ``chou_blocks_peng``, lost
claims are not 臭, an own draw nobody took is not "discarded", and 臭 kinds can still be 偎'd and won."""

from __future__ import annotations

import pytest

from paohuzi.engine import IllegalActionError

from .helpers import BASE, HUNAN, W_HANDS, deal, legal, play, swap

WEI_SEAT1 = {1: swap(BASE[1], "x4 x8", "d4 d4")}


def test_r4_7_never_chi_a_kind_one_has_discarded() -> None:
    dealer = "x1 x1 x1 x3 x3 x3 d9 d9 d9 d10 d10 d10 x4 x5 x6 x8 d1 d8 x10 x10"
    hand = deal({0: dealer}, stock="d3 d4 x4")
    events = play(hand, "0: discard x4")
    # Seat 0 draws x4 back and holds x5 x6, but it discarded x4: no 吃 (not even its own draw).
    i = events.index("draw 0 x4")
    assert events[i : i + 3] == ["draw 0 x4", "show 0 x4", "unclaimed 0 x4"]
    assert {"x5", "x6"} <= {str(c) for c in hand.hand_of(0)}
    assert hand.observation(0).to_dict()["chou"]["chi"] == ["x4"]


def test_r4_7_a_declined_chi_makes_the_kind_chou() -> None:
    hand = deal({0: swap(BASE[0], "x10", "x4"), 1: W_HANDS[1], 2: W_HANDS[2]}, stock="x10 d3 d4 x10")
    play(hand, "0: discard x2")
    assert legal(hand, 1) == ["hu", "chi x8 x9", "pass"]
    assert play(hand, "1: pass", "2: pass")[:4] == ["pass 1", "pass 2", "chou 1 x10 chi peng", "chou 2 x10 chi peng"]
    assert hand.observation(1).to_dict()["chou"] == {"chi": ["x10"], "peng": ["x10"], "renpeng": []}
    assert play(hand, "0: pass")[-2:] == ["draw 1 x10", "show 1 x10"]
    # 胡臭牌: a 臭 kind can still be won; it can no longer be eaten.
    assert legal(hand, 1) == ["hu", "pass"]
    with pytest.raises(IllegalActionError, match=r"x10 is 臭 for seat 1: it declined to 吃 it before \(R4.7\)"):
        hand.apply(1, "chi x8 x9")
    assert play(hand, "1: hu")[0] == "hu 1 x10 self 21胡息 4分"


def test_r4_7_chou_blocks_peng_qq_on_hunan_off() -> None:
    qq = deal(WEI_SEAT1, stock="d3 d4 d4")
    play(qq, "0: discard x2")
    events = play(qq, "1: pass")
    assert events[:6] == [
        "pass 1",
        "chou 1 d4 peng renpeng",
        "unclaimed 2 d4",
        "draw 0 d4",
        "show 0 d4",
        "unclaimed 0 d4",
    ]
    # The fourth d4 came from seat 0's draw: with chou_blocks_peng seat 1 may not 碰 it.
    assert qq.observation(1).to_dict()["chou"]["peng"] == ["d4"]

    hunan = deal(WEI_SEAT1, stock="d3 d4 d4", rules=HUNAN)
    play(hunan, "0: discard x2")
    assert play(hunan, "1: pass")[-5:] == ["pass 1", "chou 1 d4 renpeng", "unclaimed 2 d4", "draw 0 d4", "show 0 d4"]
    assert legal(hunan, 1) == ["peng", "pass"]


def test_r4_7_a_claim_lost_to_priority_is_not_chou() -> None:
    hand = deal(W_HANDS, stock="d3 x10")
    play(hand, "0: discard x2", "1: pass")
    events = play(hand, "2: chi x10 d10", "1: pass", "0: peng")
    assert events == ["pass 1", "peng 0 x10 from 2"]
    assert hand.observation(2).to_dict()["chou"] == {"chi": [], "peng": [], "renpeng": []}


def test_r4_7_an_own_draw_nobody_took_is_not_discarded() -> None:
    hand = deal()
    play(hand, "0: discard x4")
    for seat in (0, 1, 2):
        chou = hand.observation(seat).to_dict()["chou"]
        assert chou["chi"] == (["x4"] if seat == 0 else [])
    assert hand.referee_view()["chou"][1]["discarded"] == []


def test_r4_7_a_chou_kind_can_still_be_wei() -> None:
    hand = deal(WEI_SEAT1, stock="d3 d4 d5 d4")
    play(hand, "0: discard x2", "1: pass")
    assert "wei 1 d4 chou" in [str(e) for e in hand.events]
