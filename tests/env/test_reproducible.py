"""The hazards of issue 36 for a learner: no seed in ``info`` that deals the hidden cards (unless asked for, with a
word on what it reveals), opponents that a seed reproduces (a search bot's budget is a count of worlds, a time
budget warns), and ``simulate --help`` naming the bots and levels."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from paohuzi.bots.levels import ByFamily
from paohuzi.cli import main
from paohuzi.engine import Hand
from paohuzi.env import gym_env
from paohuzi.env.single import opponent_bot, time_capped
from paohuzi.rules import find_preset


def play(env: object, seed: int) -> tuple[list[int], list[dict[str, object]]]:
    """One episode with the lowest legal ID each time: the learner's IDs and every info."""
    obs, info = env.reset(seed=seed)  # type: ignore[attr-defined]
    ids, infos, done = [], [info], False
    while not done:
        action = int(np.flatnonzero(obs["action_mask"])[0])
        ids.append(action)
        obs, _, done, _, info = env.step(action)  # type: ignore[attr-defined]
        infos.append(info)
    return ids, infos


def test_info_has_no_seed() -> None:
    _, infos = play(gym_env(opponents="random"), 3)
    assert all("hand_seed" not in i for i in infos)
    assert set(infos[0]) == {"seat"} and "outcome" in infos[-1]


def test_debug_seed_gives_the_seed_that_deals_every_card() -> None:
    """With ``debug_seed=True`` (documented as revealing every hidden card) the seed deals the very hand."""
    g = gym_env(opponents="random", debug_seed=True)
    _, info = g.reset(seed=3)
    dealt = Hand(g.rules, seed=info["hand_seed"])
    assert dealt.dealt() == g.hand.dealt()  # every hand and the stock: what a learner must not read


@pytest.mark.parametrize(("spec", "rules"), [("search", "qq"), ("expert", "qq"), ("search[worlds=6]", "qq"),
                                           ("master", "qq"), ("master", "liuhuqiang")])
def test_search_opponents_search_a_count_of_worlds(spec: str, rules: str) -> None:
    """Every searching bot an environment makes: worlds, no time (the master level's 六胡抢 fallback, expert's
    search, included)."""
    ruleset = find_preset(rules)
    bot: Any = opponent_bot(spec, 7, ruleset)
    plays = bot.bot_for(ruleset) if isinstance(bot, ByFamily) else bot
    assert plays.time is None and plays.worlds >= 1
    assert not time_capped(spec)


def test_a_time_budget_warns_that_the_seed_does_not_reproduce_it() -> None:
    assert time_capped("search[time=0.05]") and time_capped("search[worlds=4,time=0.2]")
    with pytest.warns(UserWarning, match=r"'search\[time=0.05\]' stops searching after a time: .* the seed does not"):
        gym_env(opponents="search[time=0.05],random")
    assert opponent_bot("search[time=0.05]", 1).time == 0.05  # type: ignore[attr-defined]


def test_search_opponents_replay_from_the_seed() -> None:
    """The same seed gives the same episode against ``search`` (no time cap to depend on the machine)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = play(gym_env(opponents="search[worlds=4],random", seat=0), 11)
        b = play(gym_env(opponents="search[worlds=4],random", seat=0), 11)
    assert a == b


def test_simulate_help_lists_the_bots_and_levels(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = capsys.readouterr().out
    assert "bots: beginner, expert, greedy, master, noisy, normal, random, scorer, scorer_search, search" in out
    levels = ("  beginner (入门, Beginner): noisy[eps=0.5]", "  normal (普通, Normal): greedy",
              "  expert (高手, Expert): search",
              "  master (大师, Master): scorer_search[worlds=12,challengers=1,gap=1]")
    for line in levels:
        assert line in out.splitlines()
    assert "the seed then no longer reproduces it" in out
