"""Difficulty levels (issue #16): 入门 / 普通 / 高手 / 大师 in the bot registry, and the ``noisy`` bot."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from paohuzi.bots import BotError, GreedyBot, NoisyGreedyBot, SearchBot, bot_names, levels, make_bot
from paohuzi.bots.greedy import choose
from paohuzi.bots.scorer import ScorerBot, ScorerSearchBot
from paohuzi.bots.view import read
from paohuzi.cli import main
from paohuzi.engine import ActionKind, Hand
from paohuzi.rules import find_preset


def test_the_four_levels() -> None:
    assert [(lv.key, lv.zh, lv.en, lv.rank) for lv in levels.LEVELS] == [
        ("beginner", "入门", "Beginner", 1),
        ("normal", "普通", "Normal", 2),
        ("expert", "高手", "Expert", 3),
        ("master", "大师", "Master", 4),
    ]
    assert levels.level_keys() == ("beginner", "normal", "expert", "master")
    assert levels.AUTOPLAY == "normal" and levels.AUTOPLAY in levels.level_keys()
    assert set(levels.level_keys()) <= set(bot_names())


def test_level_lookup_by_key_chinese_or_english() -> None:
    for name in ("master", "大师", "Master", " MASTER "):
        assert levels.level(name).key == "master"
    with pytest.raises(BotError, match=r"unknown level 'grandmaster' \(levels: beginner \(入门\), normal"):
        levels.level("grandmaster")


@pytest.mark.parametrize("name", ["beginner", "入门", "normal", "普通", "expert", "高手", "master", "大师"])
def test_levels_are_bots(name: str) -> None:
    bot = make_bot(name, seed=2)
    key = levels.level(name).key
    if key == "beginner":
        assert isinstance(bot, NoisyGreedyBot) and bot.eps == 0.5
    elif key == "normal":
        assert type(bot) is GreedyBot and not bot.useful
    elif key == "expert":
        assert type(bot) is SearchBot and (bot.worlds, bot.time, bot.infer) == (24, 1.0, False)
    else:  # the learned scorer (shipped weights, recorded margin) raced where it is unsure (docs/AI.md §7, §8a),
        # in the families its weights cover (R9: the classic family; levels.ByFamily routes the others)
        assert type(bot) is levels.ByFamily and bot.level.families == ("classic",)
        bot = bot.primary
        assert type(bot) is ScorerSearchBot and (bot.worlds, bot.challengers, bot.gap) == (12, 1, 1.0)
        scorer = bot.scorer
        assert type(scorer) is ScorerBot and (scorer.margin, scorer.k, scorer.model.meta["seed"]) == (0.1, 4, 0)
    assert make_bot(name, seed=2).name == name
    assert levels.make_level_bot(name, seed=2).name == key


def test_levels_to_dict_is_json_ready() -> None:
    data = levels.to_dict()
    assert json.loads(json.dumps(data, ensure_ascii=False)) == data
    assert data[0] == {
        "key": "beginner",
        "zh": "入门",
        "en": "Beginner",
        "rank": 1,
        "blurb_zh": "会胡牌，但常常出错",
        "blurb_en": "takes its wins, but often plays a random card",
    }


def test_simulate_takes_levels(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--bots", "beginner,普通,random", "--hands", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "beginner" in out and "普通" in out


def _decisions(seed: int) -> list[tuple[dict, list]]:  # type: ignore[type-arg]
    hand = Hand(find_preset("qq"), seed=seed)
    greedy = make_bot("greedy", seed=0)
    out = []
    while not hand.over:
        seat = hand.deciding[0]
        obs, legal = hand.observation(seat), hand.legal_actions(seat)
        out.append((obs, legal))
        hand.apply(seat, greedy.act(obs, legal))
    return out


def test_noisy_with_no_noise_is_greedy_and_always_takes_a_win() -> None:
    quiet, loud = NoisyGreedyBot(seed=1, eps=0.0), NoisyGreedyBot(seed=1, eps=1.0)
    wins = 0
    for seed in range(4):
        for obs, legal in _decisions(seed):
            assert quiet.act(obs, legal) == choose(read(obs), legal)[0]
            action = loud.act(obs, legal)
            assert action in legal
            if any(a.kind is ActionKind.HU for a in legal):
                assert action.kind is ActionKind.HU  # 胡 whatever the noise
                wins += 1
    assert wins >= 1
    for bad in (-0.1, 1.5, "x", True):
        with pytest.raises(ValueError, match="eps must be"):
            NoisyGreedyBot(eps=bad)  # type: ignore[arg-type]


def test_levels_without_numpy() -> None:
    """paohuzi.bots runs without numpy; only the master level (the learned scorer) needs it, and says so."""
    code = """
import sys
sys.modules["numpy"] = None  # import numpy now fails, as on a machine without it
from paohuzi.bots import BotError, make_bot
from paohuzi.engine import Hand
from paohuzi.rules import find_preset
hand = Hand(find_preset("qq"), seed=3)
seat = hand.deciding[0]
for name in ("beginner", "normal", "expert", "greedy"):
    make_bot(name, seed=1).act(hand.observation(seat), hand.legal_actions(seat))
for name in ("master", "大师", "scorer", "scorer_search"):
    try:
        make_bot(name)
    except BotError as exc:
        print(name, exc)
assert "numpy" not in sys.modules or sys.modules["numpy"] is None
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["master", "大师", "scorer", "scorer_search"]
    for line in lines:
        assert "the learned scorer needs numpy" in line and "pip install 'paohuzi[server]'" in line
