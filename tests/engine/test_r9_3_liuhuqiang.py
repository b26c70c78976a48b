"""R9.3 衡阳六胡抢 in play: the 15/14-card deal and its stock, four seats in turn order, 胡 priority over four
seats, 碰 against 吃, R4.6 with 14, no dealt 天胡 on 15 cards, 一五十 in 吃 and 比, 醒 (翻醒 at an empty stock
included), table G under both 囤 modes, the discarder's (players − 1) shares, 逃跑 with four players, matches and
records.

The scripted hands use the quiet deal of ``lhq.py`` (dealer 0, turn order 0 → 1 → 2 → 3).
"""

from __future__ import annotations

import json

import pytest

from paohuzi.engine import EngineError, Hand, Hidden, Match, MatchError, Observation, replay
from paohuzi.engine.match import replay_match

from .helpers import legal, play
from .lhq import LHQ, deal4, total

LHQ3 = LHQ.with_options(players=3)

# -- the deal (R9.3) --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "players", "stock"), [(LHQ, 4, 23), (LHQ3, 3, 37)])
def test_r9_3_deal_15_to_the_dealer_14_to_the_others_and_the_stock(rules, players, stock) -> None:  # type: ignore[no-untyped-def]
    for seed in range(40):
        hand = Hand(rules, seed=seed)
        dealt = hand.dealt()
        d = hand.dealer
        assert hand.table_size == players and hand.sitting_out is None
        assert hand.seats == tuple((d + i) % players for i in range(players))  # all of them play
        assert [len(h) for h in dealt["hands"]] == [15 if s == d else 14 for s in range(players)]
        assert len(dealt["stock"]) == stock
        assert dealt["hands"][d][-1] == str(hand.liangzhang)  # the 15th card is the 亮张
        deal = hand.events[0].for_seat((d + 1) % players)
        assert deal is not None and deal["stock"] == stock
        assert deal["hand_counts"] == [15 if s == d else 14 for s in range(players)]
        if hand.stock_left == stock:  # nothing drawn yet: the dealer holds 15 (R4.1 提 on the table included)
            assert total(hand, d) == 15


def test_r9_3_quiet_deal_four_seats_in_turn_order() -> None:
    hand = deal4()
    # R4.6: the dealer's 15 cards > 14: it discards first, with a real choice
    assert hand.phase == "discard" and hand.deciding == (0,)
    assert legal(hand, 0) == ["discard x2", "discard x8", "discard d3"]
    events = play(hand, "0: discard d3")
    draws = [e for e in events if e.startswith("draw")]
    # 下家 after 下家: 1, 2, 3, 0, 1, …; nobody holding 14 cards discards after a draw nobody took
    assert [int(e.split()[1]) for e in draws] == [1, 2, 3, 0] * 4
    assert events[-3:] == ["draw 0 d7", "show 0 d7", "pao 1 d7 kan from 0"]
    # R4.6 with one four-card group: 15 > 14 + 0 → seat 1 discards
    assert hand.deciding == (1,) and hand.phase == "discard" and total(hand, 1) == 15
    assert hand.stock_left == 7


# -- R4.6 on 15-card hands ---------------------------------------------------------------------------------


def test_r4_6_r9_3_dealer_with_one_dealt_four_still_discards() -> None:
    hand = deal4({0: "x1 x1 x1 x1 x5 x5 x5 x9 x9 x9 d10 d10 d10 x2"}, stock="d4")
    assert [str(e) for e in hand.events[1:]] == ["ti 0 x1 dealt"]
    assert hand.deciding == (0,) and legal(hand, 0) == ["discard x2", "discard d3"]
    assert total(hand, 0) == 15  # 15 > 14 + max(0, 1 − 1)


