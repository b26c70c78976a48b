"""R4.2: a turn — draw, forced 提/偎/臭偎, 胡 after a forced move, showing, discards, 荒庄."""

from __future__ import annotations

from .helpers import BASE, QQ, W_HANDS, brief, deal, legal, play, quiet_draws, swap

WEI_SEAT1 = {1: swap(BASE[1], "x4 x8", "d4 d4")}


def test_r4_2_a_drawn_card_nobody_takes_goes_to_the_drawers_row() -> None:
    hand = deal()
    events = play(hand, "0: discard x4")
    assert events[:8] == ["discard 0 x4", "unclaimed 0 x4", *quiet_draws(1, 2)]
    obs = hand.observation(2).to_dict()
    assert obs["rows"][0][:2] == [{"card": "x4", "discarded": True}, {"card": "d5", "discarded": False}]
    assert obs["rows"][1][:2] == [{"card": "d3", "discarded": False}, {"card": "d6", "discarded": False}]
    # The drawer does not discard when its card is not taken.
    assert [e for e in events if e.startswith("discard")] == ["discard 0 x4"]


def test_r4_2_1_a_drawn_card_matching_a_kan_is_a_forced_ti() -> None:
    hand = deal({2: swap(BASE[2], "x5", "x4")}, stock="x5")
    assert play(hand, "0: discard x2") == ["discard 0 x2", "unclaimed 0 x2", "draw 1 x5", "ti 1 x5 kan"]
    assert [str(g) for g in hand.table_of(1)] == ["ti:x5 x5 x5 x5"]
    # The first 提 is a 进牌: a discard is owed (R4.6), never of a 坎 card.
    assert hand.deciding == (1,) and hand.phase == "discard"
    assert legal(hand, 1) == [
        "discard x1",
        "discard x2",
        "discard x4",
        "discard x8",
        "discard x9",
        "discard d7",
        "discard d9",
        "discard d10",
    ]


def test_r4_2_2_a_drawn_card_matching_a_pair_is_a_forced_wei_then_a_ti_from_the_wei() -> None:
    hand = deal(WEI_SEAT1, stock="d4 d3 d5 d4")
    assert play(hand, "0: discard x2") == ["discard 0 x2", "unclaimed 0 x2", "draw 1 d4", "wei 1 d4"]
    assert [str(g) for g in hand.table_of(1)] == ["wei:d4 d4 d4"]
    assert legal(hand, 1) == ["discard x1", "discard x2", "discard x9", "discard d7", "discard d9", "discard d10"]
    # Seat 2 could eat x2 with x2 d2 and declines: 臭 for seat 2 (R4.7).
    assert play(hand, "1: discard x2") == ["discard 1 x2"]
    assert legal(hand, 2) == ["chi x2 d2", "pass"]
    assert play(hand, "2: pass") == [
        "pass 2",
        "chou 2 x2 chi peng",
        "unclaimed 1 x2",
        "draw 2 d3",
        "show 2 d3",
        "unclaimed 2 d3",
        "draw 0 d5",
        "show 0 d5",
        "unclaimed 0 d5",
        "draw 1 d4",
        "ti 1 d4 wei",
    ]
    assert [str(g) for g in hand.table_of(1)] == ["ti:d4 d4 d4 d4"]
    assert hand.deciding == (1,)


def test_r4_2_2_wei_after_renpeng_is_a_chouwei() -> None:
    hand = deal(WEI_SEAT1, stock="d3 d4 d5 d4")
    assert play(hand, "0: discard x2")[-2:] == ["draw 2 d4", "show 2 d4"]
    assert legal(hand, 1) == ["peng", "pass"]
    assert play(hand, "1: pass") == [
        "pass 1",
        "chou 1 d4 peng renpeng",  # 忍碰; with chou_blocks_peng (qq) it may not be 碰'd later either
        "unclaimed 2 d4",
        "draw 0 d5",
        "show 0 d5",
        "unclaimed 0 d5",
        "draw 1 d4",
        "wei 1 d4 chou",
    ]
    assert [str(g) for g in hand.table_of(1)] == ["chouwei:d4 d4 d4"]
    # A 臭偎 shows one card: everyone knows its kind (R5).
    assert hand.observation(0).to_dict()["tables"][1] == [{"kind": "chouwei", "cards": ["d4", "d4", "d4"], "huxi": 6}]


