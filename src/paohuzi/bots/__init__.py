"""Computer players (issue #4): the bot interface, the registry and the bots ``random``, ``greedy``, ``search``,
``noisy``, the learned ``scorer`` and ``scorer_search`` (numpy, :mod:`paohuzi.bots.scorer`), and the difficulty
levels ``beginner`` ``normal`` ``expert`` ``master`` (入门 普通 高手 大师, :mod:`paohuzi.bots.levels`).

>>> from paohuzi.bots import make_bot
>>> bot = make_bot("greedy", seed=1)
>>> bot.name
'greedy'

A bot gets only its seat's observation (R5) and the legal actions: ``bot.act(observation, legal) ->
Action``. ``make_bot("module.path:ClassName")`` loads a bot class from outside the package. See
``docs/AI.md`` for how the bots play and how strong they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paohuzi.bots import levels
from paohuzi.bots.base import Bot, BotError, alias_bot, bot_names, make_bot, parse_spec, register_bot, split_specs
from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.noisy import NoisyGreedyBot
from paohuzi.bots.random_bot import RandomBot
from paohuzi.bots.search import SearchBot

__all__ = ["Bot", "BotError", "make_bot", "register_bot", "alias_bot", "bot_names", "parse_spec", "split_specs",
           "RandomBot", "GreedyBot", "SearchBot", "NoisyGreedyBot", "levels"]

register_bot("random", RandomBot)
register_bot("greedy", GreedyBot)
register_bot("search", SearchBot)
register_bot("noisy", NoisyGreedyBot)


def _scorer_factory(attr: str) -> Callable[..., Bot]:
    """The learned bots need numpy, which the rest of the package does not: import them when first made."""

    def factory(seed: int | None = None, **options: Any) -> Bot:
        try:
            from paohuzi.bots import scorer
        except ImportError as exc:
            raise BotError(f"the learned scorer needs numpy ({exc}); install it with pip install 'paohuzi[server]' "
                           "or 'paohuzi[env]'") from None
        bot: Bot = getattr(scorer, attr)(seed=seed, **options)
        return bot

    return factory


register_bot("scorer", _scorer_factory("ScorerBot"))
register_bot("scorer_search", _scorer_factory("ScorerSearchBot"))


def _level_factory(key: str) -> Callable[..., Bot]:
    def factory(seed: int | None = None) -> Bot:
        return levels.make_level_bot(key, seed=seed)

    return factory


for _level in levels.LEVELS:  # the difficulty levels are bot names too: make_bot("master"), make_bot("大师")
    register_bot(_level.key, _level_factory(_level.key))
    alias_bot(_level.zh, _level.key)