def test_r4_6_r9_3_dealer_with_two_dealt_fours_does_not_discard() -> None:
    hands = {
        0: "x1 x1 x1 x1 x5 x5 x5 x5 x9 x9 x9 d10 d10 d10",
        3: "x4 x4 x4 x8 x8 x8 x10 x10 x10 d9 d9 d9 x6 d1",
    }
    hand = deal4(hands, stock="d4 d4")
    # 15 ≤ 14 + max(0, 2 − 1): no discard; the 下家 draws at once
    assert [str(e) for e in hand.events[1:5]] == ["ti 0 x1 dealt", "ti 0 x5 dealt", "draw 1 d4", "show 1 d4"]
    assert total(hand, 0) == 15 and len(hand.hand_of(0)) == 7


def test_r4_6_r9_3_a_drawn_ti_discards_with_none_before_not_with_one() -> None:
    # Seat 3 was dealt a four (提 at the opening: 14 cards, no discard); its draw of x10 makes a second 提:
    # 15 ≤ 14 + 1, no discard. Seat 0 (no four) draws x1 onto its 坎: 15 > 14 + 0, it discards.
    hands = {
        3: "x4 x4 x4 x4 x8 x8 x8 x10 x10 x10 d9 d9 d9 d1",
        2: "x3 x3 x3 x7 x7 x7 d2 d2 d2 d8 d8 d8 x5 d10",
    }
    hand = deal4(hands, stock="d3 d3 x10 x1")
    assert [str(e) for e in hand.events[1:]] == ["ti 3 x4 dealt"] and hand.deciding == (0,)
    events = play(hand, "0: discard d3")
    assert events[-4:] == ["draw 3 x10", "ti 3 x10 kan", "draw 0 x1", "ti 0 x1 kan"]
    assert total(hand, 3) == 15 and hand.deciding == (0,) and legal(hand, 0) == ["discard x2", "discard x8"]
    assert total(hand, 0) == 15


def test_r9_3_no_automatic_tianhu_on_15_cards() -> None:
    # three fours dealt: R6.4's 3 提 天胡 on 21 cards; on 15 cards the hand just plays (R9.3 decision)
    hands = {
        0: "x1 x1 x1 x1 x5 x5 x5 x5 x9 x9 x9 x9 d10 d10",
        3: "x4 x4 x4 x8 x8 x8 x10 x10 x10 d9 d9 d9 x6 d1",
    }
    hand = deal4(hands, stock="d4 d4")
    events = [str(e) for e in hand.events[1:6]]
    assert events == ["ti 0 x1 dealt", "ti 0 x5 dealt", "ti 0 x9 dealt", "draw 1 d4", "show 1 d4"]
    assert not hand.over and total(hand, 0) == 15  # 15 ≤ 14 + max(0, 3 − 1): no discard either


@pytest.mark.parametrize("option", [False, True])
def test_r6_4_r9_3_liangzhang_tianhu_by_option(option: bool) -> None:
    # The dealer's 15 cards are complete with the 亮张 d6: four 坎 and 肆伍陆 (5 门子, 15 胡息)
    rules = LHQ.with_options(tianhu_on_liangzhang=option)
    hand = deal4({0: "x1 x1 x1 x5 x5 x5 x9 x9 x9 d10 d10 d10 d4 d5"}, liang="d6", stock="", rules=rules)
    if not option:  # the default (R9.3): no 天胡 offered, the dealer discards
        assert hand.phase == "discard" and legal(hand, 0) == ["discard d4", "discard d5", "discard d6"]
        return
    assert hand.phase == "liangzhang" and legal(hand, 0) == ["hu", "pass"]
    play(hand, "0: hu")
    outcome = hand.outcome
    assert outcome is not None and outcome.tianhu and outcome.huxi == 15
    # 囤 1 + ⌊(15 − 6)/3⌋ = 4, 平胡; 天胡 is 自摸 (R6.4): × 2 → 8 from each of the three others
    assert [(n.name, n.fan) for n in outcome.score.names] == [("平胡", 1), ("天胡", 0), ("自摸", 0)]
    assert outcome.points == 8 and outcome.payments == (24, -8, -8, -8)


# -- claims and priority with four seats (R4.4, R9.3) -------------------------------------------------------

