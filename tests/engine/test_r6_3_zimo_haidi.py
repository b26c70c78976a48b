"""R6.3: 自摸 (the winner's own draw, a forced 提/偎 completion included) and 海底 (the stock's last card)."""

from __future__ import annotations

from .helpers import BASE, W_HANDS, brief, deal, legal, play, swap


def test_r6_3_zimo_on_the_winners_own_draw() -> None:
    hand = deal(W_HANDS, stock="x10")
    play(hand, "0: discard x2", "1: hu")
    outcome = hand.outcome
    assert outcome is not None and outcome.zimo and outcome.source == "self" and not outcome.haidi
    assert outcome.score.base == 4  # (21 − 12) // 3 + 1 for 自摸 (R7.1)


def test_r6_3_not_zimo_on_anothers_draw() -> None:
    hand = deal(W_HANDS, stock="d3 x10")
    play(hand, "0: discard x2", "1: pass", "1: hu")
    outcome = hand.outcome
    assert outcome is not None and not outcome.zimo and outcome.source == "other" and outcome.score.base == 3


def test_r6_3_haidi_the_last_card_of_the_stock() -> None:
    stock = "d3 d4 d5 d6 d3 d4 d5 d6 d3 d4 d5 d6 d3 x2 x4 x10 x10 d7 x10"
    hand = deal({0: swap(BASE[0], "x10 x10", "x4 x6"), 1: W_HANDS[1], 2: W_HANDS[2]}, stock=stock)
    avoid = {"discard x5", "discard x7", "discard d1", "discard d2"}  # seat 1's 坎: keep it waiting
    while not hand.over:
        seat = hand.deciding[0]
        acts = legal(hand, seat)
        if "hu" in acts and hand.stock_left == 0:
            action = "hu"
        elif "pass" in acts:
            action = "pass"
        else:
            action = next(a for a in acts if a not in avoid)
        hand.apply(seat, action)
    assert brief(hand.events)[-4:] == [
        "draw 0 x10",
        "show 0 x10 last",
        "hu 1 x10 other 21胡息 6分",
        "settlement -18 36 -18",
    ]
    outcome = hand.outcome
    assert outcome is not None and outcome.haidi and not outcome.zimo
    assert [(n["name"], n["fan"]) for n in outcome.to_dict()["names"]] == [("平胡", 1), ("海底胡", 1)]
