"""R6.4: 天胡 — dealt (3 提 or 5 kinds held 3–4 times; wins at once, dealer first, then the 下家) and, with
``tianhu_on_liangzhang``, on the 亮张 (offered, optional, the dealer first)."""

from __future__ import annotations

from ..engine.helpers import BASE, HUNAN, brief, deal, legal, play

THREE_TI = "x1 x1 x1 x1 x2 x2 x2 x2 x3 x3 x3 x3 d4 d5 d6 x8 x9 x10 d1 d2"
FIVE_KAN = "x4 x4 x4 x6 x6 x6 d4 d4 d4 d6 d6 d6 d7 d7 d7 d1 d2 d3 d5 x8"
NO_TIANHU_DEALER = "x5 x5 x6 x7 x9 d3 d9 d9 d9 d10 d10 d10 d5 x7 x4 x8 d1 x10 x10 d8"
# The dealer's 21 cards with the 亮张 x10 are complete: seven 句, 18 胡息.
LIANG_DEALER = "x1 x2 x3 d1 d2 d3 x2 x7 x10 d2 d7 d10 x4 x5 x6 d4 d5 d6 x8 x9"
PAIRS_1 = "x1 x1 x3 x3 x5 x5 x7 x7 x9 x9 d1 d1 d3 d3 d5 d5 d7 d7 d9 d9"
PAIRS_2 = "x2 x2 x4 x4 x6 x6 x8 x8 x10 d2 d4 d4 d6 d6 d8 d8 d10 d10 x1 d9"
# Seat 1's 20 cards with the 亮张 x10 (as another's card) are complete: 18 胡息.
LIANG_SEAT1 = "x1 x2 x3 d1 d2 d3 d2 d7 d10 x4 x5 x6 d4 d5 d6 d8 d9 d10 x2 x7"
OTHER_2 = "x3 x3 x5 x5 x6 x8 x8 x9 x9 d3 d3 d5 d6 d7 d7 d8 d8 d9 d9 x1"


def test_r6_4_three_ti_win_at_once() -> None:
    hand = deal({0: NO_TIANHU_DEALER, 2: THREE_TI})
    assert brief(hand.events) == [
        "deal dealer 0 liangzhang x8",
        "ti 2 x1 dealt",
        "ti 2 x2 dealt",
        "ti 2 x3 dealt",
        "hu 2 None dealt 27胡息 15分",  # 3 × 9 胡息 doubled (qq): (54 − 12) // 3 + 1 (自摸) = 15, 平胡
        "settlement -45 -45 90",
    ]
    outcome = hand.outcome
    assert outcome is not None and outcome.tianhu and outcome.zimo and outcome.source == "dealt"
    assert [str(c) for c in outcome.arrangement.loose] == "x8 x9 x10 d1 d2 d4 d5 d6".split()  # type: ignore[union-attr]
    assert hand.deciding == () and hand.over


def test_r6_4_five_kinds_held_three_times_win_at_once() -> None:
    hand = deal({0: NO_TIANHU_DEALER, 1: FIVE_KAN}, rules=HUNAN)
    text = brief(hand.events)
    assert text[0] == "deal dealer 0 liangzhang x8" and text[-2].startswith("hu 1 None dealt")
    assert not any(t.startswith(("draw", "discard")) for t in text)
    assert hand.outcome is not None and hand.outcome.winner == 1 and hand.outcome.source == "dealt"
    kans = [str(g) for g in hand.outcome.arrangement.groups if g.kind.value == "kan"]  # type: ignore[union-attr]
    assert kans == ["kan:x4 x4 x4", "kan:x6 x6 x6", "kan:d4 d4 d4", "kan:d6 d6 d6", "kan:d7 d7 d7"]


def test_r6_4_when_several_qualify_the_dealer_wins_then_the_xiajia() -> None:
    dealer_too = "x9 x9 x9 x10 x10 x10 d9 d9 d9 d10 d10 d10 x5 x5 x5 x7 x8 d8 x4 d5"
    both = deal({0: dealer_too, 1: FIVE_KAN, 2: THREE_TI}, liang="d2")
    assert both.outcome is not None and both.outcome.winner == 0
    not_dealer = deal({0: NO_TIANHU_DEALER, 1: FIVE_KAN, 2: THREE_TI})
    assert not_dealer.outcome is not None and not_dealer.outcome.winner == 1


def test_r6_4_liangzhang_tianhu_is_offered_to_the_dealer() -> None:
    hand = deal({0: LIANG_DEALER, 1: PAIRS_1, 2: PAIRS_2}, liang="x10")
    assert hand.phase == "liangzhang" and hand.deciding == (0,)
    assert legal(hand, 0) == ["hu", "pass"]
    declined = hand.copy()
    assert play(hand, "0: hu") == ["hu 0 x10 liangzhang 18胡息 9分", "settlement 54 -27 -27"]
    assert hand.outcome is not None and hand.outcome.tianhu
    # Optional: after a pass the dealer discards as usual.
    assert play(declined, "0: pass") == ["pass 0"]
    assert declined.phase == "discard" and declined.deciding == (0,)


def test_r6_4_liangzhang_tianhu_for_a_non_dealer_and_the_dealer_first() -> None:
    hand = deal({0: LIANG_DEALER, 1: LIANG_SEAT1, 2: OTHER_2}, liang="x10")
    assert hand.deciding == (0, 1)
    second = hand.copy()
    assert play(hand, "1: hu") == []  # waits for the dealer
    assert play(hand, "0: pass") == ["pass 0", "hu 1 x10 liangzhang 18胡息 9分", "settlement -27 54 -27"]
    assert play(second, "0: hu")[0] == "hu 0 x10 liangzhang 18胡息 9分"


def test_r6_4_liangzhang_tianhu_is_an_option() -> None:
    hand = deal({0: LIANG_DEALER, 1: PAIRS_1, 2: PAIRS_2}, liang="x10", rules=HUNAN)
    assert hand.phase == "discard" and "hu" not in legal(hand, 0)
    assert BASE
