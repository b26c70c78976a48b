"""The Gymnasium single-agent environment: one learner seat, the other seats played by built-in bots.

Same observation, mask, action IDs and rewards as the AEC environment (:mod:`paohuzi.env`). One episode is
one hand from the learner's point of view: :meth:`PaohuziGymEnv.reset` deals and lets the bots play until
the learner must decide; :meth:`~PaohuziGymEnv.step` plays the learner's action and the bots' replies.

>>> env = PaohuziGymEnv(opponents="random,random")
>>> obs, info = env.reset(seed=5)
>>> obs["observation"].shape, int(obs["action_mask"].sum()) > 0, info["seat"] in (0, 1, 2)
((606,), True, True)
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from paohuzi.bots import Bot, make_bot, split_specs
from paohuzi.cards import PaohuziError
from paohuzi.engine import Hand
from paohuzi.env.actions import ActionEncodingError, decode
from paohuzi.env.aec import (
    Dealer,
    EnvError,
    action_space,
    decision_order,
    make_rules,
    observation_space,
    pending,
    render_text,
)
from paohuzi.env.features import action_mask, featurize
from paohuzi.rules import RuleSet

__all__ = ["PaohuziGymEnv", "DEFAULT_ILLEGAL_REWARD"]

#: The reward of an illegal action, in points: the least that leaving a hand (逃跑) costs, 8 (R7.3).
DEFAULT_ILLEGAL_REWARD = -8.0


class PaohuziGymEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """A hand of paohuzi for one learner against bots.

    :param rules: a preset name or a :class:`RuleSet`.
    :param opponents: bot specs for the other seats in play, as a comma-separated string or a sequence
        (``"greedy,greedy"``, ``["search[time=0.1]", "random"]``, or :class:`~paohuzi.bots.Bot` objects),
        one per other seat in play, in turn order after the learner; a single spec is used for all.
    :param seat: the learner's table seat, or None for a random seat in play each hand (drawn from the
        seed). With ``four_players`` it must be None.
    :param illegal_reward: the reward for an action ID that is not legal; the episode then ends.
    :param render_mode: None, ``ansi`` or ``human``.
    :raises EnvError: for bad arguments.

    Hands that end before the learner has a decision to make (a dealt 天胡, or bots finishing the hand
    first) are skipped at :meth:`reset`: the next hand of the seed stream is dealt. Average rewards are
    therefore over hands the learner played; measure strength with ``paohuzi simulate`` instead.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        rules: str | RuleSet = "qq",
        opponents: str | Sequence[str | Bot] = "greedy",
        seat: int | None = None,
        illegal_reward: float = DEFAULT_ILLEGAL_REWARD,
        render_mode: str | None = None,
    ) -> None:
        try:
            self.rules = make_rules(rules)
        except PaohuziError as exc:
            raise EnvError(str(exc)) from exc
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        n = self.rules.players_at_table
        if seat is not None:
            if self.rules.four_players:
                raise EnvError("with four_players the learner's seat must be None (who sits out changes)")
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
                raise EnvError(f"seat must be None or 0–{n - 1}, got {seat!r}")
        specs: list[str | Bot] = [*split_specs(opponents)] if isinstance(opponents, str) else [*opponents]
        if len(specs) == 1:
            specs *= 2
        if len(specs) != 2:
            raise EnvError(f"give one opponent spec, or two (one per other seat in play); got {len(specs)}")
        for spec in specs:
            if not isinstance(spec, str) and not callable(getattr(spec, "act", None)):
                raise EnvError(f"an opponent is a bot spec or a Bot, got {spec!r}")
            if isinstance(spec, str):
                make_bot(spec, seed=0)  # fail now, not at the first reset
        self.opponents = specs
        self.fixed_seat = seat
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = action_space()
        self._dealer = Dealer(self.rules)
        self._hand: Hand | None = None
        self._bots: dict[int, Any] = {}
        self._done = True
        self.seat = -1

    @property
    def hand(self) -> Hand:
        """The engine's hand (referee information: never give it to the policy)."""
        if self._hand is None:
            raise EnvError("no hand dealt yet: call reset() first")
        return self._hand

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal until the learner has a decision; ``seed`` as in :class:`paohuzi.env.aec.Dealer`
        (the same seed gives the same hands, seats and bot play). ``options`` may hold ``dealer``."""
        super().reset(seed=seed)
        options = options or {}
        while True:
            hand = self._dealer.deal(seed, options.get("dealer"))
            seed = None
            rng = self._dealer.next_random()
            seats = list(hand.seats)
            learner = self.fixed_seat if self.fixed_seat is not None else seats[rng.randrange(len(seats))]
            if learner not in seats:  # pragma: no cover - excluded by the constructor
                raise EnvError(f"seat {learner} does not play this hand")
            i = seats.index(learner)
            others = [seats[(i + k) % len(seats)] for k in range(1, len(seats))]
            self._bots = {}
            for s, spec in zip(others, self.opponents, strict=True):
                if isinstance(spec, str):
                    bot = make_bot(spec, seed=rng.getrandbits(32))
                else:
                    bot = spec
                    bot.new_hand()
                self._bots[s] = bot
            self._hand, self.seat = hand, learner
            self._play_bots()
            if not hand.over:
                break
        self._done = False
        return self._obs(), self._info()

    def step(
        self, action: int | np.integer
    ) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Play the learner's action ID, then the bots until the learner decides again or the hand ends.

        An illegal ID ends the episode with ``illegal_reward`` and ``info["illegal"] = True``; the hand is
        abandoned, never corrupted."""
        hand = self.hand
        if self._done:
            raise EnvError("the episode is over: call reset()")
        seat = self.seat
        try:
            move = decode(operator.index(action), pending(hand)[0])
        except (ActionEncodingError, TypeError):
            move = None
        if move is None or move not in hand.legal_actions(seat):
            info = self._info()
            info["illegal"] = True
            self._done = True
            return self._obs(), self.illegal_reward, True, False, info
        hand.apply(seat, move)
        self._play_bots()
        reward = 0.0
        if hand.over:
            assert hand.outcome is not None
            reward = hand.outcome.payments[seat] / self.rules.stake
            self._done = True
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, hand.over, False, self._info()

    def render(self) -> str | None:
        """The table as the learner sees it (R5)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (use 'ansi' or 'human')")
            return None
        text = render_text(self.hand.observation(self.seat).to_dict())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _play_bots(self) -> None:
        hand, learner = self._hand, self.seat
        assert hand is not None
        while not hand.over:
            s = decision_order(hand)[0]
            if s == learner:
                return
            hand.apply(s, self._bots[s].act(hand.observation(s), hand.legal_actions(s)))

    def _obs(self) -> dict[str, np.ndarray]:
        raw = self.hand.observation(self.seat)
        return {"observation": featurize(raw), "action_mask": action_mask(raw, not self._done)}

    def _info(self) -> dict[str, Any]:
        hand = self.hand
        info: dict[str, Any] = {"seat": self.seat, "hand_seed": hand.seed}
        if hand.outcome is not None:
            info["outcome"] = hand.outcome.to_dict()
        return info