TWO_WAIT_D4 = {
    2: "x3 x3 x3 x7 x7 x7 d2 d2 d2 d8 d8 d8 d5 d6",  # 4 坎 (18 胡息) + d5 d6: waits on d4
    3: "x4 x4 x4 x8 x8 x8 x10 x10 x10 d9 d9 d9 d5 d6",  # 4 坎 (15 胡息) + d5 d6: waits on d4
}


def test_r4_4_r9_3_two_hu_on_one_discard_the_first_in_turn_order_wins() -> None:
    hand = deal4(TWO_WAIT_D4, liang="d4", stock="")
    assert play(hand, "0: discard d4") == ["discard 0 d4"]
    assert hand.deciding == (2, 3) and legal(hand, 2) == legal(hand, 3) == ["hu", "pass"]
    assert play(hand, "3: hu") == [] and hand.deciding == (2,)  # seat 2 comes first from the discarder
    events = play(hand, "2: hu")
    assert events == ["hu 2 d4 discard 18胡息 5分", "settlement -15 0 15 0"]
    outcome = hand.outcome
    assert outcome is not None and outcome.winner == 2
    # 囤 1 + ⌊(18 − 6)/3⌋ = 5; 6 red: 平胡 × 1; the discarder pays the shares of all 3 losers (discarder_pays)
    assert outcome.score.tun == 5 and outcome.score.fan == 1 and outcome.points == 5
    assert outcome.payments == (-15, 0, 15, 0)


def test_r4_4_r9_3_the_later_seat_wins_when_the_first_passes() -> None:
    hand = deal4(TWO_WAIT_D4, liang="d4", stock="")
    play(hand, "0: discard d4", "2: pass", "3: hu")
    outcome = hand.outcome
    assert outcome is not None and outcome.winner == 3 and outcome.huxi == 15
    assert outcome.points == 4 and outcome.payments == (-12, 0, 0, 12)  # 囤 1 + 3, 平胡


def test_r4_4_r9_3_two_hu_on_a_drawn_card_the_drawer_first() -> None:
    hand = deal4(TWO_WAIT_D4, stock="d3 d3 d4")
    events = play(hand, "0: discard d3")
    assert events[-2:] == ["draw 3 d4", "show 3 d4"] and hand.deciding == (2, 3)
    assert play(hand, "2: hu") == [] and hand.deciding == (3,)  # the drawer (seat 3) ranks first
    play(hand, "3: hu")
    outcome = hand.outcome
    assert outcome is not None and outcome.winner == 3 and outcome.source == "self" and outcome.zimo
    # 囤 4, 平胡, 自摸翻倍: 8 from each of the 3 others
    assert outcome.points == 8 and outcome.payments == (-8, -8, -8, 24)


PENG_OR_CHI_D4 = {
    1: "x2 x2 x2 x6 x6 x6 d1 d1 d1 d5 d6 x3 d9 d7",  # the discarder's 下家: 吃 d4 with d5 d6, not complete
    3: "x4 x4 x4 x8 x8 x8 d9 d9 d9 d4 d4 x10 x5 d1",  # a pair of d4: 碰, not complete
}


def test_r4_4_r9_3_peng_beats_chi_across_the_table() -> None:
    hand = deal4(PENG_OR_CHI_D4, liang="d4", stock="")
    play(hand, "0: discard d4")
    assert hand.deciding == (1, 3) and legal(hand, 1) == ["chi d5 d6", "pass"] and legal(hand, 3) == ["peng", "pass"]
    assert play(hand, "1: chi d5 d6") == [] and hand.deciding == (3,)  # the 碰 ranks first: seat 1 waits
    events = play(hand, "3: peng")
    assert events[-1] == "peng 3 d4 from 0"
    # R4.7: a 吃 that loses to a claim with priority is not declined: d4 does not become 臭 for seat 1
    assert not [e for e in hand.events if e.type == "chou"]
    assert hand.deciding == (3,) and hand.phase == "discard" and total(hand, 3) == 15  # R4.6: 15 > 14


