"""``random``: a uniformly random legal action — the baseline every other bot must beat."""

from __future__ import annotations

import random
from collections.abc import Sequence

from paohuzi.bots.base import Bot
from paohuzi.engine import Action, Observation

__all__ = ["RandomBot"]


class RandomBot(Bot):
    """Plays a uniformly random legal action (its own seeded generator)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._rng = random.Random(seed)

    def act(self, observation: Observation, legal: Sequence[Action]) -> Action:
        return legal[self._rng.randrange(len(legal))]
