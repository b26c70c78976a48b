"""The computer players play by the family's points (R9, R6.2; issue 29 item 4): under 衡阳十胡卡 a 10-胡息 win
(卡胡, 3 囤, R9.2) is worth more than 11–14 胡息, so greedy and search keep the 卡胡 wait that a 胡息-counting
player would throw away; with the same cards under ``qq`` (R7.1: more 胡息, more points; 起胡 15) they choose
otherwise."""

from __future__ import annotations

from paohuzi import scoring
from paohuzi.bots import make_bot
from paohuzi.bots.greedy import choose, wait_wins
from paohuzi.bots.hints import hint
from paohuzi.bots.view import read
from paohuzi.cards import Card, parse_cards
from paohuzi.engine import Action, ActionKind, Hand, stack_deck
from paohuzi.groups import Group
from paohuzi.rules import RuleSet, find_preset

# Seat 1 (the dealer's 下家) holds a pair of 伍 to 碰 the dealer's discard (a small 碰: 1 胡息), three groups of
# 3 胡息 (一二三, a 坎 of 八, a 坎 of 六), two of 0 (叁肆伍, 陆柒捌), and 七 十 拾. After the 碰 it must discard:
# - 七: 十 拾 wait for 十 or 拾 (绞, 0 胡息): 1 + 9 = 10 胡息, 卡胡 — 3 囤 (R9.2);
# - 拾: 七 十 wait for 二 (二七十, 3 胡息): 13 胡息 — 2 囤.
# Both are 平胡 (5 red cards, table F). Under qq (起胡 15) neither is 听牌, and 13 is nearer.
SEAT1 = "x5 x5 x1 x2 x3 x8 x8 x8 x6 x6 x6 d3 d4 d5 d6 d7 d8 x7 x10 d10"


def _after_peng(rules: RuleSet, fill_seed: int = 0) -> Hand:
    """Seat 1 to discard after 碰'ing the dealer's 伍 (everything else passes)."""
    deck = stack_deck(rules, dealer=0, hands={0: "x5", 1: SEAT1}, fill_seed=fill_seed)
    hand = Hand(rules, deck=deck, dealer=0)
    while hand.phase != "discard":  # a 天胡 on the 亮张 or an opening 提 of the filled-in cards: declined
        seat = hand.deciding[0]
        passes = [a for a in hand.legal_actions(seat) if a.kind is ActionKind.PASS]
        hand.apply(seat, passes[0])
    assert hand.deciding == (0,) and hand.phase == "discard"
    hand.apply(0, Action.parse("discard x5"))
    while hand.phase == "claim":
        seat = hand.deciding[0]
        legal = hand.legal_actions(seat)
        pick = [a for a in legal if a.kind is (ActionKind.PENG if seat == 1 else ActionKind.PASS)]
        hand.apply(seat, pick[0])
    assert hand.deciding == (1,) and hand.phase == "discard"
    return hand


def _waits(rules: RuleSet, discard: str) -> list[tuple[str, int, int]]:
    cards = list(parse_cards(SEAT1))[2:]  # the pair of 伍 went to the 碰
    cards.remove(Card.parse(discard))
    table = [Group.parse("peng:x5x5x5")]
    return [(str(c), w.huxi, w.points) for c, w in scoring.scored_waits(cards, table, rules)]


def test_r9_2_the_two_waits_score_as_the_rule_book_says() -> None:
    shihuka = find_preset("shihuka")
    assert _waits(shihuka, "x7") == [("x10", 10, 6), ("d10", 10, 6)]  # 卡胡 3 囤 × 平胡 1 × 自摸 2
    assert _waits(shihuka, "d10") == [("x2", 13, 4)]  # 2 囤 × 1 × 2
    qq = find_preset("qq")
    assert _waits(qq, "x7") == [] and _waits(qq, "d10") == []  # below qq's 起胡 15


def test_r9_2_greedy_keeps_the_kahu_wait() -> None:
    for fill in range(3):
        hand = _after_peng(find_preset("shihuka"), fill)
        obs, legal = hand.observation(1), hand.legal_actions(1)
        assert str(make_bot("greedy").act(obs, legal)) == "discard x7"
        assert hint(obs)["suggest"] == "discard x7"


def test_r9_2_search_keeps_the_kahu_wait() -> None:
    hand = _after_peng(find_preset("shihuka"))
    bot = make_bot("search[worlds=16]", seed=3)
    assert str(bot.act(hand.observation(1), hand.legal_actions(1))) == "discard x7"


def test_r9_2_the_same_cards_under_qq_choose_otherwise() -> None:
    """Under qq (起胡 15) neither discard leaves 听牌 and the 卡胡 is worth nothing: greedy plays for 胡息 —
    it keeps 七 十 拾 (a 二七十 and a 绞 to come) and lets the 一 of 一二三 go; search agrees."""
    for fill in range(3):
        hand = _after_peng(find_preset("qq"), fill)
        obs, legal = hand.observation(1), hand.legal_actions(1)
        action, scored = choose(read(obs), legal)
        assert str(action) == "discard x1"
        assert "discard x7" not in [str(a) for _, a in scored[:3]]
    assert str(make_bot("search[worlds=16]", seed=3).act(obs, legal)) == "discard x1"


def _wait_wins(rules: RuleSet, discard: str) -> list[tuple[str, int, int, int]]:
    cards = list(parse_cards(SEAT1))[2:]
    cards.remove(Card.parse(discard))
    table = [Group.parse("peng:x5x5x5")]
    return [(str(c), w.huxi, w.score.xing, w.points) for c, w in wait_wins(cards, table, rules)]


def test_r9_4_sui_xing_counts_the_card_won_in_the_waits() -> None:
    """随醒: the card won is the 醒 card (R9.4), so each wait is worth its own 醒 — 十 or 拾 completes a 绞 holding
    two of it: (3 + 2) × 2 = 10; 二 sits in 一二三 and 二七十: (2 + 2) × 2 = 8. Without 醒 the same waits are worth
    6 and 4; greedy and the hints use these values."""
    sui = find_preset("shihuka").with_options(xing="sui")
    assert _wait_wins(sui, "x7") == [("x10", 10, 2, 10), ("d10", 10, 2, 10)]
    assert _wait_wins(sui, "d10") == [("x2", 13, 2, 8)]
    assert _wait_wins(find_preset("shihuka"), "x7") == [("x10", 10, 0, 6), ("d10", 10, 0, 6)]
    hand = _after_peng(sui)
    obs = hand.observation(1)
    shown = {d["card"]: [(w["card"], w["points"]) for w in d["waits"]] for d in hint(obs)["discards"]}
    assert shown["x7"] == [("x10", 10), ("d10", 10)] and shown["d10"] == [("x2", 8)]
    assert hint(obs)["suggest"] == "discard x7"
