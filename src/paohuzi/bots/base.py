"""The bot interface (issue #4) and the registry of bots by name.

A bot sees only what its seat may see — the observation of :meth:`paohuzi.engine.Hand.observation` (R5)
— and the legal actions, and returns one of those actions. It may remember what it saw between calls
(one bot object plays one seat; :meth:`Bot.new_hand` tells it a new hand begins). No bot is ever given
the engine's :class:`~paohuzi.engine.Hand` or its referee view.

>>> from paohuzi.engine import Hand
>>> from paohuzi.rules import find_preset
>>> hand = Hand(find_preset("qq"), seed=3)
>>> bots = {s: make_bot("random", seed=s) for s in hand.seats}
>>> while not hand.over:
...     seat = hand.deciding[0]
...     _ = hand.apply(seat, bots[seat].act(hand.observation(seat), hand.legal_actions(seat)))
>>> hand.over
True
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from typing import Any, cast

from paohuzi.cards import PaohuziError
from paohuzi.engine import Action, Observation

__all__ = ["Bot", "BotError", "register_bot", "alias_bot", "make_bot", "bot_names", "parse_spec", "split_specs"]


class BotError(PaohuziError):
    """An unknown bot, a bot class that cannot be loaded, or bad bot options."""


class Bot:
    """Base class of the bots. Subclasses implement :meth:`act`.

    :param seed: seeds the bot's own random generator (bots are reproducible given their seed and inputs).
    :ivar name: the spec the bot was made from (``greedy``, ``search[time=0.3]`` …), for tables and logs.
    """

    name: str = "bot"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def act(self, observation: Observation, legal: Sequence[Action]) -> Action:
        """Choose one of ``legal`` (never empty) for the seat whose ``observation`` this is."""
        raise NotImplementedError

    def new_hand(self) -> None:
        """A new hand begins: forget what was remembered about the last one. The default keeps nothing."""

    def __repr__(self) -> str:
        return f"make_bot({self.name!r}, seed={self.seed!r})"


_Factory = Callable[..., Bot]
_REGISTRY: dict[str, _Factory] = {}


def register_bot(name: str, factory: _Factory) -> None:
    """Make ``make_bot(name)`` build bots with ``factory(seed=..., **options)``."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise BotError(f"a bot name is lowercase letters, digits and _, got {name!r}")
    _REGISTRY[name] = factory


def bot_names() -> tuple[str, ...]:
    """The registered bot names."""
    return tuple(sorted(_REGISTRY))


_SPEC = re.compile(r"^\s*(?P<name>[^\W\d][\w.]*(?::[A-Za-z_]\w*)?)\s*(?:\[(?P<opts>[^\]]*)\])?\s*$")
_ALIASES: dict[str, str] = {}


def alias_bot(alias: str, name: str) -> None:
    """Make ``make_bot(alias)`` build the registered bot ``name`` (the Chinese names of the levels)."""
    if name not in _REGISTRY:
        raise BotError(f"cannot alias {alias!r} to unknown bot {name!r}")
    _ALIASES[alias] = name


def _value(text: str) -> Any:
    text = text.strip()
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split a bot spec into its name and options: ``search[time=0.3,iterations=40]``.

    The name is a registered bot or ``module.path:ClassName``. Option values are read as bool, int, float
    or text.

    :raises BotError: for a malformed spec.

    >>> parse_spec("search[time=0.3, rollouts=40]")
    ('search', {'time': 0.3, 'rollouts': 40})
    >>> parse_spec("mymodule.bots:MyBot")
    ('mymodule.bots:MyBot', {})
    """
    m = _SPEC.match(spec) if isinstance(spec, str) else None
    if m is None:
        raise BotError(f"bad bot spec {spec!r} (expected name, name[key=value,...] or module.path:ClassName)")
    options: dict[str, Any] = {}
    if m.group("opts"):
        for part in m.group("opts").split(","):
            if not part.strip():
                continue
            key, eq, value = part.partition("=")
            if not eq or not key.strip().isidentifier():
                raise BotError(f"bad bot option {part.strip()!r} in {spec!r} (expected key=value)")
            options[key.strip()] = _value(value)
    return m.group("name"), options


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of bot specs, keeping the commas inside ``[...]``.

    >>> split_specs("search[time=0.2,rollouts=8],greedy, random")
    ['search[time=0.2,rollouts=8]', 'greedy', 'random']
    """
    out, depth, current = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += ch
    out.append(current.strip())
    return [s for s in out if s]


def _load(name: str) -> _Factory:
    factory = _REGISTRY.get(_ALIASES.get(name, name))
    if factory is not None:
        return factory
    if ":" not in name:
        known = ", ".join(bot_names())
        raise BotError(f"unknown bot {name!r} (known: {known}; or give module.path:ClassName)")
    module_name, _, attr = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BotError(f"cannot import bot module {module_name!r}: {exc}") from None
    factory = getattr(module, attr, None)
    if factory is None or not callable(factory):
        raise BotError(f"module {module_name!r} has no bot class {attr!r}")
    return cast("Callable[..., Bot]", factory)


def make_bot(spec: str, seed: int | None = None, **options: Any) -> Bot:
    """Build a bot from a spec: a registered name (``random``, ``greedy``, ``search``), optionally with
    options in brackets (``search[time=0.3]``), or ``module.path:ClassName`` for an outside bot class.

    An outside class is called as ``ClassName(seed=seed, **options)`` (or ``ClassName()`` if it takes no
    arguments) and must have ``act(observation, legal) -> Action``.

    :raises BotError: for an unknown bot, a class that cannot be loaded or options it does not take.

    >>> make_bot("greedy", seed=1).name, make_bot("search[time=0.2]").name
    ('greedy', 'search[time=0.2]')
    """
    name, spec_options = parse_spec(spec)
    factory = _load(name)
    merged = {**spec_options, **options}
    try:
        bot = factory(seed=seed, **merged)
    except TypeError as exc:
        if merged or ":" not in name:
            raise BotError(f"bot {name!r} does not take these options {sorted(merged)}: {exc}") from None
        bot = factory()
    if not callable(getattr(bot, "act", None)):
        raise BotError(f"{name!r} made {bot!r}, which has no act(observation, legal) method")
    try:
        bot.name = spec.strip()
    except AttributeError:
        pass
    return bot
