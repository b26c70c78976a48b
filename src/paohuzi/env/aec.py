"""The PettingZoo AEC environment ``paohuzi_v0``: one hand (一局) per episode. See :mod:`paohuzi.env`.

The environment is a thin adapter over :class:`paohuzi.engine.Hand`: the engine decides who must act and
what is legal (R4), the environment only picks which deciding seat acts next, turns engine actions into
IDs (:mod:`paohuzi.env.actions`) and observations into tensors (:mod:`paohuzi.env.features`).
"""

from __future__ import annotations

import operator
import random
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from paohuzi.cards import PaohuziError
from paohuzi.engine import Action, Hand, IllegalActionError, Observation
from paohuzi.env.actions import ActionEncodingError, decode, encode
from paohuzi.env.common import (
    OBS_TYPES,
    Dealer,
    EnvError,
    RenderModeError,
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
from paohuzi.env.state import EnvState, StateError, sample_world
from paohuzi.rules import RuleSet

__all__ = [
    "PaohuziEnv",
    "EnvError",
    "RenderModeError",
    "Dealer",
    "global_state",
    "check_render_mode",
    "state_space",
    "observation_space",
    "action_space",
    "make_rules",
    "pending",
    "decision_order",
    "render_text",
    "OBS_TYPES",
    "check_obs_type",
]

@dataclass(slots=True)
class _Moment:
    """What :meth:`PaohuziEnv.step_back` restores: the moves made so far, who was selected and, once the hand
    is over (or ended by an illegal action), the PettingZoo bookkeeping — before that it is always that of
    a fresh deal (no reward yet, nobody terminated), so a step costs no copy."""

    moves: int
    agent_selection: str
    skip: str | None  # PettingZoo's _skip_agent_selection (the agent after the dead steps)
    illegal: tuple[str, float] | None
    dead_steps: int
    histories: dict[str, tuple[int, int]]  # per agent: its information-state history's rows and events read
    ended: tuple[Any, ...] | None  # agents, rewards, cumulative, terminations, truncations, infos (copies)


class PaohuziEnv(AECEnv):  # type: ignore[misc]
    """The raw AEC environment (no wrappers); build it with :func:`paohuzi.env.raw_env` or, wrapped,
    :func:`paohuzi.env.env`. Its documentation page is the :mod:`paohuzi.env` module docstring.

    :param rules: a preset name (``qq``, ``hengyang``, ``hunan``, ``huayang``, and the R9 families' ``changde``,
        ``changde_qmt``, ``shihuka``), a rules object with R8.1 house
        options (``{"name": "hunan", "four_players": True, "cap": 100}``) or a :class:`RuleSet`.
    :param render_mode: None, ``ansi`` (``render()`` returns text) or ``human`` (prints it after each step).
    :param obs_type: ``snapshot`` (the observation tensor) or ``info_state`` (the information state:
        :mod:`paohuzi.env.infostate`).
    :raises EnvError: for bad rules, render mode or observation type.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi"],
        "name": "paohuzi_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, rules: str | dict[str, Any] | RuleSet = "qq", render_mode: str | None = None,
                 obs_type: str = "snapshot") -> None:
        super().__init__()
        self.obs_type = check_obs_type(obs_type)
        try:
            self.rules = make_rules(rules)
        except PaohuziError as exc:
            raise EnvError(str(exc)) from exc
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.state_space = state_space(self.rules.players_at_table, self.rules)
        self.possible_agents = [f"player_{s}" for s in range(self.rules.players_at_table)]
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        obs_space, act_space = observation_space(self.rules, self.obs_type), action_space(self.rules)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._dealer = Dealer(self.rules)
        self._hand: Hand | None = None
        self._cache: dict[str, tuple[int, Observation, dict[str, np.ndarray]]] = {}
        self._version = 0
        self._offered: tuple[int, int | None] = (-1, None)
        self._histories: dict[str, History] = {}  # per agent, with obs_type="info_state"
        self._undo: list[_Moment] = []
        self._origin: Hand | None = None  # the hand as it started (a copy, never played): step_back replays
        self._moves: list[tuple[int, Action]] = []  # from it
        self._illegal: tuple[str, float] | None = None
        self._dead_steps = 0
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection = self.possible_agents[0]

    # ---------------------------------------------------------------------------------------------
    # PettingZoo API
    # ---------------------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new hand. ``seed`` as in :class:`Dealer`. ``options`` may hold ``dealer`` (a seat) and
        ``deck`` (a stacked deck in deal order, see :func:`paohuzi.engine.stack_deck`); other keys are
        ignored."""
        options = options or {}
        self._start(self._dealer.deal(seed, options.get("dealer"), options.get("deck")))

    def _start(self, hand: Hand) -> None:
        """Take ``hand`` as the hand of a new episode (the bookkeeping of :meth:`reset`)."""
        self._hand = hand
        self._origin = hand.copy()
        self._moves = []
        self._undo = []
        self._histories = {}
        self._illegal = None
        self._dead_steps = 0
        self._fresh()
        self._version += 1
        self._cache = {}
        self.agent_selection = self.possible_agents[decision_order(hand)[0]]

    def _fresh(self) -> None:
        """PettingZoo's bookkeeping of a hand not over: every agent in, no reward yet, nobody terminated."""
        assert self._hand is not None
        self.agents = [self.possible_agents[s] for s in sorted(self._hand.seats)]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": tensor, "action_mask": mask}`` for ``agent``; the mask is all zeros unless
        ``agent`` is ``agent_selection`` with a decision to make."""
        return self._observe(agent)[1]

    def step(self, action: int | np.integer | None) -> None:
        """Play the action ID for ``agent_selection`` (None for an agent whose hand is over).

        :raises IllegalActionError: for an ID that is not legal now (the state is unchanged). The wrapped
            :func:`paohuzi.env.env` ends the hand with a penalty instead.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._push()
            self._was_dead_step(action)
            self._dead_steps += 1
            return
        self.play_move(agent, self.engine_action(agent, action))

    def play_move(self, agent: str, move: Action) -> None:
        """Apply ``move``, a legal engine action of ``agent_selection`` (checked by :meth:`engine_action`),
        and advance the environment: the rest of :meth:`step`."""
        hand = self._hand
        assert hand is not None
        self._push()
        self._cumulative_rewards[agent] = 0.0
        seat = self._seat_of[agent]
        hand.apply(seat, move)
        self._moves.append(hand.last_action or (seat, move))
        self._version += 1
        if hand.over:
            outcome = hand.outcome
            assert outcome is not None
            stake = self.rules.stake
            summary = outcome.to_dict()
            for a in self.agents:
                self.rewards[a] = outcome.payments[self._seat_of[a]] / stake
                self.terminations[a] = True
                self.infos[a] = {"outcome": summary}
            self._accumulate_rewards()
            self._deads_step_first()
        else:
            deciding = hand.deciding
            seat = deciding[0] if len(deciding) == 1 else decision_order(hand)[0]
            self.agent_selection = self.possible_agents[seat]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The table as ``agent_selection`` sees it (R5): the text for ``ansi``; printed for ``human``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (use 'ansi' or 'human')")
            return None
        if self._hand is None:
            return "(no hand dealt: call reset())"
        text = render_text(self.raw_observation(self.agent_selection))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    def state(self) -> np.ndarray:
        """The global state for centralised critics (:func:`global_state`, table seats from seat 0; in
        :attr:`state_space`). It holds every hidden card: give it to a critic, never to a policy.

        :raises EnvError: before the first :meth:`reset`.
        """
        return global_state(self.hand)

    def action_masks(self) -> np.ndarray:
        """The legal IDs of ``agent_selection`` as 115 booleans
        (171 with ``yiwushi``): ``observe(agent_selection)["action_mask"]``
        as ``bool`` (the name sb3-contrib's maskable algorithms call). All False once the hand is over."""
        return self.observe(self.agent_selection)["action_mask"].astype(bool)

    # ---------------------------------------------------------------------------------------------
    # Beyond PettingZoo: the engine side of the same state
    # ---------------------------------------------------------------------------------------------

    @property
    def hand(self) -> Hand:
        """The engine's hand (referee information: never give it to a policy). ``hand.record()``
        replays it with :func:`paohuzi.engine.replay`.

        :raises EnvError: before the first :meth:`reset`.
        """
        if self._hand is None:
            raise EnvError("no hand dealt yet: call reset() first")
        return self._hand

    def seat_of(self, agent: str) -> int:
        """The table seat of ``agent`` (``player_2`` → 2)."""
        try:
            return self._seat_of[agent]
        except KeyError:
            raise EnvError(f"no such agent {agent!r} (agents: {', '.join(self.possible_agents)})") from None

    def raw_observation(self, agent: str) -> dict[str, Any]:
        """The engine's observation dict of ``agent``'s seat (R5-safe, JSON-ready; see docs/engine.md)."""
        return self._observe(agent)[0].to_dict()

    def legal_actions(self, agent: str) -> list[Action]:
        """The engine actions ``agent`` may take now (empty unless it is ``agent_selection``)."""
        if agent != self.agent_selection or self.terminations.get(agent, True):
            return []
        return self.hand.legal_actions(self.seat_of(agent))

    def action_id(self, action: Action) -> int:
        """The ID of an engine action now (a 吃's ID depends on the card on offer).

        :raises ActionEncodingError: if the action has no ID now.
        """
        return encode(action, pending(self.hand)[0])

    def engine_action(self, agent: str, action_id: int | np.integer | None) -> Action:
        """The engine action of ``action_id`` for ``agent`` now, checked.

        :raises IllegalActionError: if it is not among ``agent``'s legal actions now.
        """
        seat = self.seat_of(agent)
        card = self._offer()
        try:
            move = decode(operator.index(action_id), card, self.rules.yiwushi)  # type: ignore[arg-type]
        except (ActionEncodingError, TypeError) as exc:
            raise IllegalActionError(seat, action_id, str(exc)) from None
        legal = self.legal_actions(agent)
        for known in legal:  # the engine's own instance, which it finds by identity
            if known is move:
                return known
        for known in legal:
            if known == move:
                return known
        listed = ", ".join(f"{encode(a, card)}={a}" for a in legal) or "none"
        raise IllegalActionError(seat, move, f"action ID {action_id} is not legal now; legal: {listed}")

    def _offer(self) -> int | None:
        """The card on offer now (:func:`pending`), worked out once per state of the environment."""
        version, card = self._offered
        if version != self._version:
            card = pending(self.hand)[0]
            self._offered = (self._version, card)
        return card

    def end_illegal(self, agent: str, reward: float) -> None:
        """End the hand because ``agent`` chose an illegal action, without touching the engine's state:
        ``reward`` for ``agent``, 0 for the others, every agent terminated and truncated (exactly what
        PettingZoo's ``TerminateIllegalWrapper`` does). The wrapped :func:`paohuzi.env.env` calls it."""
        self._push()
        self._illegal = (agent, float(reward))
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = float(reward)
        self._accumulate_rewards()
        self._deads_step_first()
        self._version += 1  # every mask is now all zeros

    def _observe(self, agent: str) -> tuple[Observation, dict[str, np.ndarray]]:
        hit = self._cache.get(agent)
        if hit is not None and hit[0] == self._version:
            return hit[1], hit[2]
        seat = self.seat_of(agent)
        raw = self.hand.observation(seat)
        selected = agent == self.agent_selection and not self.terminations.get(agent, True)
        if self.obs_type == "info_state":
            history = self._histories.get(agent)
            if history is None:
                history = self._histories[agent] = History(seat, self.hand.seats, history_capacity(self.rules))
            tensor = info_state(raw, self.hand.events, history)
        else:
            tensor = featurize(raw)
        out = {"observation": tensor, "action_mask": action_mask(raw, selected)}
        self._cache[agent] = (self._version, raw, out)
        return raw, out

    # ---------------------------------------------------------------------------------------------
    # The state API (issue 36): clone, get/set a serialisable state, undo, determinize
    # ---------------------------------------------------------------------------------------------

    def clone(self) -> PaohuziEnv:
        """An independent copy of this environment in its current state (:meth:`Hand.copy`; the seed stream,
        the undo history and the information-state histories copied too): stepping one leaves the other as
        it was. Both hold the hidden cards: a clone is for search on the referee's side."""
        return self._copy()

    def _copy(self, hand: Hand | None = None, agent: str | None = None) -> PaohuziEnv:
        """:meth:`clone`; with ``hand``, a new episode on it that keeps only ``agent``'s information-state
        history (:meth:`sample_world`)."""
        new: PaohuziEnv = PaohuziEnv.__new__(PaohuziEnv)
        new.__dict__.update(self.__dict__)
        new._dealer = self._dealer.copy()
        new._hand = None if self._hand is None else self._hand.copy()
        new.agents = list(self.agents)
        new.rewards, new._cumulative_rewards = dict(self.rewards), dict(self._cumulative_rewards)
        new.terminations, new.truncations = dict(self.terminations), dict(self.truncations)
        new.infos = {a: dict(i) for a, i in self.infos.items()}
        new._undo, new._moves = list(self._undo), list(self._moves)  # the origin is never played: shared
        new._histories = {a: h.copy() for a, h in self._histories.items()}
        new._cache = dict(self._cache)
        if hand is not None:
            new._start(hand)
            new._version += 1
            new._cache = {}
            history = self._histories.get(agent or "")
            if history is not None:
                kept = new._histories[agent or ""] = history.copy()
                kept.seen = 0  # the new hand's events start at this position
        return new

    def get_state(self) -> EnvState:
        """The current state, typed and JSON-ready (:class:`~paohuzi.env.state.EnvState`: the hand's record
        and the environment's bookkeeping); :meth:`set_state` rebuilds it.

        :raises EnvError: before the first :meth:`reset`, or for a hand without a deal (a :meth:`sample_world`
            position: use :meth:`clone`).
        """
        try:
            record = self.hand.record()
        except PaohuziError as exc:
            raise EnvError(f"this hand has no record to make a state of ({exc}); clone() copies it") from None
        return EnvState(record, self._illegal, self._dead_steps)

    def set_state(self, state: EnvState | dict[str, Any]) -> None:
        """Put the environment in ``state`` (an :class:`~paohuzi.env.state.EnvState` or its JSON form): the
        record's deal, then each recorded action through the environment's own steps, so observations,
        rewards, terminations and infos are those of the replayed hand. The seed stream is kept and the undo
        history starts empty.

        :raises EnvError: for a state that does not read, another rule set, or an action the hand refuses.
        """
        from paohuzi.engine import ReplayError, replay  # noqa: PLC0415 (a replay is this method's only use)

        try:
            state = state if isinstance(state, EnvState) else EnvState.from_dict(state)
            hand = replay(dict(state.record), upto=0)
        except (StateError, ReplayError) as exc:
            raise EnvError(f"bad state: {exc}") from None
        if hand.rules != self.rules:
            raise EnvError(f"the state's hand is played under {hand.rules.name} with other options than this "
                           f"environment's {self.rules.name}: {hand.rules.to_dict()} ≠ {self.rules.to_dict()}")
        mode, self.render_mode = self.render_mode, None
        try:
            self._start(hand)
            self._version += 1
            self._cache = {}
            for i, (seat, text) in enumerate(state.record["actions"]):
                agent = self.possible_agents[seat]
                if text == "leave" or agent not in self.agents or self.terminations[agent]:
                    raise EnvError(f"action {i} ({seat}, {text!r}) cannot be played in the environment")
                self.agent_selection = agent
                try:
                    self.play_move(agent, text)  # the engine reads an action's text
                except PaohuziError as exc:
                    raise EnvError(f"action {i} ({seat}, {text!r}) refused: {exc}") from None
            if state.illegal is not None:
                self.agent_selection = state.illegal[0]
                self.end_illegal(*state.illegal)
            for _ in range(state.dead_steps):
                if not self.agents:
                    raise EnvError(f"{state.dead_steps} dead steps, but every agent is gone before")
                self.step(None)
        finally:
            self.render_mode = mode
        self._undo = []

    def step_back(self) -> None:
        """Undo the last :meth:`step` (a move, an illegal action's end or a dead step): the hand and every
        PettingZoo attribute as they were before it. Back to the deal at most.

        :raises EnvError: with nothing to undo (no step since :meth:`reset` or :meth:`set_state`).
        """
        if not self._undo:
            raise EnvError("nothing to undo: no step since the deal (reset or set_state)")
        m = self._undo.pop()
        if m.moves < len(self._moves):
            assert self._origin is not None
            hand = self._origin.copy()
            del self._moves[m.moves :]
            for seat, move in self._moves:
                hand.apply(seat, move)
            self._hand = hand
        if m.ended is None:
            self._fresh()
        else:
            agents, rewards, cumulative, terminations, truncations, infos = m.ended  # copied: a clone may share m
            self.agents, self.rewards, self._cumulative_rewards = list(agents), dict(rewards), dict(cumulative)
            self.terminations, self.truncations = dict(terminations), dict(truncations)
            self.infos = {a: dict(i) for a, i in infos.items()}
        self.agent_selection = m.agent_selection
        self._illegal, self._dead_steps = m.illegal, m.dead_steps
        if m.skip is not None:
            self._skip_agent_selection = m.skip
        kept = {}
        for a, history in self._histories.items():  # cut back to what they held (a clone's are its own)
            if a in m.histories:
                history.truncate(*m.histories[a])
                kept[a] = history
        self._histories = kept
        self._version += 1

    def sample_world(self, agent: str | None = None, rng: random.Random | int | None = None) -> PaohuziEnv:
        """A new environment in the same position with the cards ``agent`` has not seen dealt at random
        (:func:`paohuzi.env.state.sample_world`: a public determinization that reads ``agent``'s observation
        only). ``agent`` is ``agent_selection`` by default and must have a decision to make; ``rng`` a
        ``random.Random`` or a seed. With ``obs_type="info_state"`` the new environment keeps ``agent``'s
        history (the others' start at this position: their past is not public). It has no record
        (:meth:`get_state` refuses; :meth:`clone` works).

        :raises EnvError: for an agent with no decision now.
        """
        agent = self.agent_selection if agent is None else agent
        raw = self._observe(agent)[0]
        gen = rng if isinstance(rng, random.Random) else random.Random(rng)
        try:
            hand = sample_world(raw, gen)
        except StateError as exc:
            raise EnvError(str(exc)) from None
        return self._copy(hand, agent)

    def _push(self) -> None:
        """Remember the state before a step, for :meth:`step_back`."""
        hand = self._hand
        assert hand is not None
        ended = None
        if hand.over or self._illegal is not None or len(self.agents) != len(hand.seats):
            ended = (list(self.agents), dict(self.rewards), dict(self._cumulative_rewards), dict(self.terminations),
                     dict(self.truncations), {a: dict(i) for a, i in self.infos.items()})
        self._undo.append(_Moment(
            len(self._moves), self.agent_selection, getattr(self, "_skip_agent_selection", None), self._illegal,
            self._dead_steps, {a: (h.count, h.seen) for a, h in self._histories.items()} if self._histories else {},
            ended,
        ))

    def __str__(self) -> str:
        return str(self.metadata["name"])
