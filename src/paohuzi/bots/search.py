"""``search``: determinized Monte Carlo over the hidden cards, with ``greedy`` rollouts.

At a decision with a real choice the bot:

1. asks :mod:`greedy <paohuzi.bots.greedy>` to score every legal action and keeps the best few
   (``candidates``, and only those within ``window`` of the best score) — a 胡 is always taken at once;
2. repeatedly samples a **world** — the other hands, the kinds of their hidden 偎 and the stock order — from
   the cards its seat has not seen (:func:`paohuzi.bots.world.sample_world`: 80 minus its hand, every
   visible table and row card, the card on offer; the 亮张 stays with the dealer), builds an engine hand in
   that world at this decision, and for **each** candidate plays the hand out to the end with greedy at
   every seat — exactly ``make_bot("greedy")``'s policy, so the search is a step of policy improvement on
   it (the same world for every candidate: common random numbers);
3. compares each other candidate with greedy's choice by the paired difference of the results (its own
   payment at the end, R7.3) — a race: every 4 worlds a candidate that is clearly worse, that changes
   nothing, or that is not ahead after 8 worlds drops out — and plays the best one only if it beats
   greedy's choice by more than ``z`` standard errors, so that noise alone never overrules the hand
   evaluation.

The budget per decision is ``worlds`` (the most sampled worlds) and/or ``time`` (seconds); whichever runs
out first ends the search. With neither given, 24 worlds, at most 1 s. Most decisions end early: greedy's
choice is usually not beaten.

With ``infer=true`` the worlds are dealt by :mod:`paohuzi.bots.infer` instead: consistent with every
hard fact the table shows (no 坎 of a kind shown by another seat, at most one copy of a kind a seat
discarded or showed itself, none of a kind it has 碰'd or 偎'd …), and drawn by importance resampling from
``pool`` such worlds in proportion to how well they explain the other seats' declined 碰 and discards.

The bot never sees anything but its observation: the worlds are built from it alone.
"""

from __future__ import annotations

import math
import random
import time as _time
from collections.abc import Callable, Sequence
from typing import Any

from paohuzi._compiled import mypyc_attr
from paohuzi.bots import greedy
from paohuzi.bots.base import Bot
from paohuzi.bots.infer import Sampler
from paohuzi.bots.view import View, read
from paohuzi.bots.world import World, build_hand, sample_world, view_of
from paohuzi.cards import PaohuziError
from paohuzi.engine import Action, ActionKind, Hand, Observation

__all__ = ["SearchBot", "rollout"]


def rollout(hand: Hand, limit: int = 400, policy: Callable[[View, Sequence[Action]], Action] | None = None) -> None:
    """Play ``hand`` to its end with the greedy policy at every seat (in place) — the same policy as
    ``make_bot("greedy")``, so that the search improves on exactly that player. ``policy(view, legal)``
    plays instead of greedy when given (examples/train_scorer.py's later rounds)."""
    steps = 0
    while not hand.over and steps < limit:
        seat = hand.deciding[0]
        legal = hand.legal_actions(seat)
        if len(legal) == 1:
            action = legal[0]
        elif policy is not None:
            action = policy(view_of(hand, seat), legal)
        else:
            action, _ = greedy.choose(view_of(hand, seat), legal)
        hand.apply(seat, action)
        steps += 1


