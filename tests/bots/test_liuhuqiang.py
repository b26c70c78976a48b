"""The computer players under 衡阳六胡抢 (R9.3, issue 30 part 2): the split search counts 5 门子 and, with
``yiwushi``, 一五十; greedy and the hints value a wait by Table G and 三息一囤; every level plays at a table of
four active players and of three, legally."""

from __future__ import annotations

import pytest

from paohuzi.bots import make_bot
from paohuzi.bots.evaluation import reach3
from paohuzi.bots.greedy import choose
from paohuzi.bots.hints import hint
from paohuzi.bots.levels import LEVELS, make_level_bot, plays
from paohuzi.bots.search import SearchBot
from paohuzi.bots.tournament import play_hand
from paohuzi.bots.view import read
from paohuzi.cards import counts_of, parse_cards
from paohuzi.engine import Action, ActionKind, Hand, stack_deck
from paohuzi.rules import RuleSet, find_preset

from .test_legality import Checked

LHQ = find_preset("liuhuqiang")
LHQ_Y = LHQ.with_options(yiwushi=True)


def test_split_search_counts_five_groups_and_yiwushi() -> None:
    """14 cards: 一五十 二三四 贰柒拾 and 九 九 — one card (九) from 5 门子 with 一五十 as a 句 (3 + 0 + 6 + 3 =
    12 胡息 ≥ 起胡 6 once 九 comes), one further without it; with R6.1's 7 门子 it would be far."""
    hand = counts_of(parse_cards("x1 x5 x10 x2 x3 x4 d6 d7 d8 d2 d7 d10 x9 x9"))
    assert reach3(hand, (), 6, 5, yiwushi=True) == (0, 11, 0)
    assert reach3(hand, (), 6, 5, yiwushi=False) == (1, 11, 1)
    assert reach3(hand, (), 6, 7, yiwushi=True)[0] > 1


# Seat 1 (the dealer's 下家, 14 cards) 碰s the dealer's 叁 and must discard (R4.6 with 14: 3 + 12 > 14).
SEAT1 = "d3 d3 x1 x5 x10 x2 x3 x4 d2 d7 d10 x9 x9 d9"


def _after_peng(rules: RuleSet, fill_seed: int = 0, seat1: str = SEAT1, card: str = "d3") -> Hand:
    deck = stack_deck(rules, dealer=0, hands={0: card, 1: seat1}, fill_seed=fill_seed)
    hand = Hand(rules, deck=deck, dealer=0)
    while hand.phase != "discard":
        seat = hand.deciding[0]
        hand.apply(seat, next(a for a in hand.legal_actions(seat) if a.kind is ActionKind.PASS))
    hand.apply(0, Action.parse(f"discard {card}"))
    while hand.phase == "claim":
        seat = hand.deciding[0]
        want = ActionKind.PENG if seat == 1 else ActionKind.PASS
        hand.apply(seat, next(a for a in hand.legal_actions(seat) if a.kind is want))
    assert hand.deciding == (1,) and hand.phase == "discard"
    return hand


def _waits(shown: dict[str, object], card: str) -> list[tuple[str, int, int]]:
    entry = next(d for d in shown["discards"] if d["card"] == card)  # type: ignore[attr-defined]
    return [(w["card"], w["huxi"], w["points"]) for w in entry["waits"]]


