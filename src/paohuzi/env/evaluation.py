"""Evaluation from Python: a policy against bots in duplicate deals, with intervals (issue 36 part 4).

:func:`evaluate` plays a policy — a bare callable ``policy(observation, mask) -> action ID`` over the
environment's tensors, a Stable-Baselines3 model (anything with ``.predict``, sb3-contrib's ``MaskablePPO``
given the mask) or a :class:`~paohuzi.bots.Bot` — against bot specs in the duplicate matches of ``paohuzi
simulate`` (:mod:`paohuzi.bots.tournament`): every deal once with each seating, the same seeds, so the numbers
are the CLI's for the same bots (``paohuzi simulate --bots "<policy as a bot>,random,random" --hands D --seed
S``). It returns the policy's points per hand and per table seat, every opponent's, and the paired difference
from each opponent per deal, with 95 % intervals (Student's t over deals, :mod:`paohuzi.stats`).

>>> import numpy as np
>>> first_legal = lambda observation, mask: int(np.flatnonzero(mask)[0])
>>> result = evaluate(first_legal, opponents="random", deals=2, seed=1)
>>> result.hands, sorted(result.by_seat), list(result.differences), len(result.per_deal)
(6, [0, 1, 2], ['random'], 2)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from paohuzi.bots import Bot, BotError, make_bot, split_specs
from paohuzi.bots.tournament import HandResult, MatchResult, play_seatings, summarize
from paohuzi.cards import PaohuziError
from paohuzi.env.aec import EnvError, make_rules
from paohuzi.env.policy import FunctionPolicyBot
from paohuzi.rules import RuleSet
from paohuzi.stats import Estimate, mean_ci, paired_difference, per_deal_means

__all__ = ["Evaluation", "evaluate", "as_bot"]


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The result of :func:`evaluate`.

    :ivar name: the policy's name in the tables; :ivar opponents: the opponents' specs.
    :ivar points: the policy's mean points per hand (per-deal means, 95 % interval over deals).
    :ivar by_seat: the policy's mean points per hand in each table seat (its hands in that seat, by deal).
    :ivar differences: per opponent spec, policy − opponent, paired per deal (95 % interval).
    :ivar match: the whole match as ``paohuzi simulate`` prints it (every bot's row, every paired difference).
    :ivar per_deal: the policy's mean points in each deal, in deal order (what :meth:`minus` pairs).
    """

    name: str
    opponents: tuple[str, ...]
    rules: str
    seed: int
    deals: int
    hands: int
    points: Estimate
    by_seat: dict[int, Estimate]
    differences: dict[str, Estimate]
    match: MatchResult
    per_deal: tuple[float, ...] = ()

    def minus(self, other: Evaluation) -> Estimate:
        """This policy's points − ``other``'s, paired per deal (95 % interval): two evaluations with the same
        rules, opponents, seed and deals played the same deals, so the luck of the cards cancels out (e.g. a
        policy against masked random on the same deals).

        :raises EnvError: for evaluations of different deals.
        """
        same = (self.rules, self.opponents, self.seed, self.deals) == (other.rules, other.opponents, other.seed,
                                                                       other.deals)
        if not same:
            raise EnvError("only evaluations of the same deals pair up (rules, opponents, seed and deals): "
                           f"{self.rules}/{','.join(self.opponents)}/seed {self.seed}/{self.deals} deals against "
                           f"{other.rules}/{','.join(other.opponents)}/seed {other.seed}/{other.deals} deals")
        return paired_difference(self.per_deal, other.per_deal)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the figures, and the match table as ``paohuzi simulate --json`` gives it."""
        return {
            "policy": self.name, "opponents": list(self.opponents), "rules": self.rules, "seed": self.seed,
            "deals": self.deals, "hands": self.hands, "points": self.points.to_dict(),
            "by_seat": {str(s): e.to_dict() for s, e in self.by_seat.items()},
            "differences": {b: e.to_dict() for b, e in self.differences.items()},
            "match": self.match.to_dict(),
        }


def _sb3_policy(model: Any, deterministic: bool) -> Callable[[np.ndarray, np.ndarray], int]:
    """A Stable-Baselines3 model as ``f(observation, mask)``: a dict observation for a model over the env's
    ``Dict`` space (``MultiInputPolicy``), the tensor otherwise; the mask as ``action_masks`` when its
    ``predict`` takes one (sb3-contrib's maskable algorithms)."""
    space = getattr(model, "observation_space", None)
    as_dict = isinstance(space, spaces.Dict)
    try:
        masked = "action_masks" in inspect.signature(model.predict).parameters
    except (TypeError, ValueError):
        masked = False

    def play(observation: np.ndarray, mask: np.ndarray) -> int:
        obs: Any = {"observation": observation[None], "action_mask": mask[None]} if as_dict else observation[None]
        extra = {"action_masks": mask[None].astype(bool)} if masked else {}
        action, _ = model.predict(obs, deterministic=deterministic, **extra)
        return int(np.asarray(action).reshape(-1)[0])

    return play


def as_bot(policy: Any, deterministic: bool = True) -> Bot:
    """The bot that plays ``policy``: a :class:`~paohuzi.bots.Bot` as it is, a model with ``.predict``
    (Stable-Baselines3) or a callable ``policy(observation, mask) -> action ID``
    (:class:`~paohuzi.env.policy.FunctionPolicyBot`).

    :raises EnvError: for anything else.
    """
    if callable(getattr(policy, "act", None)) and isinstance(policy, Bot):
        return policy
    if callable(getattr(policy, "predict", None)):
        bot = FunctionPolicyBot(_sb3_policy(policy, deterministic))
        bot.name = type(policy).__name__
        return bot
    if callable(policy):
        return FunctionPolicyBot(policy)
    raise EnvError(f"a policy is a callable (observation, mask) -> action ID, a model with .predict or a Bot; "
                   f"got {policy!r}")


def _opponents(opponents: str | Sequence[str], rules: RuleSet, name: str) -> list[str]:
    specs = split_specs(opponents) if isinstance(opponents, str) else list(opponents)
    if not specs or not all(isinstance(s, str) and s for s in specs):
        raise EnvError(f"opponents are bot specs (a comma-separated string or a list of strings), got {opponents!r}")
    others = rules.players_at_table - 1
    if len(specs) == 1:
        specs *= others
    if len(specs) != others:
        raise EnvError(f"give one opponent spec, or {others} (one per other seat at the table); got {len(specs)}")
    if name in specs:
        raise EnvError(f"the policy's name {name!r} is also an opponent's spec: pass another name=")
    for spec in dict.fromkeys(specs):
        try:
            make_bot(spec, seed=0)
        except BotError as exc:
            raise EnvError(f"opponent {spec!r}: {exc}") from None
    return specs


def evaluate(
    policy: Any,
    opponents: str | Sequence[str] = "random",
    deals: int = 100,
    seed: int = 0,
    rules: str | dict[str, Any] | RuleSet = "qq",
    *,
    name: str = "policy",
    deterministic: bool = True,
) -> Evaluation:
    """Play ``policy`` against ``opponents`` on ``deals`` duplicate deals of the match seed ``seed``.

    :param policy: ``policy(observation, mask) -> action ID`` (numpy arrays as the environment gives them), a
        Stable-Baselines3 model (``.predict``; ``deterministic`` is passed on), or a bot.
    :param opponents: one bot spec for every other seat (``"random"``, ``"greedy"``, ``"search[worlds=8]"``,
        ``"module:Class"``), or one per other seat at the table (a comma-separated string or a list).
    :param deals: deals to play, each once per seating (3 hands with two alike opponents, 6 with two different).
    :param rules: a preset name, a rules object with R8.1 house options or a :class:`RuleSet`.
    :param name: the policy's name in the tables (it must not be an opponent's spec).
    :raises EnvError: for bad arguments, a policy that returns something other than a legal ID (naming it), or
        a bad opponent spec.
    """
    try:
        rule_set = make_rules(rules)
    except PaohuziError as exc:
        raise EnvError(str(exc)) from exc
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise EnvError(f"deals must be a positive int, got {deals!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise EnvError(f"seed must be an int ≥ 0, got {seed!r}")
    if not isinstance(name, str) or not name:
        raise EnvError(f"name must be a non-empty string, got {name!r}")
    specs = _opponents(opponents, rule_set, name)
    bot = as_bot(policy, deterministic)
    table = [name, *specs]

    def make(spec: str, bot_seed: int) -> Bot:
        return bot if spec == name else make_bot(spec, seed=bot_seed)

    results: list[HandResult] = []
    for deal in range(deals):
        try:
            results += play_seatings(table, rule_set, seed, deal, make=make)
        except BotError as exc:
            raise EnvError(f"deal {deal}: {exc}") from None
    return _summary(name, specs, rule_set, seed, deals, results, summarize(results, table))


def _summary(name: str, specs: list[str], rules: RuleSet, seed: int, deals: int, results: list[HandResult],
             match: MatchResult) -> Evaluation:
    per_seat = per_deal_means(
        (r.deal, str(s), r.points[s]) for r in results for s, b in enumerate(r.bots) if b == name
    )
    by_seat = {int(s): mean_ci(v) for s, v in sorted(per_seat.items(), key=lambda kv: int(kv[0]))}
    row = next(r for r in match.rows if r.bot == name)
    differences = {b: e for a, b, e in match.differences if a == name}
    per_deal = per_deal_means((r.deal, name, r.points[s]) for r in results for s, b in enumerate(r.bots)
                              if b == name)[name]
    return Evaluation(name, tuple(specs), rules.name, seed, deals, len(results), row.points, by_seat, differences,
                      match, tuple(per_deal))