def test_r4_4_r9_3_chi_goes_through_when_the_peng_is_declined() -> None:
    hand = deal4(PENG_OR_CHI_D4, liang="d4", stock="")
    events = play(hand, "0: discard d4", "3: pass", "1: chi d5 d6")
    assert events[-1] == "chi 1 d4 from 0 as d4 d5 d6"
    chou = [e.for_seat(3) for e in hand.events if e.type == "chou"]
    assert chou == [{"type": "chou", "to": 3, "seat": 3, "card": "d4", "chi": False, "peng": True, "renpeng": True}]
    assert hand.deciding == (1,) and hand.phase == "discard" and total(hand, 1) == 15


# -- 一五十 in 吃 and 比 (R9.3 option yiwushi) -----------------------------------------------------------------

YIWUSHI = {
    # seat 1 holds d1 d10 (壹 拾) and d4 d5 d6: a d5 discarded may be eaten as 壹伍拾 or 肆伍陆, the other 比'd
    1: "x2 x2 x2 x6 x6 x6 d1 d10 d5 d4 d6 d9 x3 x9",
    2: "x3 x3 x3 x7 x7 x7 d2 d2 d2 d8 d8 d8 x4 x10",
}


def test_r9_3_yiwushi_off_no_chi_without_a_bi_for_the_copy_in_hand() -> None:
    hand = deal4(YIWUSHI, liang="d5", stock="")
    events = play(hand, "0: discard d5")
    assert events[:2] == ["discard 0 d5", "unclaimed 0 d5"]  # d4 d6 would eat it, but d5 cannot be 比'd


def test_r9_3_yiwushi_on_chi_and_bi() -> None:
    rules = LHQ.with_options(yiwushi=True)
    hand = deal4(YIWUSHI, liang="d5", stock="", rules=rules)
    play(hand, "0: discard d5")
    assert legal(hand, 1) == ["chi d1 d10 | bi d4 d5 d6", "chi d4 d6 | bi d1 d5 d10", "pass"]
    events = play(hand, "1: chi d4 d6 | bi d1 d5 d10")
    assert events == ["chi 1 d5 from 0 as d4 d5 d6 bi d1 d5 d10"]
    assert [g.to_dict() for g in hand.table_of(1)] == [
        {"kind": "ju", "cards": ["d4", "d5", "d6"], "huxi": 0},
        {"kind": "ju", "cards": ["d1", "d5", "d10"], "huxi": 6},  # 壹伍拾: 6 胡息 like 贰柒拾
    ]
    assert hand.deciding == (1,) and total(hand, 1) == 15
    again = replay(hand.record())
    assert again.events == hand.events


# -- 醒 and table G in play (R9.3, R9.4) ----------------------------------------------------------------------

# Seat 1 holds a 坎 of 贰 (d2), 坎 x7 x10 x2 and a pair d7; it draws the fourth d2 (提, R4.2.1) and 自摸s
# (R4.2.3): 提 d2 12 + 3 + 3 + 3 = 21 胡息; red d2×4 x7×3 x10×3 x2×3 d7×2 = 15: 大红.
TI_ER = {
    0: "x1 x1 x1 x5 x5 x5 x9 x9 x9 d10 d10 d10 x3 x8",
    1: "d2 d2 d2 x7 x7 x7 x10 x10 x10 x2 x2 x2 d7 d7",
    2: "x4 x4 x4 x6 x6 x6 d8 d8 d8 d9 d9 d9 d1 x8",
    3: "x3 x3 x3 d1 d1 d1 d6 d6 d6 d5 d5 d5 x4 x9",
}


