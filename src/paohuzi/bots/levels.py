"""Difficulty levels (难度) for computer players (issue #16): 入门 / 普通 / 高手 / 大师.

A level is a named bot spec with display names in Chinese and English, so that every place a bot can sit
(quick play, filled seats in rooms, 托管, ``paohuzi simulate --bots``) offers the same choice. The level
keys are registered bot names: ``make_bot("master")``, ``paohuzi simulate --bots master,normal,beginner``;
the Chinese names work too (``make_bot("大师")``).

>>> [(lv.key, lv.zh) for lv in LEVELS]
[('beginner', '入门'), ('normal', '普通'), ('expert', '高手'), ('master', '大师')]
>>> level("高手").spec, level("大师").spec
('search', 'scorer_search[worlds=12,challengers=1,gap=1]')
>>> AUTOPLAY
'normal'

Strength: measured on duplicate deals with ``paohuzi simulate`` (docs/AI.md §7, "Difficulty levels"): each
level beats the one below it significantly. The master level is the strongest bot measured: the learned
scorer's choice (:mod:`paohuzi.bots.scorer`), raced by its runner-up on 12 sampled worlds only where the
network is unsure (``scorer_search[worlds=12,challengers=1,gap=1]``): +0.25 and +0.41 points per hand over
``search`` (8,000 deals for each of two training seeds) at about 5 ms a decision, half of ``search``'s. It
needs numpy, which the ``server`` and ``env`` extras install. It will move to whatever beats it
significantly.

**Families (R9).** The shipped scorer was trained on ``qq`` hands, so the master level plays it only in the
``classic`` family (qq, hunan, hengyang, huayang: :attr:`Level.families`); in a family without weights
(``changde``, ``changde_qmt``, ``shihuka``, ``liuhuqiang``) it plays the expert level's ``search``
(:attr:`Level.fallback`), which plays by the family's points through the engine's own scoring. :func:`plays`
says which:

>>> from paohuzi.rules import find_preset
>>> plays("大师", find_preset("qq")).key, plays("master", find_preset("hunan")).key
('master', 'master')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paohuzi.bots.base import Bot, BotError, make_bot
from paohuzi.bots.view import rules_of
from paohuzi.engine import Action, Observation
from paohuzi.rules import RuleSet

__all__ = ["Level", "LEVELS", "AUTOPLAY", "ByFamily", "level", "level_keys", "make_level_bot", "plays", "to_dict"]


@dataclass(frozen=True, slots=True)
class Level:
    """One difficulty level.

    :ivar key: the stable identifier (a registered bot name): ``beginner``, ``normal``, ``expert``, ``master``.
    :ivar zh: the display name in Chinese; :ivar en: in English.
    :ivar spec: the bot spec it plays (:func:`paohuzi.bots.make_bot`).
    :ivar rank: 1 (weakest) … 4 (strongest).
    :ivar blurb_zh: one line for a picker, in Chinese; :ivar blurb_en: in English.
    :ivar families: the rule-set families (``RuleSet.family``, R9) it plays its own spec in; None: every one.
        The learned scorer's weights were trained on ``qq``: the master level covers the ``classic`` family.
    :ivar fallback: the level (key) played in the other families.
    """

    key: str
    zh: str
    en: str
    spec: str
    rank: int
    blurb_zh: str
    blurb_en: str
    families: tuple[str, ...] | None = None
    fallback: str | None = None

    def covers(self, rules: RuleSet) -> bool:
        """True if this level plays its own spec under ``rules`` (its family has what the spec needs)."""
        return self.families is None or rules.family in self.families

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, for the protocol and the UI; a level that covers only some families (R9) adds
        ``families`` and ``fallback``, so that a client can say which level plays in the others."""
        out: dict[str, Any] = {"key": self.key, "zh": self.zh, "en": self.en, "rank": self.rank,
                               "blurb_zh": self.blurb_zh, "blurb_en": self.blurb_en}
        if self.families is not None:
            out["families"] = list(self.families)
            out["fallback"] = self.fallback
        return out


