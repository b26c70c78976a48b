"""Every bot plays every R9 preset and option (issue 29 item 4; 六胡抢 with 4 and 3 players, issue 30) legally to
the end: greedy, noisy and random over hundreds of hands, search and the levels over a few, the hints at every
decision; the settlement sums to zero (R7.3, R9.1, R9.2, R9.3)."""

from __future__ import annotations

import pytest

from paohuzi.bots import make_bot
from paohuzi.bots.hints import hint
from paohuzi.bots.tournament import play_hand
from paohuzi.engine import Hand
from paohuzi.rules import RuleSet, find_preset

from .test_legality import Checked

VARIANTS: dict[str, tuple[str, dict[str, object]]] = {
    "changde": ("changde", {}),
    "changde-4": ("changde", {"four_players": True}),
    "changde_qmt": ("changde_qmt", {}),
    "changde_qmt-all": ("changde_qmt", {"shuahou": True, "hanghangxi": True, "tuanyuan": True, "huangfan": True}),
    "shihuka": ("shihuka", {}),
    "shihuka-sui": ("shihuka", {"xing": "sui", "base_bonus": "double", "tiandi_haidi": True}),
    "shihuka-fan": ("shihuka", {"xing": "fan", "base_bonus": "plus_one", "hongheidian": False}),
    # R9.3 衡阳六胡抢 (issue 30): four active players with 15-card hands, or three; 一五十, 明偎, both 囤 modes
    "liuhuqiang": ("liuhuqiang", {}),
    "liuhuqiang-3": ("liuhuqiang", {"players": 3}),
    "liuhuqiang-yiwushi": ("liuhuqiang", {"yiwushi": True, "mingwei": True, "xing": "fan", "di": 2}),
    "liuhuqiang-3-1xi1tun": ("liuhuqiang", {"players": 3, "tun": "1xi1tun", "xing": "sui", "yiwushi": True}),
}


def _rules(variant: str) -> RuleSet:
    preset, options = VARIANTS[variant]
    return find_preset(preset).with_options(**options) if options else find_preset(preset)


def _play(rules: RuleSet, specs: tuple[str, ...], seeds: range) -> int:
    calls = 0
    for seed in seeds:
        inner = [make_bot(spec, seed=seed * 4 + s) for s, spec in enumerate(specs)]
        if rules.players_at_table == 4:
            inner.append(make_bot("random", seed=seed * 4 + 3))
        bots = [Checked(b) for b in inner]
        hand, decisions, _ = play_hand(rules, seed, bots)
        assert hand.over and hand.outcome is not None
        assert sum(hand.outcome.payments) == 0
        assert decisions == [b.calls for b in bots]
        calls += sum(decisions)
    return calls


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_r9_greedy_noisy_random_play_legally(variant: str) -> None:
    assert _play(_rules(variant), ("greedy", "noisy[eps=0.5]", "random"), range(29_000, 29_080)) > 80


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_r9_search_and_the_levels_play_legally(variant: str) -> None:
    rules = _rules(variant)
    assert _play(rules, ("search[worlds=2,candidates=2]", "normal", "beginner"), range(29_100, 29_102)) > 2
    assert _play(rules, ("master", "greedy", "greedy"), range(29_200, 29_201)) > 1  # 大师 as 高手 here


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_r9_hints_at_every_decision(variant: str) -> None:
    rules = _rules(variant)
    asked = 0
    for seed in range(29_300, 29_303):
        hand = Hand(rules, seed=seed)
        greedy = make_bot("greedy")
        while not hand.over:
            seat = hand.deciding[0]
            obs, legal = hand.observation(seat), hand.legal_actions(seat)
            shown = hint(obs)
            assert shown["suggest"] in [str(a) for a in legal]
            asked += 1
            hand.apply(seat, greedy.act(obs, legal))
    assert asked > 3
