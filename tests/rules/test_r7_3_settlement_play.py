"""R7.3: settlement — losers pay points × stake, zero-sum; 荒庄 pays nothing; 逃跑; 双倍卡; the seat out of a
four-player hand pays nothing."""

from __future__ import annotations

import pytest

from paohuzi.engine import Hand, IllegalActionError
from paohuzi.rules import find_preset

from ..engine.helpers import HUNAN, W_HANDS, brief, deal, play


def test_r7_3_each_loser_pays_points_times_stake() -> None:
    qq = deal(W_HANDS, stock="x10")
    play(qq, "0: discard x2", "1: hu")
    assert qq.outcome is not None and qq.outcome.points == 4 and qq.outcome.payments == (-12, 24, -12)  # d = 3
    hengyang = deal(W_HANDS, stock="x10", rules=find_preset("hengyang"))
    play(hengyang, "0: discard x2", "1: hu")
    assert hengyang.outcome is not None and hengyang.outcome.payments == (-4, 8, -4)  # d = 1


def test_r7_3_double_card_a_losing_holder_loses_no_more() -> None:
    """R7.3 双倍积分卡: only the holder's own gain doubles; a loss is not doubled."""
    hand = deal(W_HANDS, stock="x10", double_cards={2})
    play(hand, "0: discard x2", "1: hu")
    assert hand.outcome is not None and hand.outcome.payments == (-12, 24, -12)
    assert hand.record()["double_cards"] == [2]


def test_r7_3_double_card_doubles_the_winning_holders_gain_only() -> None:
    """R7.3 双倍积分卡: the winner's gain doubles, the losers pay as usual, so the hand is not zero-sum."""
    hand = deal(W_HANDS, stock="x10", double_cards={1, 2})
    play(hand, "0: discard x2", "1: hu")
    assert hand.outcome is not None and hand.outcome.payments == (-12, 48, -12)
    assert sum(hand.outcome.payments) == 24


def test_r7_3_escape_the_leaver_pays_the_others() -> None:
    hand = deal()
    # H = seat 0: 坎 x1 x3 d9 d10 (18) + 二七十 (3) = 21; seat 2: 坎 x6 x9 d7 d8 (18) → 39.
    # (max(0, (39 − 12) // 3) + 8) × 3 = 51, shared 26 / 25 (the odd point to the one with more 胡息).
    assert brief(hand.leave(1)) == ["escape 1 H=39", "settlement 26 -51 25"]
    outcome = hand.outcome
    assert outcome is not None and outcome.kind == "escape" and outcome.leaver == 1 and outcome.winner is None
    assert hand.over and hand.deciding == ()
    with pytest.raises(IllegalActionError, match="the hand is over"):
        hand.leave(0)
    assert hand.record()["actions"] == [[1, "leave"]]


def test_r7_3_four_players_the_seat_out_pays_nothing() -> None:
    hand = Hand(HUNAN.with_options(four_players=True), seed=3, dealer=0)
    assert hand.sitting_out == 2
    with pytest.raises(IllegalActionError, match="does not play this hand"):
        hand.leave(2)
    hand.leave(1)
    outcome = hand.outcome
    assert outcome is not None and outcome.payments[2] == 0 and outcome.payments[1] < 0 and sum(outcome.payments) == 0


def test_r7_3_a_drawn_hand_pays_nothing() -> None:
    hand = deal()
    play(hand, "0: discard x4")
    while not hand.over:
        seat = hand.deciding[0]
        acts = [str(a) for a in hand.legal_actions(seat)]
        hand.apply(seat, "pass" if "pass" in acts else acts[0])
    assert hand.outcome is not None and hand.outcome.kind == "draw" and hand.outcome.payments == (0, 0, 0)
