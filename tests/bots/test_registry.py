"""The bot interface and registry (issue #4): ``make_bot(spec, seed=...)``, options, outside classes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from paohuzi.bots import Bot, BotError, GreedyBot, RandomBot, SearchBot, bot_names, make_bot, parse_spec, split_specs
from paohuzi.engine import Action, Hand
from paohuzi.rules import find_preset


def test_registered_bots() -> None:
    assert {"random", "greedy", "search"} <= set(bot_names())
    assert isinstance(make_bot("random", seed=1), RandomBot)
    assert isinstance(make_bot("greedy", seed=1), GreedyBot)
    assert isinstance(make_bot("search", seed=1), SearchBot)


def test_options_in_brackets_and_keywords() -> None:
    bot = make_bot("search[worlds=5, time=0.25, z=0.5]", seed=3)
    assert isinstance(bot, SearchBot)
    assert (bot.worlds, bot.time, bot.z, bot.name) == (5, 0.25, 0.5, "search[worlds=5, time=0.25, z=0.5]")
    assert make_bot("search", worlds=2).worlds == 2
    assert make_bot("greedy[useful=false]").useful is False


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nosuchbot", "unknown bot 'nosuchbot'"),
        ("greedy[depth=3]", "does not take these options"),
        ("search[worlds=0]", "worlds must be"),
        ("greedy[", "bad bot spec"),
        ("greedy[=3]", "bad bot option"),
        ("no.such.module:Bot", "cannot import bot module"),
        ("paohuzi.bots:NoSuchBot", "has no bot class"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises((BotError, ValueError), match=message):
        make_bot(spec)


def test_parse_and_split_specs() -> None:
    assert parse_spec("greedy") == ("greedy", {})
    assert parse_spec("x.y:Z[a=1,b=off,c=text]") == ("x.y:Z", {"a": 1, "b": False, "c": "text"})
    assert split_specs("search[worlds=4,time=1],greedy,random") == ["search[worlds=4,time=1]", "greedy", "random"]


OUTSIDE = '''
from paohuzi.engine import ActionKind

class LastBot:
    """An outside bot: always the last legal action (never 胡 unless it is last)."""
    def __init__(self, seed=None, bias=0):
        self.seed, self.bias = seed, bias
    def act(self, observation, legal):
        assert observation.hand and observation.deciding
        return legal[-1]

class NoArgs:
    def act(self, observation, legal):
        return legal[0]
'''


def test_outside_bot_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_outside_bots.py").write_text(OUTSIDE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        bot = make_bot("my_outside_bots:LastBot[bias=2]", seed=9)
        assert (bot.seed, bot.bias, bot.name) == (9, 2, "my_outside_bots:LastBot[bias=2]")
        plain = make_bot("my_outside_bots:NoArgs", seed=1)
        hand = Hand(find_preset("qq"), seed=5)
        seat = hand.deciding[0]
        legal = hand.legal_actions(seat)
        assert bot.act(hand.observation(seat), legal) == legal[-1]
        assert plain.act(hand.observation(seat), legal) == legal[0]
    finally:
        sys.modules.pop("my_outside_bots", None)


def test_base_class_contract() -> None:
    class Plain(Bot):
        def act(self, observation, legal):  # type: ignore[no-untyped-def]
            return legal[0]

    bot = Plain(seed=4)
    bot.new_hand()
    assert bot.seed == 4 and repr(bot) == "make_bot('bot', seed=4)"
    with pytest.raises(NotImplementedError):
        Bot().act({}, [Action.parse("pass")])
