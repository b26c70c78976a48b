"""R9.3 衡阳六胡抢 before the engine plays it (issue 30, part 1): its hands are refused with the reason, never
played by R2's 21-card, three-player deal."""

from __future__ import annotations

import pytest

from paohuzi.engine import EngineError, Hand, Match, MatchError, unplayable
from paohuzi.rules import find_preset, preset_names


def test_r9_3_a_liuhuqiang_hand_or_match_is_refused_naming_the_rules() -> None:
    rules = find_preset("liuhuqiang")
    reason = unplayable(rules)
    assert reason is not None and "liuhuqiang" in reason and "15-card" in reason
    with pytest.raises(EngineError, match="liuhuqiang rules .* not playable yet"):
        Hand(rules, 1)
    with pytest.raises(MatchError, match="liuhuqiang rules .* not playable yet"):
        Match(rules, 1)


def test_every_other_preset_is_playable() -> None:
    assert [n for n in preset_names() if unplayable(find_preset(n)) is not None] == ["liuhuqiang"]
