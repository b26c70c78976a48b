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
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from paohuzi.analysis import partial_arrangement
from paohuzi.bots import Bot, make_bot, parse_spec, split_specs
from paohuzi.bots.levels import ByFamily
from paohuzi.cards import PaohuziError
from paohuzi.engine import Hand, OutcomeKind
from paohuzi.env.actions import ActionEncodingError, decode
from paohuzi.env.aec import (
    Dealer,
    EnvError,
    action_space,
    check_obs_type,
    check_render_mode,
    decision_order,
    global_state,
    make_rules,
    observation_space,
    pending,
    render_text,
    state_space,
)
from paohuzi.env.features import action_mask, featurize
from paohuzi.env.infostate import History, history_capacity, info_state
from paohuzi.env.policy import FunctionPolicyBot
from paohuzi.rules import RuleSet

__all__ = [
    "PaohuziGymEnv", "DEFAULT_ILLEGAL_REWARD", "Opponent", "make_opponent", "opponent_bot", "time_capped",
    "huxi_progress",
]

#: The reward of an illegal action, in points: the least that leaving a hand (逃跑) costs, 8 (R7.3).
DEFAULT_ILLEGAL_REWARD = -8.0

#: A policy over the environment's tensors: ``policy(observation, action_mask) -> action ID``.
Policy = Callable[[np.ndarray, np.ndarray], Any]
#: An opponent: a bot spec (``"random"``, ``"greedy"``, ``"search[time=0.1]"``, ``"module:Class"``), a
#: :class:`~paohuzi.bots.Bot`, or a :data:`Policy` callable (a snapshot of the learner, for self-play).
Opponent = str | Bot | Policy


def make_opponent(spec: Opponent) -> str | Bot:
    """Check one opponent and turn a policy callable into a bot (a spec string stays a string, made into
    a fresh bot each hand).

    :raises BotError: for an unknown bot spec or bad bot options.
    :raises EnvError: for anything else.
    """
    if isinstance(spec, str):
        make_bot(spec, seed=0)  # fail now (BotError), not at the first reset
        if time_capped(spec):
            warnings.warn(
                f"opponent {spec!r} stops searching after a time: its play depends on the machine's speed and "
                "load, so the seed does not reproduce it (give worlds=N without time for a reproducible budget)",
                stacklevel=3,
            )
        return spec
    if callable(getattr(spec, "act", None)):
        return spec  # type: ignore[return-value]
    if callable(spec):
        return FunctionPolicyBot(spec)
    raise EnvError(f"an opponent is a bot spec, a Bot or a policy(observation, mask) callable, got {spec!r}")


def time_capped(spec: str) -> bool:
    """Whether a bot spec sets a time budget (``search[time=0.1]``): such a bot is not reproducible from a
    seed, as the worlds it searches in the time depend on the machine."""
    return "time" in parse_spec(spec)[1]


def opponent_bot(spec: str, seed: int, rules: RuleSet | None = None) -> Bot:
    """An opponent bot for the environment: :func:`~paohuzi.bots.make_bot`, but a search bot's budget is a
    count of worlds unless the spec sets ``time``: the default cap of 1 s per decision (``search``, the
    ``expert`` level) is lifted, so that the seed reproduces its play on any machine (issue 36). A level's
    bot (:class:`~paohuzi.bots.levels.ByFamily`) is lifted in the bot it plays under ``rules``."""
    bot = make_bot(spec, seed=seed)
    plays = bot.bot_for(rules) if rules is not None and isinstance(bot, ByFamily) else bot
    capped = getattr(plays, "time", None) is not None and getattr(plays, "worlds", None) is not None
    if capped and not time_capped(spec):
        plays.time = None  # type: ignore[attr-defined]
    return bot


def huxi_progress(hand: Hand, seat: int) -> int:
    """The 胡息 ``seat`` has made so far: its table groups' 胡息 plus the best partial arrangement of its
    hand (提, 坎 and the scoring sequences, R6.4) — what the engine counts for a seat left behind by an
    escape (R7.3). Only cards the seat itself sees (R5). The potential of the optional reward shaping."""
    table = sum(g.huxi for g in hand.table_of(seat))
    return table + partial_arrangement(hand.hand_of(seat), yiwushi=hand.rules.yiwushi).huxi


class PaohuziGymEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """A hand of paohuzi for one learner against bots.

    :param rules: a preset name, a rules object with R8.1 house options or a :class:`RuleSet`.
    :param opponents: the other seats in play, as a comma-separated string of bot specs or a sequence
        of :data:`Opponent` (``"greedy,greedy"``, ``"random"`` — 8× faster than greedy —,
        ``["search[time=0.1]", "random"]``, :class:`~paohuzi.bots.Bot` objects, or policy callables
        ``f(observation, action_mask) -> ID`` such as a snapshot of the learner for self-play), one per
        other seat in play (two; three with four players in the hand, R9.3 六胡抢), in turn order after the
        learner; a single one is used for every one of them.
        :meth:`set_opponents` changes them between hands.
    :param seat: the learner's table seat, or None for a random seat in play each hand (drawn from the
        seed). With ``four_players`` it must be None.
    :param illegal_reward: the reward for an action ID that is not legal; the episode then ends.
    :param render_mode: None, ``ansi`` or ``human`` (Gymnasium's ``metadata["render_modes"]``); another
        mode is a :class:`~paohuzi.env.aec.RenderModeError`, a ``TypeError`` (see there).
    :param reward_scale: every reward is multiplied by it (the hand's points, R7.3, are heavy-tailed:
        −54 … +60 in practice, 0 in most hands; ``0.1`` brings them near ±1 for value networks).
    :param draw_reward: the learner's reward, in points, for a drawn hand (荒庄), 0 under the rules; a
        small negative value (``-0.5``) makes a draw cost something, so that the many drawn hands stop
        teaching that nothing matters.
    :param shaping: the weight of an optional potential-based shaping on 胡息 progress (Ng et al. 1999):
        each step adds ``shaping × (Φ(after) − Φ(before))`` points, where Φ is the learner's
        :func:`huxi_progress` and Φ = 0 once the hand is over. The shaping terms of an episode sum to
        ``−shaping × Φ(start)``, the same whatever the policy does, so the best policy is unchanged.
        0 (the default) turns it off.
    :param obs_type: ``snapshot`` (the observation tensor) or ``info_state`` (the learner's information
        state, :mod:`paohuzi.env.infostate`).
    :param debug_seed: put the hand's seed in ``info["hand_seed"]``. **It reveals every hidden card**: the
        seed deals every hand and the stock (R2), so a learner that reads it can cheat. Off by default; for
        debugging and replaying a hand only.
    :raises EnvError: for bad arguments.

    Hands that end before the learner has a decision to make (a dealt 天胡, or bots finishing the hand
    first) are skipped at :meth:`reset`: the next hand of the seed stream is dealt. Average rewards are
    therefore over hands the learner played; measure strength with ``paohuzi simulate`` instead.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(  # noqa: PLR0913 (the options of the environment; the two of issue 36 keyword-only)
        self,
        rules: str | dict[str, Any] | RuleSet = "qq",
        opponents: str | Opponent | Sequence[Opponent] = "greedy",
        seat: int | None = None,
        illegal_reward: float = DEFAULT_ILLEGAL_REWARD,
        render_mode: str | None = None,
        reward_scale: float = 1.0,
        draw_reward: float = 0.0,
        shaping: float = 0.0,
        *,
        obs_type: str = "snapshot",
        debug_seed: bool = False,
    ) -> None:
        try:
            self.rules = make_rules(rules)
        except PaohuziError as exc:
            raise EnvError(str(exc)) from exc
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.obs_type = check_obs_type(obs_type)
        self.debug_seed = bool(debug_seed)
        for name, value in (("reward_scale", reward_scale), ("draw_reward", draw_reward), ("shaping", shaping)):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise EnvError(f"{name} must be a number, got {value!r}")
            if not np.isfinite(value):
                raise EnvError(f"{name} must be finite, got {value!r}")
        n = self.rules.players_at_table
        if seat is not None:
            if self.rules.four_players:
                raise EnvError("with four_players the learner's seat must be None (who sits out changes)")
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
                raise EnvError(f"seat must be None or 0–{n - 1}, got {seat!r}")
        self.opponents: list[str | Bot] = []
        self._others = self.rules.active_players - 1  # the opponents in a hand: 2, or 3 in 六胡抢 (R9.3)
        self.set_opponents(opponents)
        self.fixed_seat = seat
        self.illegal_reward = float(illegal_reward)
        self.reward_scale = float(reward_scale)
        self.draw_reward = float(draw_reward)
        self.shaping = float(shaping)
        self.render_mode = render_mode
        self.observation_space = observation_space(self.rules, self.obs_type)
        self.action_space = action_space(self.rules)
        #: The space of :meth:`state` (the global state for centralised critics).
        self.state_space = state_space(self.rules.players_at_table, self.rules)
        self._potential = 0.0
        self._dealer = Dealer(self.rules)
        self._hand: Hand | None = None
        self._bots: dict[int, Any] = {}
        self._history: History | None = None
        self._done = True
        self.seat = -1

    def set_opponents(self, opponents: str | Opponent | Sequence[Opponent]) -> None:
        """Change the opponents from the next :meth:`reset` on (same forms as the constructor's
        ``opponents``): e.g. a fresh snapshot of the learner every N steps for self-play. With a
        vectorized environment: ``vec_env.env_method("set_opponents", ...)`` (Stable-Baselines3) or
        ``envs.call("set_opponents", ...)`` (Gymnasium).

        :raises EnvError: for a bad opponent or a wrong count.
        """
        if isinstance(opponents, str):
            specs: list[Any] = [*split_specs(opponents)]
        elif isinstance(opponents, Sequence):
            specs = [*opponents]
        else:
            specs = [opponents]
        n = self._others
        if len(specs) == 1:
            specs *= n
        if len(specs) != n:
            count = {2: "two", 3: "three"}.get(n, str(n))
            raise EnvError(f"give one opponent spec, or {count} (one per other seat in play); got {len(specs)}")
        self.opponents = [make_opponent(spec) for spec in specs]

    def action_masks(self) -> np.ndarray:
        """The learner's legal action IDs now, as 115 booleans
        (171 with ``yiwushi``): the observation's ``action_mask`` as
        ``bool`` (the method sb3-contrib's ``MaskablePPO`` calls; all False once the episode is over).

        :raises EnvError: before the first :meth:`reset`.
        """
        raw = self.hand.observation(self.seat)
        return action_mask(raw, not self._done).astype(bool)

    def state(self) -> np.ndarray:
        """The global state for a centralised critic (:func:`paohuzi.env.aec.global_state`, seats from
        the learner's in turn order, in :attr:`state_space`). It holds every hidden card: give it to a
        critic during training, never to the policy.

        :raises EnvError: before the first :meth:`reset`.
        """
        return global_state(self.hand, first=self.seat)

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
                    bot = opponent_bot(spec, rng.getrandbits(32), self.rules)
                else:
                    bot = spec
                    bot.new_hand()
                self._bots[s] = bot
            self._hand, self.seat = hand, learner
            self._history = History(learner, hand.seats, history_capacity(self.rules))
            self._play_bots()
            if not hand.over:
                break
        self._done = False
        self._potential = self._phi()
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
            move = decode(operator.index(action), pending(hand)[0], self.rules.yiwushi)
        except (ActionEncodingError, TypeError):
            move = None
        if move is None or move not in hand.legal_actions(seat):
            info = self._info()
            info["illegal"] = True
            self._done = True
            return self._obs(), self.illegal_reward * self.reward_scale, True, False, info
        hand.apply(seat, move)
        self._play_bots()
        reward = 0.0
        info_points: float | None = None
        if hand.over:
            assert hand.outcome is not None
            points = hand.outcome.payments[seat] / self.rules.stake
            info_points = points
            reward = self.draw_reward if hand.outcome.kind is OutcomeKind.DRAW else points
            self._done = True
        if self.shaping:
            potential = 0.0 if hand.over else self._phi()
            reward += self.shaping * (potential - self._potential)
            self._potential = potential
        if self.render_mode == "human":
            self.render()
        info = self._info()
        if info_points is not None:
            info["points"] = info_points
        return self._obs(), reward * self.reward_scale, hand.over, False, info

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

    def _phi(self) -> float:
        return float(huxi_progress(self.hand, self.seat)) if self.shaping else 0.0

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
        if self.obs_type == "info_state":
            tensor = info_state(raw, self.hand.events, self._history)
        else:
            tensor = featurize(raw)
        return {"observation": tensor, "action_mask": action_mask(raw, not self._done)}

    def _info(self) -> dict[str, Any]:
        hand = self.hand
        info: dict[str, Any] = {"seat": self.seat}
        if self.debug_seed:  # reveals every hidden card (see the constructor)
            info["hand_seed"] = hand.seed
        if hand.outcome is not None:
            info["outcome"] = hand.outcome.to_dict()
        return info
