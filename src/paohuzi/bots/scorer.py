"""``scorer``: the learned agent that rescores greedy's candidates, run with numpy alone (issue #16); the
大师 (master) level (:mod:`paohuzi.bots.levels`).

At a decision with a real choice the bot takes greedy's candidate actions (the best few within 8 points of
the best, exactly as ``search`` picks them, :func:`paohuzi.bots.candidates.candidates`), describes each by
the hand it leaves (:func:`paohuzi.bots.candidates.features`: distance, 胡息, live waits, 进张, discard
danger … from the seat's own view only, R5), and a small network scores every candidate with the same
weights: a ReLU perceptron over the :data:`~paohuzi.bots.candidates.FEATURE_SIZE` features to one number,
the candidate's expected points **relative to greedy's choice**. It plays the best candidate when its
advantage exceeds ``margin``, greedy's choice otherwise; a 胡 is always taken.

The weights (``weights/scorer.npz``) are the output of ``examples/train_scorer.py``: it regresses the
network on the mean result of greedy rollouts in sampled worlds (``search``'s own estimate, with more
worlds per position than ``search`` can afford while playing) — so the network learns, once, the step of
policy improvement on greedy that ``search`` recomputes at every decision. The file also holds recorded
inputs and PyTorch's outputs for them, which this numpy inference reproduces (``tests/bots/test_scorer.py``).
Figures: docs/AI.md §8.

    paohuzi simulate --bots scorer,search,greedy

It needs numpy (the ``server`` and ``env`` extras install it); :mod:`paohuzi.bots` registers ``scorer`` and
``scorer_search`` without importing this module, so the rest of the package runs without numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from paohuzi.bots.base import Bot, BotError
from paohuzi.bots.candidates import FEATURE_SIZE, candidates, features
from paohuzi.bots.search import SearchBot
from paohuzi.bots.view import View, read
from paohuzi.engine import Action, ActionKind, Observation

__all__ = ["Scorer", "ScorerBot", "ScorerSearchBot", "DEFAULT_SCORER"]

#: The weights shipped with the package (``examples/train_scorer.py``'s output).
DEFAULT_SCORER = Path(__file__).resolve().parent / "weights" / "scorer.npz"


class Scorer:
    """The network: ReLU layers ``(W, b)`` (``W`` is out × in; the first in = :data:`FEATURE_SIZE`, the
    last out = 1, no ReLU after it); float32. ``Scorer(W1, b1, …, Wn, bn, meta={...})``."""

    def __init__(self, *arrays: np.ndarray, meta: dict[str, Any] | None = None) -> None:
        if len(arrays) < 4 or len(arrays) % 2:
            raise BotError(f"scorer weights must be (W, b) pairs, at least two layers; got {len(arrays)} arrays")
        layers = [(np.asarray(arrays[i], np.float32), np.asarray(arrays[i + 1], np.float32))
                  for i in range(0, len(arrays), 2)]
        size = FEATURE_SIZE
        for i, (W, b) in enumerate(layers, 1):
            if W.ndim != 2 or W.shape[1] != size or b.shape != (W.shape[0],):
                raise BotError(f"scorer layer {i}: W {W.shape}, b {b.shape} do not take {size} inputs")
            size = W.shape[0]
        if size != 1:
            raise BotError(f"the scorer's last layer must have one output, not {size}")
        self.layers = layers
        self.meta = dict(meta or {})

    @classmethod
    def load(cls, path: str | Path = DEFAULT_SCORER) -> Scorer:
        """Weights saved by :meth:`save` (``W1``, ``b1`` … and ``meta_*`` entries).

        :raises BotError: if there is no such file, it is not an ``.npz`` of scorer weights, or they do not fit.
        """
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = {k[5:]: data[k].item() for k in data.files if k.startswith("meta_")}
                depth = 0
                while f"W{depth + 1}" in data.files:
                    depth += 1
                return cls(*(data[f"{n}{i}"] for i in range(1, depth + 1) for n in "Wb"), meta=meta)
        except BotError:
            raise
        except (OSError, ValueError, AttributeError) as exc:
            raise BotError(f"cannot read scorer weights {str(path)!r}: {exc}") from None

    def save(self, path: str | Path, **extra: np.ndarray) -> None:
        """Save the weights, the meta data and ``extra`` arrays (e.g. probe inputs and outputs)."""
        arrays: dict[str, Any] = {}
        for i, (W, b) in enumerate(self.layers, 1):
            arrays[f"W{i}"], arrays[f"b{i}"] = W, b
        arrays.update({f"meta_{k}": np.asarray(v) for k, v in self.meta.items()})
        arrays.update(extra)
        np.savez_compressed(path, **arrays)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """The score of each row of ``x`` (``(n, FEATURE_SIZE)``): shape ``(n,)``."""
        h = np.asarray(x, np.float32)
        for W, b in self.layers[:-1]:
            h = np.maximum(h @ W.T + b, 0.0)
        W, b = self.layers[-1]
        return (h @ W.T + b)[:, 0]


_CACHE: dict[str, Scorer] = {}


class ScorerBot(Bot):
    """Greedy's candidates rescored by the learned network (see the module docstring).

    :param weights: an ``.npz`` of :class:`Scorer` weights; the shipped ones by default.
    :param margin: points of predicted advantage over greedy's choice needed to play another candidate
        (default: the one recorded with the weights, else 0).
    :param candidates: how many of greedy's best actions are rescored (default: as trained).
    """

    name = "scorer"

    def __init__(self, seed: int | None = None, weights: str | None = None, margin: float | None = None,
                 candidates: int | None = None) -> None:
        super().__init__(seed)
        path = str(weights or DEFAULT_SCORER)
        if path not in _CACHE:
            _CACHE[path] = Scorer.load(path)
        self.model = _CACHE[path]
        self.margin = float(self.model.meta.get("margin", 0.0) if margin is None else margin)
        self.k = int(self.model.meta.get("candidates", 4) if candidates is None else candidates)
        if self.k < 1:
            raise BotError(f"candidates must be ≥ 1, got {candidates!r}")
        #: The last decision: the candidates' predicted advantages over greedy's choice (empty if none),
        #: the candidates themselves (greedy's choice first) and the view they were read from.
        self.last: list[float] = []
        self.last_actions: list[Action] = []
        self.last_view: View | None = None

    def act(self, observation: Observation, legal: Sequence[Action]) -> Action:
        self.last, self.last_actions, self.last_view = [], [], None
        if len(legal) == 1:
            return legal[0]
        for a in legal:
            if a.kind is ActionKind.HU:
                return a
        return self.decide(read(observation), legal)

    def decide(self, view: View, legal: Sequence[Action]) -> Action:
        """The choice from a read view (what :meth:`act` plays; rollouts call it directly)."""
        self.last, self.last_actions, self.last_view = [], [], None
        if len(legal) == 1:
            return legal[0]
        choice, cands = candidates(view, legal, self.k)
        if len(cands) < 2 or view.phase not in ("discard", "claim"):
            return choice
        q = self.model(np.asarray(features(view, cands), np.float32))
        adv = q - q[0]
        self.last = [float(a) for a in adv]
        self.last_actions, self.last_view = [a for _, a in cands], view
        best = int(np.argmax(adv))
        return cands[best][1] if adv[best] > self.margin else choice


class ScorerSearchBot(SearchBot):
    """``search`` whose choice to beat is the learned scorer's (issue #16 item 1's improved search): the same
    determinized race on common sampled worlds (:class:`paohuzi.bots.search.SearchBot`), but a challenger must
    beat what :class:`ScorerBot` would play rather than greedy's choice — so the search starts from a stronger
    player and improves on it. Takes :class:`SearchBot`'s options, and ``weights``/``margin`` for the scorer.

    With ``challengers=n`` only the scorer's ``n`` next best candidates race its choice (by the network's
    scores, not greedy's), and with ``gap=g`` only when the best of them is predicted within ``g`` points of
    it: the rollouts go where the network is unsure, so more worlds fit in the same time (docs/AI.md §8a).

        paohuzi simulate --bots scorer_search,search,search
        paohuzi simulate --bots "scorer_search[worlds=16,challengers=1,gap=1],search,search"
    """

    name = "scorer_search"

    def __init__(self, seed: int | None = None, *, weights: str | None = None, margin: float | None = None,
                 challengers: int | None = None, gap: float | None = None, **options: Any) -> None:
        super().__init__(seed, **options)
        if challengers is not None and (isinstance(challengers, bool) or not isinstance(challengers, int)
                                        or challengers < 1):
            raise BotError(f"challengers must be a whole number ≥ 1, got {challengers!r}")
        if gap is not None and (isinstance(gap, bool) or not isinstance(gap, (int, float)) or not gap > 0):
            raise BotError(f"gap must be a positive number of points, got {gap!r}")
        self.scorer = ScorerBot(seed, weights=weights, margin=margin)
        self.challengers = challengers
        self.gap = None if gap is None else float(gap)

    def prior(self, view: View, legal: Sequence[Action], choice: Action) -> Action:
        return self.scorer.decide(view, legal)

    def act(self, observation: Observation, legal: Sequence[Action]) -> Action:
        if self.challengers is None and self.gap is None:
            return super().act(observation, legal)
        choice = self.scorer.act(observation, legal)  # a 胡 or a forced action comes back at once
        cands, view = self.scorer.last_actions, self.scorer.last_view
        self.last = {"worlds": 0, "candidates": len(cands), "overruled": False}
        if len(cands) < 2 or view is None:
            return choice
        adv = self.scorer.last
        top = cands.index(choice)
        others = sorted((i for i in range(len(cands)) if i != top), key=lambda i: -adv[i])
        others = others[: self.challengers or len(others)]
        if self.gap is not None and adv[top] - adv[others[0]] >= self.gap:
            return choice  # the network is sure enough: no rollouts
        claimable = any(a.kind is ActionKind.PENG or a.kind is ActionKind.CHI for a in legal)
        return self._search(view, [choice] + [cands[i] for i in others], choice, claimable)
