"""R4.2–R4.7 and R6.1: a brute-force cross-check of the engine's decisions against an independent oracle
(tests/engine/oracle.py) over random hands of every preset, four_players and win_on_discard:

- every claim window (R4.3–R4.5): exactly the seats with a real choice are asked, each with exactly the
  legal 胡/碰/吃 (every distinct 比) and 过; a window the engine closes unasked has no option for anyone;
- 臭 after every window (R4.7) equals the oracle's record (declined 吃/碰, priority, chou_blocks_peng);
- discards (R4.6): the seat owing one is asked with every non-坎 kind when it has two or more;
- draws (R4.2): a card the drawer must 提/偎 is never shown; after a forced 提/偎 a complete drawer is asked;
- 胡 (R6.1): on part of the hands, every 胡 check against an independent recursive completeness test.
"""

from __future__ import annotations

import random

import pytest

from paohuzi.rules import find_preset

from .oracle import play_checked

CONFIGS = {
    "qq": find_preset("qq"),
    "hengyang": find_preset("hengyang"),
    "hunan": find_preset("hunan"),
    "huayang": find_preset("huayang"),
    "hunan-four": find_preset("hunan").with_options(four_players=True),
    "qq-win-on-discard": find_preset("qq").with_options(win_on_discard=True),
}
HANDS = 60


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_r4_r6_1_engine_decisions_match_the_oracle(name: str) -> None:
    rules = CONFIGS[name]
    problems: list[str] = []
    for seed in range(HANDS):
        rng = random.Random(seed)
        hand = play_checked(rules, 1000 + seed, rng, pass_bias=0.6 if seed % 2 else 0.0, r61=seed % 6 == 0)
        problems += [f"seed {1000 + seed}: {p}" for p in hand.problems]
    assert not problems, "\n".join(problems[:10])