@pytest.mark.parametrize(
    ("options", "tun", "xing", "xing_card", "fan", "points"),
    [
        # 3xi1tun: 囤 1 + ⌊(21 − 6)/3⌋ = 6; 随醒 d2: 4 in the 提; 大红 × 4; 自摸 × 2: (6 + 4) × 4 × 2
        ({"xing": "sui"}, 6, 4, "d2", 4, 80),
        # 1xi1tun: 囤 = 21; 大红 × 2: (21 + 4) × 2 × 2
        ({"xing": "sui", "tun": "1xi1tun"}, 21, 4, "d2", 2, 100),
        # 翻醒: the next stock card, x7, 3 in the 坎: (6 + 3) × 4 × 2
        ({"xing": "fan"}, 6, 3, "x7", 4, 72),
        ({"xing": "fan", "tun": "1xi1tun"}, 21, 3, "x7", 2, 96),
        ({}, 6, 0, None, 4, 48),
        ({"xing": "sui", "hongheidian": False}, 6, 4, "d2", 1, 20),  # no 红黑点: 平胡
        ({"xing": "sui", "di": 2}, 7, 4, "d2", 4, 88),  # 底 2
    ],
)
def test_r9_3_r9_4_xing_and_table_g_in_play(options, tun, xing, xing_card, fan, points) -> None:  # type: ignore[no-untyped-def]
    hand = deal4(TI_ER, stock="d2 x7", rules=LHQ.with_options(**options))
    events = play(hand, "0: discard d3")
    assert events[-2:] == ["draw 1 d2", "ti 1 d2 kan"] and legal(hand, 1) == ["hu", "discard d7"]
    play(hand, "1: hu")
    outcome = hand.outcome
    assert outcome is not None and outcome.winner == 1 and outcome.source == "forced" and outcome.zimo
    score = outcome.score
    assert (outcome.huxi, score.tun, score.xing, score.fan, outcome.points) == (21, tun, xing, fan, points)
    assert (str(score.xing_card) if score.xing_card is not None else None) == xing_card
    assert outcome.payments == (-points, 3 * points, -points, -points)  # each of the 3 others pays × d (1)
    hu = next(e.to_dict() for e in hand.events if e.type == "hu")
    assert hu["xing_card"] == xing_card and hu["tun"] == tun and hu["xing"] == xing
    assert replay(json.loads(json.dumps(hand.record()))).outcome == outcome


def test_r9_4_fanxing_at_an_empty_stock_uses_the_card_won() -> None:
    # The same hand with one card left in the stock (the others already drawn into the rows): seat 1 draws
    # the last card, d2, and wins; 翻醒 has no next card, so the 醒 card is the card won (R9.4): 醒 4.
    rules = LHQ.with_options(xing="fan")
    start = deal4(TI_ER, stock="d2 x7", rules=rules)
    obs, hidden = start.observation(0), start.hidden(0)
    data = obs.to_dict()
    drawn = [str(c) for c in hidden.stock[1:]]
    data["stock"] = 1
    data["rows"][2] = [{"card": c, "discarded": False} for c in drawn[:11]]
    data["rows"][3] = [{"card": c, "discarded": False} for c in drawn[11:]]
    hand = Hand.from_position(rules, Observation.from_dict(data), Hidden(hidden.hands, hidden.wei, hidden.stock[:1]))
    events = play(hand, "0: discard d3")
    assert events[-2:] == ["draw 1 d2", "ti 1 d2 kan"] and hand.stock_left == 0
    play(hand, "1: hu")
    outcome = hand.outcome
    assert outcome is not None and outcome.haidi  # the last card; table G has no 海底 名堂
    assert str(outcome.score.xing_card) == "d2" and outcome.score.xing == 4
    assert [(n.name, n.fan) for n in outcome.score.names] == [("大红", 4), ("自摸", 0)]
    assert outcome.points == 80 and outcome.payments == (-80, 240, -80, -80)


# -- 逃跑 with four players (R7.3, R9.3) ---------------------------------------------------------------------


def test_r7_3_r9_3_escape_with_four_players_three_share() -> None:
    # Seat 1 leaves: H = 15 (seat 0) + 18 (seat 2) + 15 (seat 3) = 48 → (⌊36/3⌋ + 8) × 1 = 20, shared by
    # three: 6 each and the 2 odd points to the most 胡息 (seat 2), then on equal 胡息 to the first after the
    # leaver in turn order (seat 3 before seat 0).
    hand = deal4()
    events = hand.leave(1)
    assert [e.type for e in events] == ["escape", "settlement"]
    outcome = hand.outcome
    assert outcome is not None and outcome.leaver == 1 and outcome.huxi == 48
    assert outcome.payments == (6, -20, 7, 7)