@pytest.mark.parametrize("fill", range(2))
def test_greedy_and_hints_keep_yiwushi_and_value_by_table_g(fill: int) -> None:
    """With 一五十 every discard but a few leaves 听牌; throwing 玖 waits on 九 (碰 叁 3 + 一五十 3 + 贰柒拾 6 + 坎 九 3
    = 15 胡息: 囤 1 + ⌊9/3⌋ = 4, 平胡 with 5 red, × 2 自摸 = 8), on 叁 (跑 叁 9 + 3 + 6, 九 九 the 将: 18 胡息, 囤 5,
    10) and on 玖 (12 胡息, 囤 3, 6) — the best, and what greedy and the hint play. Without 一五十 the same cards
    keep 二七十 hopes instead and throw 十."""
    hand = _after_peng(LHQ_Y, fill)
    obs, legal = hand.observation(1), hand.legal_actions(1)
    shown = hint(obs)
    assert shown["suggest"] == "discard d9" == str(choose(read(obs), legal)[0])
    assert _waits(shown, "d9") == [("x9", 15, 8), ("d3", 18, 10), ("d9", 12, 6)]
    assert _waits(shown, "x1") == [("x1", 12, 6), ("x7", 12, 6)]
    plain = _after_peng(LHQ, fill)
    obs = plain.observation(1)
    shown = hint(obs)
    assert shown["suggest"] == "discard x10" == str(choose(read(obs), plain.legal_actions(1))[0])
    assert _waits(shown, "x10") == [("x3", 12, 6), ("x6", 12, 6)] and _waits(shown, "d9") == []


# Seat 1 碰s the dealer's 七 and holds 贰柒拾, 绞 二 二 贰, 三四五, 十 十 and 玖: throwing 玖 waits on 七 (跑: 6 + 6,
# 十 十 the 将: 12 胡息, 12 red), 十 (偎 3: 1 + 6 + 3 = 10 胡息, 12 red) and 拾 (绞: 7 胡息, 12 red).
RED = "x7 x7 d2 d7 d10 x2 x2 d2 x3 x4 x5 x10 x10 d9"


@pytest.mark.parametrize(
    ("options", "points"),
    [
        ({}, [24, 16, 8]),  # 三息一囤 (3, 2, 1) × 大红 4 × 自摸 2: Table G multiplies
        ({"hongheidian": False}, [6, 4, 2]),  # no 名堂: 平胡 1
        ({"tun": "1xi1tun"}, [48, 40, 28]),  # 囤 = 胡息 (12, 10, 7) × 大红 2 (一息一囤) × 2
    ],
)
def test_waits_are_valued_by_table_g(options: dict[str, object], points: list[int]) -> None:
    """The hint and greedy value each wait by R9.3's 囤 and Table G (exact points a card, as 自摸)."""
    rules = LHQ.with_options(**options) if options else LHQ
    hand = _after_peng(rules, 0, RED, "x7")
    obs = hand.observation(1)
    shown = hint(obs)
    assert shown["suggest"] == "discard d9" == str(choose(read(obs), hand.legal_actions(1))[0])
    waits = zip((("x7", 12), ("x10", 10), ("d10", 7)), points, strict=True)
    assert _waits(shown, "d9") == [(card, huxi, p) for (card, huxi), p in waits]


def test_master_plays_as_expert_in_the_family() -> None:
    assert plays("大师", LHQ).key == "expert" and plays("master", LHQ_Y.with_options(players=3)).key == "expert"
    assert isinstance(make_level_bot("master", seed=1, rules=LHQ), SearchBot)


@pytest.mark.parametrize(
    "rules",
    [LHQ, LHQ.with_options(players=3), LHQ.with_options(yiwushi=True, mingwei=True, tun="1xi1tun", xing="sui")],
    ids=["4", "3", "4-yiwushi-mingwei-1xi1tun"],
)
def test_every_level_plays_legally(rules: RuleSet) -> None:
    """入门 普通 高手 大师 at one table (four seats; with three, each level in turn sits out), to the end."""
    keys = [lv.key for lv in LEVELS]
    tables = [keys] if rules.players == 4 else [keys[i:] + keys[:i] for i in range(4)]
    for seed, names in enumerate(tables):
        bots = [Checked(make_bot(name, seed=seed * 8 + s)) for s, name in enumerate(names[: rules.players])]
        hand, decisions, _ = play_hand(rules, 30_500 + seed, bots)
        assert hand.over and hand.outcome is not None and sum(hand.outcome.payments) == 0
        assert decisions == [b.calls for b in bots]
