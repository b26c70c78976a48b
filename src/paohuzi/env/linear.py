"""``linear``: a linear softmax policy over the environment's tensors, numpy only, and the shipped checkpoint.

logits = W · x + b over the action IDs (illegal IDs masked out), x the observation tensor scaled to [0, 1]
(÷ :data:`~paohuzi.env.features.OBSERVATION_HIGH`). ``examples/env_train.py`` trains it with REINFORCE against
bots (docs/env.md "Training a small policy"); the checkpoint shipped in ``weights/linear.npz`` (280 kB) is its
output for 30,000 hands against ``random``:

    PYTHONPATH=src python examples/env_train.py --hands 30000 --eval 0 --out src/paohuzi/env/weights/linear.npz

Its evaluation (:func:`paohuzi.env.evaluate`) is in docs/env.md "Baselines" and ``docs/baselines.json``.

>>> import numpy as np
>>> policy = LinearPolicy.load()
>>> mask = np.zeros(115, np.int8); mask[[3, 20]] = 1
>>> policy(np.zeros(606, np.float32), mask) in (3, 20)
True

As a bot: ``paohuzi simulate --bots "paohuzi.env.linear:LinearBot,random,random"`` (``LinearBot[sample=1]``
samples from the softmax instead of playing the most probable legal ID; ``[weights=path.npz]`` another file).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from paohuzi.bots.base import BotError
from paohuzi.env.actions import NUM_ACTIONS
from paohuzi.env.features import OBSERVATION_HIGH, OBSERVATION_SIZE
from paohuzi.env.policy import PolicyBot

__all__ = ["LinearPolicy", "LinearBot", "CHECKPOINT", "SCALE"]

#: The checkpoint shipped with the package.
CHECKPOINT = Path(__file__).resolve().parent / "weights" / "linear.npz"
#: The tensor's scaling to [0, 1].
SCALE = (1.0 / OBSERVATION_HIGH).astype(np.float32)


class LinearPolicy:
    """A masked softmax over ``W · x + b`` (``W``: 115 × 606, ``b``: 115, float32), for the classic presets'
    tensor (three players in the hand, no 一五十).

    ``LinearPolicy(rng)`` starts from small random weights (for training); :meth:`load` reads a checkpoint.
    Called as ``policy(observation, mask)`` it plays the most probable legal ID (deterministic); :meth:`sample`
    draws one from the softmax.
    """

    def __init__(self, rng: np.random.Generator) -> None:
        self.W = rng.normal(0.0, 0.01, (NUM_ACTIONS, OBSERVATION_SIZE)).astype(np.float32)
        self.b = np.zeros(NUM_ACTIONS, np.float32)
        self.steps = 0  # learner decisions trained on

    def logits(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked logits of the raw observation tensor (−inf for illegal IDs)."""
        return np.where(mask.astype(bool), self.W @ (observation * SCALE) + self.b, -np.inf)

    def probabilities(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The softmax over the legal IDs of the *scaled* tensor ``x`` (what training uses)."""
        logits = np.where(mask.astype(bool), self.W @ x + self.b, -np.inf)
        logits -= logits.max()
        p = np.exp(logits)
        return p / p.sum()  # type: ignore[no-any-return]

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The most probable legal ID of the raw observation tensor."""
        return int(np.argmax(self.logits(observation, mask)))

    def sample(self, observation: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        """An ID drawn from the softmax of the raw observation tensor."""
        return int(rng.choice(len(self.b), p=self.probabilities(observation * SCALE, mask)))

    def save(self, path: str | Path) -> None:
        np.savez(path, W=self.W, b=self.b)

    @classmethod
    def load(cls, path: str | Path = CHECKPOINT) -> LinearPolicy:
        """Read weights saved by :meth:`save` (the shipped checkpoint by default).

        :raises BotError: for a missing file or weights of the wrong shapes.
        """
        try:
            with np.load(path) as data:
                W, b = data["W"], data["b"]
        except (OSError, KeyError, ValueError) as exc:
            raise BotError(f"cannot read linear policy weights from {str(path)!r}: {exc}") from None
        if W.shape != (NUM_ACTIONS, OBSERVATION_SIZE) or b.shape != (NUM_ACTIONS,):
            raise BotError(f"linear policy weights of the wrong shapes in {str(path)!r}: W {W.shape}, b {b.shape} "
                           f"(expected ({NUM_ACTIONS}, {OBSERVATION_SIZE}) and ({NUM_ACTIONS},))")
        policy = cls(np.random.default_rng(0))
        policy.W, policy.b = W.astype(np.float32), b.astype(np.float32)
        return policy


class LinearBot(PolicyBot):
    """The linear policy as a bot: ``make_bot("paohuzi.env.linear:LinearBot")`` (the shipped checkpoint, most
    probable legal ID), ``LinearBot[weights=path.npz,sample=1]``."""

    name = "linear"

    def __init__(self, seed: int | None = None, weights: str = "", sample: int = 0) -> None:
        super().__init__(seed)
        self.model = LinearPolicy.load(weights or CHECKPOINT)
        self.sampling = bool(sample)

    def policy(self, observation: np.ndarray, mask: np.ndarray) -> int:
        if self.sampling:
            return self.model.sample(observation, mask, self.rng)
        return self.model(observation, mask)
