"""The difficulty levels in the regional families (R9, issue 29 item 4): 大师's learned scorer was trained on
``qq`` hands, so in a family without weights the master level plays the expert level's ``search``
(docs/AI.md §7, "Families"); the other levels play the same spec in every family."""

from __future__ import annotations

import pickle

import pytest

from paohuzi.bots import SearchBot, levels, make_bot
from paohuzi.bots.scorer import ScorerSearchBot
from paohuzi.engine import Hand
from paohuzi.rules import find_preset

CLASSIC = ("qq", "hunan", "hengyang", "huayang")
REGIONAL = ("changde", "changde_qmt", "shihuka")


@pytest.mark.parametrize("preset", CLASSIC + REGIONAL)
def test_r9_which_level_plays(preset: str) -> None:
    rules = find_preset(preset)
    master = "master" if preset in CLASSIC else "expert"  # the weights cover the classic family only
    assert levels.plays("大师", rules).key == master
    assert levels.plays("master", rules).key == master
    for key in ("beginner", "normal", "expert"):
        assert levels.plays(key, rules).key == key


@pytest.mark.parametrize("preset", REGIONAL)
def test_r9_master_is_made_as_expert_for_a_family_without_weights(preset: str) -> None:
    bot = levels.make_level_bot("大师", seed=5, rules=find_preset(preset))
    assert type(bot) is SearchBot and (bot.worlds, bot.time, bot.infer) == (24, 1.0, False)
    assert bot.name == "master"
    classic = levels.make_level_bot("master", seed=5, rules=find_preset("qq"))
    assert type(classic) is ScorerSearchBot and (classic.worlds, classic.challengers, classic.gap) == (12, 1, 1.0)


def test_r9_master_routes_each_hand_by_its_family() -> None:
    """make_bot("master") (what the server seats) decides by each observation's rule set: the scorer in a
    classic hand, one search bot (made once, with the same seed) in every hand of another family."""
    bot = make_bot("master", seed=7)
    assert isinstance(bot, levels.ByFamily)
    assert bot.bot_for(find_preset("qq")) is bot.primary and bot.bot_for(find_preset("hunan")) is bot.primary
    assert bot.fallbacks == {}
    for preset in REGIONAL:
        hand = Hand(find_preset(preset), seed=11)
        seat = hand.deciding[0]
        obs, legal = hand.observation(seat), hand.legal_actions(seat)
        action = bot.act(obs, legal)
        assert action in legal
        assert list(bot.fallbacks) == ["expert"]
        fallback = bot.fallbacks["expert"]
        assert type(fallback) is SearchBot and fallback.seed == 7 and fallback.worlds == 24
        assert bot.bot_for(find_preset(preset)) is fallback
    hand = Hand(find_preset("qq"), seed=11)
    seat = hand.deciding[0]
    assert bot.act(hand.observation(seat), hand.legal_actions(seat)) in hand.legal_actions(seat)
    assert list(bot.fallbacks) == ["expert"]
    bot.new_hand()  # reaches both


def test_r9_the_levels_json_says_where_master_falls_back() -> None:
    data = levels.to_dict()
    assert data[3]["key"] == "master" and (data[3]["families"], data[3]["fallback"]) == (["classic"], "expert")
    assert all("families" not in lv and "fallback" not in lv for lv in data[:3])  # as before issue 29


def test_r9_master_pickles_with_its_fallback() -> None:
    """The server's bot pool sends a seat's bot to a worker process with each decision (pickle)."""
    bot = make_bot("大师", seed=3)
    hand = Hand(find_preset("changde"), seed=1)
    seat = hand.deciding[0]
    legal = hand.legal_actions(seat)
    assert bot.act(hand.observation(seat), legal) in legal
    copy = pickle.loads(pickle.dumps(bot))
    assert isinstance(copy, levels.ByFamily) and copy.name == "大师" and list(copy.fallbacks) == ["expert"]
    assert type(copy.fallbacks["expert"]) is SearchBot and copy.fallbacks["expert"].seed == 3
    assert copy.act(hand.observation(seat), legal) in legal