def test_r7_3_r9_3_escape_counts_yiwushi_in_the_partial_huxi() -> None:
    # Seat 0 leaves; seat 2 holds 壹 伍 拾 loose beside three 坎 (12 胡息): with 一五十 its partial arrangement
    # (R6.4) has 6 胡息 more.
    hands = {
        2: "x3 x3 x3 x7 x7 x7 d8 d8 d8 d1 d5 d10 x4 d2",
        3: "x4 x4 x4 x8 x8 x8 x10 x10 x10 d9 d9 d9 x5 x6",
    }
    off = deal4(hands, stock="")
    on = deal4(hands, stock="", rules=LHQ.with_options(yiwushi=True))
    off.leave(0)
    on.leave(0)
    assert off.outcome is not None and on.outcome is not None
    # off: 18 + 12 + 15 = 45 → ⌊33/3⌋ + 8 = 19: 6 each, the odd point to seat 1 (most 胡息)
    assert off.outcome.huxi == 45 and off.outcome.payments == (-19, 7, 6, 6)
    # on: 18 + 18 + 15 = 51 → 13 + 8 = 21: 7 each
    assert on.outcome.huxi == 51 and on.outcome.payments == (-21, 7, 7, 7)


# -- matches and records -------------------------------------------------------------------------------------


def test_r9_3_match_players_default_and_must_match_the_rules() -> None:
    match = Match(LHQ, seed=3, hands=2)
    assert match.players == 4 and match.hand.table_size == 4
    with pytest.raises(MatchError, match=r"played by 4 players .*players=3"):
        Match(LHQ, seed=3, players=3)
    with pytest.raises(MatchError, match="played by 3 players"):
        Match(LHQ3, seed=3, players=4)
    assert Match(LHQ3, seed=3, players=3).hand.table_size == 3


@pytest.mark.parametrize("rules", [LHQ, LHQ3, LHQ.with_options(yiwushi=True, mingwei=True, xing="fan")])
def test_r9_3_match_plays_and_replays(rules) -> None:  # type: ignore[no-untyped-def]
    match = Match(rules, seed=11, hands=3)
    step = 0
    while not match.over:
        if match.hand.over:
            match.next_hand()
            continue
        seat = match.deciding[step % len(match.deciding)]
        acts = match.legal_actions(seat)
        names = [str(a) for a in acts]
        match.apply(seat, "hu" if "hu" in names else acts[step % len(acts)])
        step += 1
    assert len(match.results) == 3 and sum(match.totals) == 0
    record = match.record()
    assert record["players"] == rules.players
    again = replay_match(json.loads(json.dumps(record)))
    assert again.totals == match.totals
    for result in match.results:
        assert replay(result.record).outcome == result.outcome


def test_r9_3_record_deals_15_and_14_and_refuses_a_wrong_size() -> None:
    hand = deal4()
    play(hand, "0: discard d3")
    record = hand.record()
    assert [len(h) for h in record["dealt"]["hands"]] == [15, 14, 14, 14] and len(record["dealt"]["stock"]) == 23
    assert record["rules"]["players"] == 4 and record["rules"]["dealer_cards"] == 15
    assert replay(record).events == hand.events
    bad = json.loads(json.dumps(record))
    bad["dealt"]["hands"][1].append(bad["dealt"]["stock"].pop())
    with pytest.raises(Exception, match="seat 1 must be dealt 14 cards"):
        replay(bad)


def test_r9_3_hand_refuses_a_seat_outside_the_table() -> None:
    with pytest.raises(EngineError, match="dealer must be a seat 0–3"):
        Hand(LHQ, seed=1, dealer=4)
    assert Hand(LHQ3, seed=1).table_size == 3
