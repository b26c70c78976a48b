"""R4.4/R4.7 claim windows: 忍碰 when a seat answers its own 碰 with a 吃 that loses to priority — a scripted
case first found by the brute-force cross-check (test_r4_r6_1_oracle_crosscheck.py, oracle in oracle.py)."""

from __future__ import annotations

import pytest

from paohuzi.rules import RuleSet

from .helpers import HUNAN, QQ, deal, legal, play

# Seat 1 draws x4 and may 吃 it with x2 x3; its 下家 seat 2 holds x4 x4 (碰) and may also 吃 it.
CHI_OVER_OWN_PENG = {
    1: "x5 x5 x5 x7 x7 x7 d1 d1 d1 d2 d2 d2 x2 x3 d9 d10 x9 x1 x8 d7",
    2: "x6 x6 x6 x9 x9 x9 d7 d7 d7 d8 d8 d8 x4 x4 d4 x2 x3 x10 d2 x10",
}


@pytest.mark.parametrize("rules", [QQ, HUNAN], ids=["qq", "hunan"])
def test_r4_7_chi_chosen_over_own_peng_that_loses_to_the_drawers_chi_is_renpeng(rules: RuleSet) -> None:
    hand = deal(CHI_OVER_OWN_PENG, stock="x4", rules=rules)
    assert play(hand, "0: discard x8")[-2:] == ["draw 1 x4", "show 1 x4"]
    assert legal(hand, 1) == ["chi x2 x3", "pass"]
    assert legal(hand, 2) == ["peng", "chi x2 x3 | bi x4 x4 d4", "chi x4 d4 | bi x2 x3 x4", "pass"]
    # Seat 2 prefers 吃 to its 碰; the drawer's 吃 has priority over the 下家's (R4.4).
    events = play(hand, "2: chi x4 d4 | bi x2 x3 x4", "1: chi x2 x3")
    # R4.7 decision (reversed in issue 11): answering one's 碰 with 吃 declines the 碰 (忍碰), whatever becomes
    # of the 吃 — here it lost to the drawer's 吃. Its lost 吃 is not 臭 (lost to priority).
    blocks = rules.chou_blocks_peng
    assert events[:2] == ["chou 2 x4 peng renpeng" if blocks else "chou 2 x4 renpeng", "chi 1 x4 from 1 as x2 x3 x4"]
    assert hand.observation(2).to_dict()["chou"] == {"chi": [], "peng": ["x4"] if blocks else [], "renpeng": ["x4"]}
