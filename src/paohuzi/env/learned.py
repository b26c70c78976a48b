"""``learned``: a neural policy (and value) over the environment's tensors, run with numpy alone (issue #16).

A perceptron: ReLU layers over ``x``, the observation tensor scaled to [0, 1], then 115 logits (illegal IDs
masked out) and, optionally, a value (the hand's expected points for the deciding seat). The shipped
weights (``weights/agent.npz``) are the output of ``examples/train_agent.py`` (PyTorch at training time, a
GPU when present; imitation of ``greedy`` with DAgger); the file also holds 64 recorded inputs and PyTorch's
outputs for them, which this numpy inference reproduces (``tests/env/test_learned.py``). Figures: docs/AI.md
§8. ``examples/distill.py`` trains the two-layer form with numpy alone.

    paohuzi simulate --bots "paohuzi.env.learned:LearnedBot,greedy,random"
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from paohuzi.bots.base import BotError
from paohuzi.env.actions import NUM_ACTIONS
from paohuzi.env.features import OBSERVATION_HIGH, OBSERVATION_SIZE
from paohuzi.env.policy import PolicyBot

__all__ = ["MLP", "LearnedBot", "DEFAULT_WEIGHTS"]

#: The weights shipped with the package (``examples/train_agent.py``'s output).
DEFAULT_WEIGHTS = Path(__file__).resolve().parent / "weights" / "agent.npz"
_SCALE = (1.0 / OBSERVATION_HIGH).astype(np.float32)


class MLP:
    """The network: ReLU layers ``(W, b)`` (``W`` is out × in, the first in = 606, the last out = 115), and
    optionally a value head ``(V, v)`` (1 × the last hidden size) on the last hidden layer that predicts the
    hand's points for the deciding seat; float32.

    ``MLP(W1, b1, W2, b2, …, Wn, bn, value=(V, v), meta={...})``: the arrays layer by layer (at least two).
    """

    def __init__(self, *arrays: np.ndarray, value: tuple[np.ndarray, np.ndarray] | None = None,
                 meta: dict[str, Any] | None = None) -> None:
        if len(arrays) % 2:
            raise ValueError(f"weights of the wrong shapes: {len(arrays)} arrays, not (W, b) pairs")
        self._set([(arrays[i], arrays[i + 1]) for i in range(0, len(arrays), 2)], value, meta)

    @classmethod
    def from_layers(cls, layers: Sequence[tuple[np.ndarray, np.ndarray]],
                    value: tuple[np.ndarray, np.ndarray] | None = None,
                    meta: dict[str, Any] | None = None) -> MLP:
        """A network from its ``(W, b)`` layers, with an optional value head."""
        return cls(*(a for layer in layers for a in layer), value=value, meta=meta)

    def _set(self, layers: Sequence[tuple[np.ndarray, np.ndarray]], value: tuple[np.ndarray, np.ndarray] | None,
             meta: dict[str, Any] | None) -> None:
        shapes = [(np.shape(W), np.shape(b)) for W, b in layers]
        size = OBSERVATION_SIZE
        ok = len(layers) >= 2
        for (w_shape, b_shape), last in zip(shapes, [False] * (len(shapes) - 1) + [True], strict=True):
            ok = ok and len(w_shape) == 2 and w_shape[1] == size and b_shape == (w_shape[0],)
            ok = ok and (not last or w_shape[0] == NUM_ACTIONS)
            size = w_shape[0] if len(w_shape) == 2 else -1
        if value is not None and ok:
            hidden = shapes[-1][0][1]
            ok = np.shape(value[0]) == (1, hidden) and np.shape(value[1]) == (1,)
        if not ok:
            described = ", ".join(f"W{i + 1} {w} b{i + 1} {b}" for i, (w, b) in enumerate(shapes))
            raise ValueError(f"weights of the wrong shapes: {described}"
                             + (f", value {np.shape(value[0])} {np.shape(value[1])}" if value is not None else ""))
        self.layers = [(np.asarray(W, np.float32), np.asarray(b, np.float32)) for W, b in layers]
        self.value_head = None if value is None else (np.asarray(value[0], np.float32),
                                                      np.asarray(value[1], np.float32))
        self.meta = dict(meta or {})

    # The two-layer names, kept for the first distilled weights and examples/distill.py.
    @property
    def W1(self) -> np.ndarray:
        return self.layers[0][0]

    @property
    def b1(self) -> np.ndarray:
        return self.layers[0][1]

    @property
    def W2(self) -> np.ndarray:
        return self.layers[-1][0]

    @property
    def b2(self) -> np.ndarray:
        return self.layers[-1][1]

    @classmethod
    def init(cls, hidden: int, rng: np.random.Generator) -> MLP:
        """Random two-layer weights (He initialisation) for training."""
        W1 = rng.normal(0, np.sqrt(2 / OBSERVATION_SIZE), (hidden, OBSERVATION_SIZE)).astype(np.float32)
        W2 = rng.normal(0, np.sqrt(1 / hidden), (NUM_ACTIONS, hidden)).astype(np.float32)
        return cls(W1, np.zeros(hidden, np.float32), W2, np.zeros(NUM_ACTIONS, np.float32))

    @classmethod
    def load(cls, path: str | Path = DEFAULT_WEIGHTS) -> MLP:
        """Weights saved by :meth:`save` (``W1``, ``b1`` … ``Wn``, ``bn``, optionally ``value_W``, ``value_b``
        and ``meta_*`` entries)."""
        with np.load(path) as data:
            meta = {k[5:]: data[k].item() for k in data.files if k.startswith("meta_")}
            depth = 0
            while f"W{depth + 1}" in data.files:
                depth += 1
            layers = [(data[f"W{i}"], data[f"b{i}"]) for i in range(1, depth + 1)]
            value = (data["value_W"], data["value_b"]) if "value_W" in data.files else None
            return cls.from_layers(layers, value, meta)

    def save(self, path: str | Path, **extra: np.ndarray) -> None:
        """Save the weights, the meta data and ``extra`` arrays (e.g. probe inputs and outputs)."""
        arrays: dict[str, Any] = {}
        for i, (W, b) in enumerate(self.layers, 1):
            arrays[f"W{i}"], arrays[f"b{i}"] = W, b
        if self.value_head is not None:
            arrays["value_W"], arrays["value_b"] = self.value_head
        arrays.update({f"meta_{k}": np.asarray(v) for k, v in self.meta.items()})
        arrays.update(extra)
        np.savez_compressed(path, **arrays)

    def _hidden(self, x: np.ndarray) -> np.ndarray:
        h = np.atleast_2d(x) * _SCALE
        for W, b in self.layers[:-1]:
            h = np.maximum(h @ W.T + b, 0.0)
        return h

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Logits for a batch ``(n, 606)`` or one observation ``(606,)`` of raw tensors (scaled here)."""
        W, b = self.layers[-1]
        out = self._hidden(x) @ W.T + b
        return out if x.ndim == 2 else out[0]

    def value(self, x: np.ndarray) -> np.ndarray | float:
        """The value head's estimate of the hand's points for the deciding seat (a batch or one tensor).

        :raises ValueError: if these weights have no value head.
        """
        if self.value_head is None:
            raise ValueError("these weights have no value head")
        V, v = self.value_head
        out = (self._hidden(x) @ V.T + v)[:, 0]
        return out if x.ndim == 2 else float(out[0])

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
        if observation.shape != (OBSERVATION_SIZE,) or mask.shape != (NUM_ACTIONS,):
            # trained on three players' tensors and 115 IDs: 六胡抢 with four players or 一五十 (R9.3) is refused
            raise BotError(
                f"{self.name}: its weights read {OBSERVATION_SIZE}-value tensors with {NUM_ACTIONS} action IDs (three "
                f"players in the hand, no 一五十); this rule set gives {observation.shape[0]} and {mask.shape[0]}"
            )
        return self.model.choose(observation, mask)
