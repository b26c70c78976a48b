"""R8.1 house options (约局) in play, R4.7 忍碰 (a 碰 answered with 吃), R7.3 双倍积分卡 and R8.2 解散房间:
one scripted stacked-deck test per option value."""

from __future__ import annotations

import pytest

from paohuzi.engine import Match, MatchError, replay
from paohuzi.engine.match import replay_match
from paohuzi.rules import find_preset

from ..engine.helpers import BASE, HUNAN, QQ, W_HANDS, brief, deal, legal, play, swap
from ..engine.test_r4_7_renpeng_by_chi import CHI_OVER_OWN_PENG
from .test_r6_4_tianhu_play import LIANG_DEALER, PAIRS_1, PAIRS_2

HUAYANG = find_preset("huayang")
# Seat 1 waits on x10: 坎 x5 x7 贰 柒, 一二三, 八九 + x10, 肆伍陆 — 21 胡息, 11 red: 红胡 (table A).
RED_21 = "x5 x5 x5 x7 x7 x7 d2 d2 d2 d7 d7 d7 x1 x2 x3 x8 x9 d4 d5 d6"
SEAT2 = "x6 x6 x6 x9 x9 x9 d1 d1 d1 d8 d8 d8 x2 x4 x5 x8 x10 d9 d10 x4"
# W_HANDS seat 1 (21 胡息, 平胡) with 胡息 taken out: 18 and 15.
H21 = W_HANDS[1]
H18 = swap(H21, "d2 d2 d2", "x4 x4 x4")
H15 = swap(H18, "x5 x5 x5", "d7 d8 d9")


def _red_self_draw(**options: object):  # type: ignore[no-untyped-def]
    hand = deal({1: RED_21, 2: SEAT2}, stock="x10", rules=QQ.with_options(**options))
    assert play(hand, "0: discard x2")[-2:] == ["draw 1 x10", "show 1 x10"]
    return hand


@pytest.mark.parametrize(
    ("zimo", "base", "points", "event"),
    [
        ("plus_one", 4, 8, "hu 1 x10 self 21胡息 8分"),  # (3 + 1) × 红胡 2
        ("double", 3, 12, "hu 1 x10 self 21胡息 12分"),  # 自摸翻倍: 3 × 2, × 2, no +1
        ("none", 3, 6, "hu 1 x10 self 21胡息 6分"),  # no bonus
    ],
)
def test_r8_1_zimo_modes_at_21_huxi_with_honghu(zimo: str, base: int, points: int, event: str) -> None:
    hand = _red_self_draw(zimo=zimo)
    assert play(hand, "1: hu") == [event, f"settlement {-3 * points} {6 * points} {-3 * points}"]
    out = hand.outcome
    assert out is not None and out.zimo and (out.score.base, out.score.fan, out.points) == (base, 2, points)
    assert out.score.zimo_double == (zimo == "double")
    assert out.to_dict()["names"] == [{"name": "红胡", "fan": 2}, {"name": "自摸", "fan": 0}]


def test_r8_1_zimo_double_does_not_touch_a_win_on_another_seats_card() -> None:
    hand = deal({1: RED_21, 2: SEAT2}, stock="x10", rules=QQ.with_options(zimo="double", win_on_discard=True))
    play(hand, "0: discard x10")
    assert play(hand, "1: hu") == ["hu 1 x10 discard 21胡息 6分", "settlement -18 36 -18"]


@pytest.mark.parametrize(("cap", "points"), [(0, 12), (50, 12)])
def test_r8_1_cap_above_the_points_changes_nothing(cap: int, points: int) -> None:
    hand = _red_self_draw(zimo="double", cap=cap)
    play(hand, "1: hu")
    assert hand.outcome is not None and hand.outcome.points == points and not hand.outcome.score.capped


def test_r8_1_must_hu_a_hu_the_seat_would_rather_pass_is_made_at_once() -> None:
    """有胡必胡: seat 1 could 胡, 吃 or pass the x10 (R4.3); it is not asked, the 胡 is a forced event."""
    hand = deal({1: RED_21, 2: SEAT2}, stock="x10", rules=QQ.with_options(must_hu=True))
    assert play(hand, "0: discard x2") == [
        "discard 0 x2",
        "unclaimed 0 x2",
        "draw 1 x10",
        "show 1 x10",
        "hu 1 x10 self 21胡息 8分 forced",
        "settlement -24 48 -24",
    ]
    assert hand.over and hand.record()["actions"] == [[0, "discard x2"]]
    assert hand.events[-2].to_dict()["forced"] is True
    assert replay(hand.record()).events == hand.events
    # Without the option the same 胡 is only offered.
    assert legal(_red_self_draw(), 1) == ["hu", "chi x8 x9", "pass"]


