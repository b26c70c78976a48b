"""``learned``: a small neural policy over the environment's tensors, run with numpy alone (issue #16).

A two-layer perceptron: ``logits = W2 · relu(W1 · x + b1) + b2`` over the 115 action IDs, illegal IDs
masked out, where ``x`` is the observation tensor scaled to [0, 1]. The shipped weights
(``weights/distilled_greedy.npz``) are trained by ``examples/distill.py`` to imitate ``greedy`` (behaviour
cloning on greedy's own decisions): a first learned agent, fast (well under a millisecond a decision),
and a starting point for self-play; the figures are in docs/AI.md §8. No deep-learning framework is used,
at training or at run time.

    paohuzi simulate --bots "paohuzi.env.learned:LearnedBot,greedy,random"
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from paohuzi.env.actions import NUM_ACTIONS
from paohuzi.env.features import OBSERVATION_HIGH, OBSERVATION_SIZE
from paohuzi.env.policy import PolicyBot

__all__ = ["MLP", "LearnedBot", "DEFAULT_WEIGHTS"]

#: The weights shipped with the package (``examples/distill.py``'s output).
DEFAULT_WEIGHTS = Path(__file__).resolve().parent / "weights" / "distilled_greedy.npz"
_SCALE = (1.0 / OBSERVATION_HIGH).astype(np.float32)


class MLP:
    """The policy network: ``W1`` (hidden × 606), ``b1``, ``W2`` (115 × hidden), ``b2``, float32."""

    def __init__(self, W1: np.ndarray, b1: np.ndarray, W2: np.ndarray, b2: np.ndarray,
                 meta: dict[str, Any] | None = None) -> None:
        hidden = W1.shape[0]
        if W1.shape != (hidden, OBSERVATION_SIZE) or b1.shape != (hidden,) or W2.shape != (NUM_ACTIONS, hidden) \
                or b2.shape != (NUM_ACTIONS,):
            raise ValueError(f"weights of the wrong shapes: W1 {W1.shape}, b1 {b1.shape}, W2 {W2.shape}, b2 {b2.shape}")
        self.W1, self.b1, self.W2, self.b2 = (np.asarray(a, np.float32) for a in (W1, b1, W2, b2))
        self.meta = dict(meta or {})

    @classmethod
    def init(cls, hidden: int, rng: np.random.Generator) -> MLP:
        """Random weights (He initialisation) for training."""
        W1 = rng.normal(0, np.sqrt(2 / OBSERVATION_SIZE), (hidden, OBSERVATION_SIZE)).astype(np.float32)
        W2 = rng.normal(0, np.sqrt(1 / hidden), (NUM_ACTIONS, hidden)).astype(np.float32)
        return cls(W1, np.zeros(hidden, np.float32), W2, np.zeros(NUM_ACTIONS, np.float32))

    @classmethod
    def load(cls, path: str | Path = DEFAULT_WEIGHTS) -> MLP:
        with np.load(path) as data:
            meta = {k[5:]: data[k].item() for k in data.files if k.startswith("meta_")}
            return cls(data["W1"], data["b1"], data["W2"], data["b2"], meta)

    def save(self, path: str | Path) -> None:
        arrays: dict[str, Any] = {"W1": self.W1, "b1": self.b1, "W2": self.W2, "b2": self.b2}
        arrays.update({f"meta_{k}": np.asarray(v) for k, v in self.meta.items()})
        np.savez_compressed(path, **arrays)

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Logits for a batch ``(n, 606)`` or one observation ``(606,)`` of raw tensors (scaled here)."""
        h = np.maximum(self.W1 @ (x * _SCALE).T + self.b1[:, None], 0.0) if x.ndim == 2 else \
            np.maximum(self.W1 @ (x * _SCALE) + self.b1, 0.0)
        if x.ndim == 2:
            return (self.W2 @ h + self.b2[:, None]).T
        return self.W2 @ h + self.b2

    def choose(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The legal ID with the highest logit."""
        return int(np.argmax(np.where(mask.astype(bool), self.logits(observation), -np.inf)))


_CACHE: dict[str, MLP] = {}


class LearnedBot(PolicyBot):
    """The learned policy as a bot (greedy choice of the highest legal logit).

    :param weights: an ``.npz`` of :class:`MLP` weights; the shipped ones by default.
    """

    name = "learned"

    def __init__(self, seed: int | None = None, weights: str | None = None) -> None:
        super().__init__(seed)
        path = str(weights or DEFAULT_WEIGHTS)
        if path not in _CACHE:
            _CACHE[path] = MLP.load(path)
        self.model = _CACHE[path]

    def policy(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return self.model.choose(observation, mask)