@mypyc_attr(allow_interpreted_subclasses=True)  # a bot of one's own may build on it (paohuzi/_compiled.py)
class SearchBot(Bot):
    """Determinized Monte Carlo search with greedy rollouts (see the module docstring).

    :param worlds: sampled worlds per decision (each played once per candidate).
    :param time: seconds per decision at most.
    :param candidates: how many of greedy's best actions are searched.
    :param window: only actions whose greedy score is within this of the best are searched.
    :param z: how many standard errors a candidate must beat greedy's choice by to be played instead.
    :param infer: deal the worlds consistent with what the table shows (:mod:`paohuzi.bots.infer`).
    :param pool: with ``infer``, worlds dealt per world used (importance resampling; 1: caps only).
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
        infer: bool = False,
        pool: int = 4,
    ) -> None:
        super().__init__(seed)
        if worlds is None and time is None:
            worlds, time = 24, 1.0
        if worlds is not None and (not isinstance(worlds, int) or worlds < 1):
            raise ValueError(f"worlds must be a whole number ≥ 1, got {worlds!r}")
        if time is not None and not (isinstance(time, (int, float)) and time > 0):
            raise ValueError(f"time must be a positive number of seconds, got {time!r}")
        self.worlds = worlds
        self.time = time
        self.candidates = max(1, int(candidates))
        self.window = float(window)
        self.z = float(z)
        if not isinstance(pool, int) or isinstance(pool, bool) or pool < 1:
            raise ValueError(f"pool must be a whole number ≥ 1, got {pool!r}")
        self.infer = bool(infer)
        self.pool = pool
        self._rng = random.Random(seed)
        #: Statistics of the last decision: worlds played, candidates, whether greedy was overruled.
        self.last: dict[str, Any] = {}

    def act(self, observation: Observation, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        for a in legal:
            if a.kind is ActionKind.HU:
                return a
        view = read(observation)
        choice, scored = greedy.choose(view, legal)
        best = scored[0][0]
        cands = [a for v, a in scored[: self.candidates] if v >= best - self.window]
        if len(cands) < 2 or view.phase not in ("discard", "claim"):
            self.last = {"worlds": 0, "candidates": len(cands), "overruled": False}
            return choice
        base = self.prior(view, legal, choice)
        if base not in cands:
            cands.append(base)
        claimable = any(a.kind is ActionKind.PENG or a.kind is ActionKind.CHI for a in legal)
        return self._search(view, cands, base, claimable)

    def prior(self, view: View, legal: Sequence[Action], choice: Action) -> Action:
        """The action played unless the race overrules it: greedy's ``choice`` here. A subclass may know a
        better one (:class:`paohuzi.bots.scorer.ScorerSearchBot`); it joins the candidates if it is not one."""
        return choice

    def _search(self, view: View, cands: list[Action], choice: Action, claimable: bool = False) -> Action:
        """Race the other candidates against ``choice`` (the prior: greedy's) on common sampled worlds."""
        if self.infer:
            sampler = Sampler(view, self._rng, self.pool, pending_claimable=claimable)
            def deal() -> World:
                return sampler()
        else:
            def deal() -> World:
                return sample_world(view, self._rng)
        deadline = None if self.time is None else _time.perf_counter() + self.time
        limit = self.worlds if self.worlds is not None else 1 << 30
        seat = view.seat
        g = cands.index(choice)
        alive = [i for i in range(len(cands)) if i != g]
        diffs: dict[int, list[float]] = {i: [] for i in alive}
        played = tries = 0
        while alive and played < limit and tries < 4 * limit + 20:
            if deadline is not None and played and _time.perf_counter() > deadline:
                break
            tries += 1
            try:
                base = build_hand(view, deal())
            except (PaohuziError, KeyError, IndexError, StopIteration):
                continue
            if seat not in base.deciding:
                continue
            legal = set(base.legal_actions(seat))
            if not all(cands[i] in legal for i in (g, *alive)):
                continue
            ref = self._play(base, seat, choice)
            for i in alive:
                diffs[i].append(self._play(base, seat, cands[i]) - ref)
            played += 1
            if played % RACE_STEP == 0:
                alive = [i for i in alive if not self._drop(diffs[i])]
                if len(alive) == 1 and played >= 2 * RACE_STEP:
                    mean, se = _mean_se(diffs[alive[0]])
                    if mean - 2.0 * se > 0:
                        break  # clearly better already
        best, best_mean = g, 0.0
        for i in alive:
            mean, se = _mean_se(diffs[i])
            if len(diffs[i]) >= 2 and mean > self.z * se and mean > best_mean:
                best, best_mean = i, mean
        self.last = {
            "worlds": played, "candidates": len(cands), "overruled": best != g,
            "cands": [str(a) for a in cands], "gain": best_mean,
        }
        return cands[best]

    @staticmethod
    def _play(base: Hand, seat: int, action: Action) -> float:
        hand = base.copy()
        hand.apply(seat, action)
        rollout(hand)
        return float(hand.outcome.payments[seat]) if hand.outcome is not None else 0.0

    @staticmethod
    def _drop(diffs: list[float]) -> bool:
        """A challenger leaves the race when it cannot be shown better than greedy's choice."""
        mean, se = _mean_se(diffs)
        if mean + 2.0 * se < 0:
            return True  # clearly worse
        if all(d == 0.0 for d in diffs):
            return True  # changes nothing in these worlds
        return len(diffs) >= 2 * RACE_STEP and mean <= 0


RACE_STEP = 4


def _mean_se(values: list[float]) -> tuple[float, float]:
    n = len(values)
    if n == 0:
        return 0.0, math.inf
    mean = sum(values) / n
    if n == 1:
        return mean, math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)