def test_r8_1_must_hu_the_liangzhang_tianhu_is_made_at_once() -> None:
    hand = deal({0: LIANG_DEALER, 1: PAIRS_1, 2: PAIRS_2}, liang="x10", rules=QQ.with_options(must_hu=True))
    assert brief(hand.events) == [
        "deal dealer 0 liangzhang x10",
        "hu 0 x10 liangzhang 18胡息 9分 forced",
        "settlement 54 -27 -27",
    ]
    assert hand.over and hand.deciding == ()


def test_r8_1_must_hu_after_a_forced_wei() -> None:
    """R4.2.3 under 有胡必胡: complete after the forced 偎, the drawer wins before any discard."""
    ready = "x5 x5 x5 x7 x7 x7 d1 d1 d1 d2 d2 d2 x1 x2 x3 x8 x9 x10 d4 d4"
    hands = {0: BASE[0], 1: ready, 2: swap(W_HANDS[2], "x10", "x4")}
    hand = deal(hands, stock="d4", rules=QQ.with_options(must_hu=True))
    assert play(hand, "0: discard x2")[-3:] == [
        "wei 1 d4",
        "hu 1 d4 forced 27胡息 6分 forced",
        "settlement -18 36 -18",
    ]


@pytest.mark.parametrize(("discarder_pays", "payments"), [(False, (-18, 36, -18)), (True, (-36, 36, 0))])
def test_r8_1_discarder_pays_the_whole_hand(discarder_pays: bool, payments: tuple[int, ...]) -> None:
    """放炮包赔: seat 0 discards the x10 seat 1 wins with; seat 0 pays both shares, seat 2 nothing."""
    rules = QQ.with_options(win_on_discard=True, discarder_pays=discarder_pays)
    hand = deal({1: RED_21, 2: SEAT2}, stock="x10", rules=rules)
    play(hand, "0: discard x10")
    assert play(hand, "1: hu")[0] == "hu 1 x10 discard 21胡息 6分"
    assert hand.outcome is not None and hand.outcome.payments == payments


def test_r8_1_discarder_pays_does_not_touch_a_win_on_a_drawn_card() -> None:
    hand = _red_self_draw(win_on_discard=True, discarder_pays=True)
    play(hand, "1: hu")
    assert hand.outcome is not None and hand.outcome.payments == (-24, 48, -24)


def test_r8_1_discarder_pays_without_win_on_discard_has_no_effect() -> None:
    hand = deal({1: RED_21, 2: SEAT2}, stock="x10", rules=QQ.with_options(discarder_pays=True))
    assert "hu" not in legal(hand, 1) and play(hand, "0: discard x10")[0] == "discard 0 x10"
    assert "hu" not in legal(hand, 1)


@pytest.mark.parametrize(
    ("min_huxi", "wins"),
    [(15, {15: 2, 18: 3, 21: 4}), (18, {18: 3, 21: 4}), (21, {21: 4})],
)
def test_r8_1_min_huxi(min_huxi: int, wins: dict[int, int]) -> None:
    """起胡 15/18/21 (R6.1): a hand below the minimum is not offered 胡; the base formula is unchanged."""
    for huxi, cards in ((15, H15), (18, H18), (21, H21)):
        hand = deal({1: cards, 2: W_HANDS[2]}, stock="x10", rules=QQ.with_options(min_huxi=min_huxi))
        play(hand, "0: discard x2")
        if huxi not in wins:
            assert legal(hand, 1) == ["chi x8 x9", "pass"], huxi
            continue
        assert legal(hand, 1) == ["hu", "chi x8 x9", "pass"], huxi
        assert play(hand, "1: hu")[0] == f"hu 1 x10 self {huxi}胡息 {wins[huxi]}分"


def test_r8_1_min_huxi_18_refuses_a_15_huxi_hand_that_wins_at_15() -> None:
    at_15 = deal({1: H15, 2: W_HANDS[2]}, stock="x10")
    at_18 = deal({1: H15, 2: W_HANDS[2]}, stock="x10", rules=QQ.with_options(min_huxi=18))
    play(at_15, "0: discard x2")
    play(at_18, "0: discard x2")
    assert "hu" in legal(at_15, 1) and "hu" not in legal(at_18, 1)


