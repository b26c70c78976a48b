"""Computer players (issue #4): the bot interface, the registry and the bots ``random``, ``greedy``, ``search``.

>>> from paohuzi.bots import make_bot
>>> bot = make_bot("greedy", seed=1)
>>> bot.name
'greedy'

A bot gets only its seat's observation (R5) and the legal actions: ``bot.act(observation, legal) ->
Action``. ``make_bot("module.path:ClassName")`` loads a bot class from outside the package. See
``docs/AI.md`` for how the bots play and how strong they are.
"""

from __future__ import annotations

from paohuzi.bots.base import Bot, BotError, bot_names, make_bot, parse_spec, register_bot, split_specs
from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.random_bot import RandomBot
from paohuzi.bots.search import SearchBot

__all__ = ["Bot", "BotError", "make_bot", "register_bot", "bot_names", "parse_spec", "split_specs",
           "RandomBot", "GreedyBot", "SearchBot"]

register_bot("random", RandomBot)
register_bot("greedy", GreedyBot)
register_bot("search", SearchBot)