def test_r4_2_3_after_a_forced_wei_the_drawer_may_hu() -> None:
    ready = "x5 x5 x5 x7 x7 x7 d1 d1 d1 d2 d2 d2 x1 x2 x3 x8 x9 x10 d4 d4"
    hands = {0: BASE[0], 1: ready, 2: swap(W_HANDS[2], "x10", "x4")}
    hand = deal(hands, stock="d4")
    assert play(hand, "0: discard x2") == ["discard 0 x2", "unclaimed 0 x2", "draw 1 d4", "wei 1 d4"]
    assert hand.phase == "self_hu"
    # Complete as the cards now stand; a discard is owed, so 胡 or a discard (no pass).
    assert legal(hand, 1) == [
        "hu",
        "discard x1",
        "discard x2",
        "discard x3",
        "discard x8",
        "discard x9",
        "discard x10",
    ]
    declined = hand.copy()
    assert play(hand, "1: hu") == ["hu 1 d4 forced 27胡息 6分", "settlement -18 36 -18"]
    outcome = hand.outcome
    assert outcome is not None and outcome.zimo and outcome.source == "forced" and str(outcome.card) == "d4"
    assert [str(g) for g in outcome.arrangement.groups] == [  # type: ignore[union-attr]
        "wei:d4 d4 d4",
        "kan:x5 x5 x5",
        "kan:x7 x7 x7",
        "kan:d1 d1 d1",
        "kan:d2 d2 d2",
        "ju:x1 x2 x3",
        "ju:x8 x9 x10",
    ]
    # Declining is allowed: the seat discards instead (R4.4 decision).
    assert play(declined, "1: discard x10")[0] == "discard 1 x10"


def test_r4_2_a_discard_cannot_be_won() -> None:
    hand = deal(W_HANDS)
    assert play(hand, "0: discard x10") == ["discard 0 x10"]
    # Seat 1 is complete with x10 but may only eat it (R4.2: nobody may 胡 a discard).
    assert legal(hand, 1) == ["chi x8 x9", "pass"]
    on = deal(W_HANDS, rules=QQ.with_options(win_on_discard=True))
    play(on, "0: discard x10")
    assert legal(on, 1) == ["hu", "chi x8 x9", "pass"]
    assert play(on, "1: hu")[0] == "hu 1 x10 discard 21胡息 3分"


def test_r4_2_a_peng_cannot_become_pao_with_a_discard() -> None:
    hand = deal(W_HANDS, stock="d3 x10")
    play(hand, "0: discard x2", "1: pass", "1: pass", "2: pass", "0: peng")
    assert [str(g) for g in hand.table_of(0)] == ["peng:x10 x10 x10"]
    # Seat 0 discards d8: seat 2 跑s it (a 坎), owes a discard and throws the fourth x10.
    assert play(hand, "0: discard d8") == ["discard 0 d8", "pao 2 d8 kan from 0"]
    events = play(hand, "2: discard x10")
    assert events[:2] == ["discard 2 x10", "unclaimed 2 x10"]  # no 跑 for seat 0's 碰
    assert [str(g) for g in hand.table_of(0)] == ["peng:x10 x10 x10"]


def test_r4_2_only_the_discarders_xiajia_may_chi_a_discard() -> None:
    hand = deal()
    # Seat 2 holds x2 x3 x5 and could make a 句 with x4, but it is the discarder's 上家.
    assert {"x2", "x3", "x5"} <= {str(c) for c in hand.hand_of(2)}
    events = play(hand, "0: discard x4")
    assert events[:3] == ["discard 0 x4", "unclaimed 0 x4", "draw 1 d3"]


def test_r4_2_the_hand_is_drawn_when_the_stock_runs_out() -> None:
    hand = deal()
    play(hand, "0: discard x4")
    while not hand.over:
        seat = hand.deciding[0]
        acts = legal(hand, seat)
        hand.apply(seat, "pass" if "pass" in acts else acts[0])
    assert hand.stock_left == 0
    assert brief(hand.events)[-2:] == ["draw_game", "settlement 0 0 0"]
    outcome = hand.outcome
    assert outcome is not None and outcome.kind == "draw" and outcome.winner is None and outcome.payments == (0, 0, 0)
    assert hand.deciding == () and hand.phase == "over"