# -- R4.7 (decision reversed, issue 11) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "peng_later"), [(QQ, False), (HUAYANG, False), (HUNAN, True)], ids=["qq", "huayang", "hunan"]
)
def test_r4_7_chi_over_own_peng_losing_to_the_drawers_chi_blocks_the_fourth_copy(rules, peng_later) -> None:  # type: ignore[no-untyped-def]
    """Seat 2 holds x4 x4, answers the drawn x4 with 吃 and loses to the drawer's 吃: it declined the 碰
    (忍碰). Under chou_blocks_peng (qq, 花样) the fourth x4 may not be 碰'd by it; hunan still offers it."""
    hand = deal(CHI_OVER_OWN_PENG, stock="x4 d3 x4", rules=rules)
    play(hand, "0: discard x8")
    events = play(hand, "2: chi x4 d4 | bi x2 x3 x4", "1: chi x2 x3")
    assert events[0] == ("chou 2 x4 renpeng" if peng_later else "chou 2 x4 peng renpeng")
    play(hand, "1: discard x8", "2: pass")
    assert play(hand, "0: pass")[-2:] == ["draw 0 x4", "show 0 x4"]
    assert (legal(hand, 2) == ["peng", "pass"]) is peng_later
    if not peng_later:
        assert hand.deciding == (0,) and legal(hand, 2) == []
    assert hand.observation(2).to_dict()["chou"]["renpeng"] == ["x4"]


def test_r4_7_chi_over_own_peng_that_wins_is_still_renpeng() -> None:
    """The seat's 吃 takes the card: its 碰 was still declined (R4.7 "whatever then becomes of the 吃")."""
    seat1 = "x5 x5 x5 x7 x7 x7 x9 x9 x9 x2 x2 d3 d4 d4 d5 d5 d6 x4 x4 x10"
    seat0 = "x1 x1 x1 x3 x3 x3 d9 d9 d9 d10 d10 d10 d4 x6 x8 d1 d8 d7 x10 d2"
    hand = deal({0: seat0, 1: seat1}, stock="d3 d6 x2")
    play(hand, "0: discard d4")
    assert play(hand, "1: chi d5 d6 | bi x4 d4 d4")[:2] == [
        "chou 1 d4 peng renpeng",
        "chi 1 d4 from 0 as d4 d5 d6 bi x4 d4 d4",
    ]


# -- R7.3 双倍积分卡 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "payments"),
    [
        ((), (-24, 48, -24)),
        ((1,), (-24, 96, -24)),  # the winner's gain doubles; nobody pays more
        ((0,), (-24, 48, -24)),  # a loss is never doubled
        ((0, 1, 2), (-24, 96, -24)),
    ],
)
def test_r7_3_double_card_is_the_holders_own_gain(cards: tuple[int, ...], payments: tuple[int, ...]) -> None:
    hand = deal({1: RED_21, 2: SEAT2}, stock="x10", double_cards=cards)
    play(hand, "0: discard x2", "1: hu")
    assert hand.outcome is not None and hand.outcome.payments == payments
    assert sum(payments) == (48 if 1 in cards else 0)


def test_r7_3_double_card_with_discarder_pays_the_discarders_loss_is_not_doubled() -> None:
    rules = QQ.with_options(win_on_discard=True, discarder_pays=True)
    hand = deal({1: RED_21, 2: SEAT2}, stock="x10", rules=rules, double_cards=(0, 1))
    play(hand, "0: discard x10", "1: hu")
    assert hand.outcome is not None and hand.outcome.payments == (-36, 72, 0)


# -- Match: first_dealer, rounds, R8.2 dissolve -----------------------------------------------------


@pytest.mark.parametrize(("players", "owner"), [(3, 0), (3, 1), (3, 2), (4, 0), (4, 1), (4, 2), (4, 3)])
def test_r8_1_first_dealer_owner_deals_the_first_hand(players: int, owner: int) -> None:
    """房主坐庄: the owner deals the first hand whatever the seed; hand seeds do not depend on it."""
    rules = HUNAN.with_options(first_dealer="owner")
    for seed in (1, 2, 3):
        match = Match(rules, seed, players, hands=2, owner=owner)
        assert match.dealer == match.hand.dealer == owner
        drawn = Match(HUNAN, seed, players, hands=2, owner=owner)
        assert drawn.hand.seed == match.hand.seed
        assert replay_match(match.record()).hand.dealer == owner


