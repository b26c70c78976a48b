"""``noisy``: greedy with mistakes — a beginner's level (入门, :mod:`paohuzi.bots.levels`).

At each decision with a choice it plays a uniformly random legal action with probability ``eps`` and
greedy's choice otherwise. A 胡 on offer is always taken (a beginner still knows a win when it sees one).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from paohuzi.bots import greedy
from paohuzi.bots.base import Bot
from paohuzi.bots.view import read
from paohuzi.engine import Action, ActionKind, Observation

__all__ = ["NoisyGreedyBot"]


class NoisyGreedyBot(Bot):
    """Greedy, except for a random legal action with probability ``eps`` (0 ≤ eps ≤ 1)."""

    name = "noisy"

    def __init__(self, seed: int | None = None, *, eps: float = 0.3) -> None:
        super().__init__(seed)
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 <= eps <= 1:
            raise ValueError(f"eps must be a number between 0 and 1, got {eps!r}")
        self.eps = float(eps)
        self._rng = random.Random(seed)

    def act(self, observation: Observation, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        for a in legal:
            if a.kind is ActionKind.HU:
                return a
        if self._rng.random() < self.eps:
            return legal[self._rng.randrange(len(legal))]
        return greedy.choose(read(observation), legal)[0]
