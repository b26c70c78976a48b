"""``search``: determinized Monte Carlo over the hidden cards, with ``greedy`` rollouts.

At a decision with a real choice the bot:

1. asks :mod:`greedy <paohuzi.bots.greedy>` to score every legal action and keeps the best few
   (``candidates``, and only those within ``window`` of the best score) — a 胡 is always taken at once;
2. repeatedly samples a **world** — the other hands, the kinds of their hidden 偎 and the stock order — from
   the cards its seat has not seen (:func:`paohuzi.bots.world.sample_world`: 80 minus its hand, every
   visible table and row card, the card on offer; the 亮张 stays with the dealer), builds an engine hand in
   that world at this decision, and for **each** candidate plays the hand out to the end with the fast
   greedy policy at every seat (the same world for every candidate: common random numbers);
3. plays the candidate with the best mean result (its own payment at the end, R7.3) — but keeps greedy's
   choice unless another candidate beats it by more than ``z`` standard errors of the paired difference,
   so that noise alone never overrules the hand evaluation.

The budget per decision is ``worlds`` (sampled worlds, each played once per candidate) and/or ``time``
(seconds); whichever runs out first ends the search. With neither given, 16 worlds, at most 1 s.

The bot never sees anything but its observation: the worlds are built from it alone.
"""

from __future__ import annotations

import math
import random
import time as _time
from collections.abc import Mapping, Sequence
from typing import Any

from paohuzi.bots import greedy
from paohuzi.bots.base import Bot
from paohuzi.bots.view import View, read
from paohuzi.bots.world import build_hand, sample_world, view_of
from paohuzi.cards import PaohuziError
from paohuzi.engine import Action, ActionKind, Hand

__all__ = ["SearchBot", "rollout"]


def rollout(hand: Hand, policy_useful: bool = False, limit: int = 400) -> None:
    """Play ``hand`` to its end with the greedy policy at every seat (in place)."""
    steps = 0
    while not hand.over and steps < limit:
        seat = hand.deciding[0]
        legal = hand.legal_actions(seat)
        if len(legal) == 1:
            action = legal[0]
        else:
            action, _ = greedy.choose(view_of(hand, seat), legal, useful=policy_useful)
        hand.apply(seat, action)
        steps += 1


class SearchBot(Bot):
    """Determinized Monte Carlo search with greedy rollouts (see the module docstring).

    :param worlds: sampled worlds per decision (each played once per candidate).
    :param time: seconds per decision at most.
    :param candidates: how many of greedy's best actions are searched.
    :param window: only actions whose greedy score is within this of the best are searched.
    :param z: how many standard errors a candidate must beat greedy's choice by to be played instead.
    """

    name = "search"

    def __init__(
        self,
        seed: int | None = None,
        *,
        worlds: int | None = None,
        time: float | None = None,
        candidates: int = 3,
        window: float = 8.0,
        z: float = 1.0,
    ) -> None:
        super().__init__(seed)
        if worlds is None and time is None:
            worlds, time = 16, 1.0
        if worlds is not None and (not isinstance(worlds, int) or worlds < 1):
            raise ValueError(f"worlds must be a whole number ≥ 1, got {worlds!r}")
        if time is not None and not (isinstance(time, (int, float)) and time > 0):
            raise ValueError(f"time must be a positive number of seconds, got {time!r}")
        self.worlds = worlds
        self.time = time
        self.candidates = max(1, int(candidates))
        self.window = float(window)
        self.z = float(z)
        self._rng = random.Random(seed)
        #: Statistics of the last decision: worlds played, candidates, whether greedy was overruled.
        self.last: dict[str, Any] = {}

    def act(self, observation: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        for a in legal:
            if a.kind is ActionKind.HU:
                return a
        view = read(observation)
        choice, scored = greedy.choose(view, legal, useful=True)
        best = scored[0][0]
        cands = [a for v, a in scored[: self.candidates] if v >= best - self.window]
        if len(cands) < 2 or view.phase not in ("discard", "claim"):
            self.last = {"worlds": 0, "candidates": len(cands), "overruled": False}
            return choice
        return self._search(view, cands, choice)

    def _search(self, view: View, cands: list[Action], choice: Action) -> Action:
        deadline = None if self.time is None else _time.perf_counter() + self.time
        limit = self.worlds if self.worlds is not None else 1 << 30
        totals = [[] for _ in cands]  # type: list[list[float]]
        seat = view.seat
        played = 0
        tries = 0
        while played < limit and tries < 4 * limit + 20:
            if deadline is not None and played and _time.perf_counter() > deadline:
                break
            tries += 1
            try:
                base = build_hand(view, sample_world(view, self._rng))
            except (PaohuziError, KeyError, IndexError, StopIteration):
                continue
            if seat not in base.deciding:
                continue
            legal = set(base.legal_actions(seat))
            if not all(a in legal for a in cands):
                continue
            results = []
            for a in cands:
                h = base.copy()
                h.apply(seat, a)
                rollout(h)
                results.append(float(h.outcome.payments[seat]) if h.outcome is not None else 0.0)
            for i, r in enumerate(results):
                totals[i].append(r)
            played += 1
        if played == 0:
            self.last = {"worlds": 0, "candidates": len(cands), "overruled": False}
            return choice
        g = cands.index(choice)
        means = [sum(t) / played for t in totals]
        best = max(range(len(cands)), key=lambda i: (means[i], i == g))
        overrule = False
        if best != g and played >= 2:
            diffs = [a - b for a, b in zip(totals[best], totals[g])]
            mean = sum(diffs) / played
            var = sum((d - mean) ** 2 for d in diffs) / (played - 1)
            overrule = mean > self.z * math.sqrt(var / played) and mean > 0
        self.last = {"worlds": played, "candidates": len(cands), "overruled": overrule, "means": means}
        return cands[best] if overrule else choice