LEVELS: tuple[Level, ...] = (
    Level("beginner", "入门", "Beginner", "noisy[eps=0.5]", 1,
          "会胡牌，但常常出错", "takes its wins, but often plays a random card"),
    Level("normal", "普通", "Normal", "greedy", 2,
          "按牌面算最优的一步", "plays the best-looking move, one step ahead"),
    Level("expert", "高手", "Expert", "search", 3,
          "先推演几十局，再出牌", "plays sampled hands out before a close choice"),
    Level("master", "大师", "Master", "scorer_search[worlds=12,challengers=1,gap=1]", 4,
          "从几十万局推演中学成，没把握时再推演，最强",
          "learned from hundreds of thousands of played-out hands, and plays a close call out: the strongest",
          families=("classic",), fallback="expert"),
)

#: The level that plays for a player who is away (托管): good and fast (about 1 ms a decision).
AUTOPLAY = "normal"

_BY_NAME = {name: lv for lv in LEVELS for name in (lv.key, lv.zh, lv.en.lower())}


def level_keys() -> tuple[str, ...]:
    """The level keys, weakest first."""
    return tuple(lv.key for lv in LEVELS)


def level(name: str) -> Level:
    """The level named by its key, Chinese name or English name (any case).

    :raises BotError: for an unknown level.
    """
    lv = _BY_NAME.get(name.strip().lower() if isinstance(name, str) else name)
    if lv is None:
        known = ", ".join(f"{x.key} ({x.zh})" for x in LEVELS)
        raise BotError(f"unknown level {name!r} (levels: {known})")
    return lv


def plays(name: str, rules: RuleSet) -> Level:
    """The level whose spec a bot of level ``name`` plays under ``rules``: the level itself, or its
    :attr:`~Level.fallback` (followed until one covers the family) where it does not cover the family.

    :raises BotError: for an unknown level.
    """
    lv = level(name)
    seen = {lv.key}
    while not lv.covers(rules) and lv.fallback is not None and lv.fallback not in seen:
        lv = level(lv.fallback)
        seen.add(lv.key)
    return lv


class ByFamily(Bot):
    """A level's bot that picks, for each hand, the bot of the level that plays its family (:func:`plays`):
    the level's own ``primary`` bot in the families it covers, else the fallback level's bot (made when first
    needed, with the same seed). Composition: both are ordinary bots; this one only routes the observation.

    :ivar primary: the level's own bot; :ivar fallbacks: the fallback bots made so far, by level key.
    """

    def __init__(self, lv: Level, seed: int | None = None) -> None:
        super().__init__(seed)
        self.level = lv
        self.primary = make_bot(lv.spec, seed=seed)  # fails now if it cannot be made (numpy, weights)
        self.fallbacks: dict[str, Bot] = {}
        self.name = lv.key

    def bot_for(self, rules: RuleSet) -> Bot:
        """The bot that plays a hand under ``rules``."""
        lv = plays(self.level.key, rules)
        if lv.key == self.level.key:
            return self.primary
        bot = self.fallbacks.get(lv.key)
        if bot is None:
            bot = self.fallbacks[lv.key] = make_bot(lv.spec, seed=self.seed)
        return bot

    def act(self, observation: Observation, legal: Sequence[Action]) -> Action:
        return self.bot_for(rules_of(observation)).act(observation, legal)

    def new_hand(self) -> None:
        self.primary.new_hand()
        for bot in self.fallbacks.values():
            bot.new_hand()


def make_level_bot(name: str, seed: int | None = None, rules: RuleSet | None = None) -> Bot:
    """A bot playing at the level ``name`` (key, Chinese or English name); its ``name`` is the level key.

    A level that covers only some families (:attr:`Level.families`: the master level's learned weights)
    plays its fallback level's spec in the others (docs/AI.md §7): with ``rules`` given the bot is made for
    that rule set; without, it is a :class:`ByFamily` that decides by each observation's rule set.
    """
    lv = level(name)
    if lv.families is not None:
        if rules is None:
            return ByFamily(lv, seed)
        lv_played = plays(lv.key, rules)
        bot = make_bot(lv_played.spec, seed=seed)
    else:
        bot = make_bot(lv.spec, seed=seed)
    bot.name = lv.key
    return bot


def to_dict() -> list[dict[str, Any]]:
    """Every level, JSON-ready, weakest first (for the protocol and the UI)."""
    return [lv.to_dict() for lv in LEVELS]