def test_r8_1_first_dealer_draw_ignores_the_owner_and_owner_needs_one() -> None:
    assert {Match(QQ, seed=s, hands=1, owner=0).dealer for s in range(30)} == {0, 1, 2}
    with pytest.raises(MatchError, match="first_dealer 'owner' \\(R8.1\\) needs the owner's seat"):
        Match(QQ.with_options(first_dealer="owner"), seed=1)
    with pytest.raises(MatchError, match="owner must be a seat 0–2, got 3"):
        Match(QQ, seed=1, owner=3)


def _finish_hand(match: Match) -> None:
    while not match.hand.over:
        seat = match.deciding[0]
        match.apply(seat, match.legal_actions(seat)[-1])


def test_r8_1_rounds_is_the_default_number_of_hands() -> None:
    match = Match(QQ.with_options(rounds=2), seed=5)
    assert match.hands == 2
    _finish_hand(match)
    match.next_hand()
    _finish_hand(match)
    assert match.over and len(match.results) == 2


def test_r8_2_dissolve_voids_the_hand_in_play_and_keeps_the_settled_ones() -> None:
    match = Match(QQ, seed=3, hands=4)
    _finish_hand(match)
    settled = list(match.totals)
    match.next_hand()
    seat = match.deciding[0]
    match.apply(seat, match.legal_actions(seat)[0])
    match.dissolve()
    assert match.over and match.dissolved and match.totals == settled and len(match.results) == 1
    assert match.void is not None and match.void["dissolved"] is True and match.void["actions"]
    assert not match.hand.over  # no settlement, no 逃跑
    assert match.deciding == () and match.legal_actions(seat) == []
    with pytest.raises(MatchError, match="dissolved"):
        match.apply(seat, "pass")
    with pytest.raises(MatchError, match="the match is over"):
        match.leave(0)
    with pytest.raises(MatchError, match="the match is over"):
        match.dissolve()
    record = match.record()
    assert record["dissolved"] is True and record["records"][-1]["dissolved"] is True
    again = replay_match(record)
    assert again.dissolved and again.totals == settled and again.void == match.void


def test_r8_2_dissolve_between_hands() -> None:
    match = Match(QQ, seed=8, hands=3)
    _finish_hand(match)
    match.dissolve()
    assert match.over and len(match.results) == 1 and match.void == {"dissolved": True}
    with pytest.raises(MatchError, match="the match is over"):
        match.next_hand()
    assert replay_match(match.record()).dissolved


# Seat 1 is dealt 提 壹 贰 叁 and eight more big cards: a dealt 天胡 (R6.4), 36 胡息 doubled (qq):
# (72 − 12) // 3 + 1 = 21, 大字胡 (20 big) 8 番 → 168 points.
BIG_TIANHU = "d1 d1 d1 d1 d2 d2 d2 d2 d3 d3 d3 d3 d4 d4 d5 d6 d7 d8 d9 d10"


@pytest.mark.parametrize(
    ("cap", "points", "payments"),
    [(0, 168, (-504, 1008, -504)), (100, 100, (-300, 600, -300)), (200, 168, (-504, 1008, -504))],
)
def test_r8_1_cap_on_a_dealt_tianhu(cap: int, points: int, payments: tuple[int, ...]) -> None:
    """封顶 caps a hand's points before × stake (qq: d = 3)."""
    hand = deal({1: BIG_TIANHU}, rules=QQ.with_options(cap=cap))
    assert brief(hand.events)[-2] == f"hu 1 None dealt 36胡息 {points}分"
    out = hand.outcome
    assert out is not None and out.payments == payments
    assert (out.score.uncapped, out.score.capped) == (168, cap == 100)
    assert out.to_dict()["names"] == [
        {"name": "大字胡", "fan": 8},
        {"name": "天胡", "fan": 0},
        {"name": "自摸", "fan": 0},
    ]


def test_r8_1_every_seat_sees_the_house_options_and_bots_read_them() -> None:
    from paohuzi.bots.view import read

    rules = HUNAN.with_options(must_hu=True, cap=100, min_huxi=18)
    hand = deal(rules=rules)
    for seat in hand.seats:
        obs = hand.observation(seat).to_dict()
        assert obs["rules"] == "hunan" and obs["options"]["must_hu"] is True and obs["options"]["cap"] == 100
        assert read(obs).rules == rules
    obs = hand.observation(0).to_dict()
    obs["options"]["cap"] = 0  # a fresh dict each time
    assert hand.observation(0).to_dict()["options"]["cap"] == 100
    assert hand.observation(0).options["cap"] == 100
    plain = deal()
    assert read(plain.observation(1)).rules == QQ
