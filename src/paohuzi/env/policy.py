"""Plug a policy over the environment's tensors into the bot interface (``paohuzi simulate``, the server).

A trained policy maps (observation tensor, action mask) to an action ID. :class:`PolicyBot` turns it into
a :class:`~paohuzi.bots.Bot`: ``act(observation, legal)`` featurizes the seat's observation dict exactly as
the environment does, asks :meth:`PolicyBot.policy` for an ID and decodes it to the engine action. A
subclass in any importable module can then be named as a bot: ``make_bot("mymodule:MyBot")``, or
``paohuzi simulate --bots mymodule:MyBot,greedy,greedy``.

>>> import numpy as np
>>> from paohuzi.engine import Hand
>>> from paohuzi.rules import find_preset
>>> class FirstLegal(PolicyBot):
...     def policy(self, observation, mask):
...         return int(np.flatnonzero(mask)[0])
>>> hand = Hand(find_preset("qq"), seed=3)
>>> seat = hand.deciding[0]
>>> FirstLegal(seed=0).act(hand.observation(seat), hand.legal_actions(seat))
Action.parse('discard x1')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from paohuzi.bots import Bot, BotError
from paohuzi.engine import Action, Observation
from paohuzi.env.actions import ActionEncodingError, action_name, decode
from paohuzi.env.features import action_mask, featurize, pending_card

__all__ = ["PolicyBot", "MaskedRandomBot", "FunctionPolicyBot"]


class PolicyBot(Bot):
    """A bot driven by a policy over the environment's observation tensor and action mask.

    Subclasses implement :meth:`policy`. ``seed`` seeds :attr:`rng`, a ``numpy`` generator for sampling.
    """

    name = "policy"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.rng = np.random.default_rng(seed)

    def policy(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The action ID to play: ``mask[id]`` must be 1."""
        raise NotImplementedError

    def act(self, observation: Observation, legal: Sequence[Action]) -> Action:
        """The engine action of :meth:`policy`'s choice.

        :raises BotError: if the policy chose an ID that is not legal.
        """
        mask = action_mask(observation)
        choice = self.policy(featurize(observation), mask)
        try:
            action = decode(int(choice), pending_card(observation), bool(observation.options.get("yiwushi")))
        except (ActionEncodingError, TypeError, ValueError) as exc:
            raise BotError(f"{self.name}: policy chose {choice!r}: {exc}") from None
        if action not in legal:
            name = action_name(int(choice))
            raise BotError(f"{self.name}: policy chose ID {choice} ({name}), not legal now")
        return action


class MaskedRandomBot(PolicyBot):
    """A uniformly random legal action ID: the environment's random agent as a bot (a baseline and a test
    of the plumbing). ``make_bot("paohuzi.env.policy:MaskedRandomBot", seed=1)``."""

    name = "masked_random"

    def policy(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return int(self.rng.choice(np.flatnonzero(mask)))


class FunctionPolicyBot(PolicyBot):
    """A bot driven by a policy callable ``fn(observation, action_mask) -> action ID`` (numpy arrays, as
    the environment gives them): how a snapshot of a learner plays the other seats (self-play).

    >>> import numpy as np
    >>> from paohuzi.engine import Hand
    >>> from paohuzi.rules import find_preset
    >>> bot = FunctionPolicyBot(lambda observation, mask: int(np.flatnonzero(mask)[-1]))
    >>> hand = Hand(find_preset("qq"), seed=3)
    >>> seat = hand.deciding[0]
    >>> bot.act(hand.observation(seat), hand.legal_actions(seat))
    Action.parse('discard d7')
    """

    name = "policy_function"

    def __init__(self, fn: Callable[[np.ndarray, np.ndarray], Any], seed: int | None = None) -> None:
        super().__init__(seed)
        if not callable(fn):
            raise BotError(f"a policy is a callable (observation, mask) -> action ID, got {fn!r}")
        self.fn = fn
        self.name = getattr(fn, "__name__", self.name)

    def policy(self, observation: np.ndarray, mask: np.ndarray) -> int:
        choice = self.fn(observation, mask)
        if isinstance(choice, np.ndarray) and choice.size == 1:  # model.predict returns an array
            choice = choice.item()
        try:
            return int(choice)
        except (TypeError, ValueError):
            raise BotError(f"{self.name}: the policy returned {choice!r}, not an action ID") from None
