"""The PettingZoo AEC environment ``paohuzi_v0``: one hand (一局) per episode. See :mod:`paohuzi.env`.

The environment is a thin adapter over :class:`paohuzi.engine.Hand`: the engine decides who must act and
what is legal (R4), the environment only picks which deciding seat acts next, turns engine actions into
IDs (:mod:`paohuzi.env.actions`) and observations into tensors (:mod:`paohuzi.env.features`).
"""

from __future__ import annotations

import operator
import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from paohuzi.cards import Card, PaohuziError
from paohuzi.engine import Action, Hand, IllegalActionError, Observation
from paohuzi.env.actions import NUM_ACTIONS, ActionEncodingError, decode, encode, num_actions
from paohuzi.env.features import (
    LAYOUTS,
    OBSERVATION_HIGH,
    OBSERVATION_SIZE,
    action_mask,
    featurize,
    observation_high,
    observation_size,
)
from paohuzi.rules import RuleSet, RuleSetError, parse_rules

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
]


class EnvError(PaohuziError):
    """Bad arguments to the environment (rules, reset options, an unknown agent)."""


class RenderModeError(EnvError, TypeError):
    """A ``render_mode`` the environment does not have (``rgb_array``): an :class:`EnvError` and a
    ``TypeError``, the error of an argument the constructor does not take. Stable-Baselines3's
    ``make_vec_env`` asks for ``render_mode="rgb_array"`` first and falls back to no render mode on a
    ``TypeError``, so the environment still vectorizes (issue #16)."""


def check_render_mode(render_mode: str | None, modes: list[str]) -> None:
    """Refuse a render mode not in ``modes`` (Gymnasium: ``metadata["render_modes"]``) with
    :class:`RenderModeError`; None (no rendering) is always allowed."""
    if render_mode is not None and render_mode not in modes:
        raise RenderModeError(
            f"render_mode must be None or one of {', '.join(map(repr, modes))}, got {render_mode!r}"
        )


def state_space(table_size: int, rules: RuleSet | None = None) -> spaces.Box:
    """The space of :func:`global_state`: ``Box(0, high, (table_size × n + 20,), float32)``, ``n`` the observation
    size under ``rules`` (606; 752 with four players in the hand, R9.3; the classic presets without ``rules``)."""
    obs_high = OBSERVATION_HIGH if rules is None else observation_high(rules)
    high = np.concatenate([np.tile(obs_high, table_size), np.full(20, 4, np.float32)]).astype(np.float32)
    return spaces.Box(0.0, high, (table_size * len(obs_high) + 20,), np.float32)


def global_state(hand: Hand, first: int = 0) -> np.ndarray:
    """The whole state of ``hand`` as one ``float32`` vector, for centralised critics (never for a
    policy: it holds every hidden card, R5 does not apply).

    It is each seat's own observation tensor (:func:`~paohuzi.env.features.featurize` of
    ``Hand.observation(seat)``, 606 values — 752 with four players in the hand — so every hand and every
    face-down 偎 is in it), for the table seats in turn order starting from ``first`` (a seat sitting the hand
    out with ``four_players`` gives zeros), then the copies of each card kind still in the stock (20 values,
    max 4). Only the stock's order is left out.
    """
    n = hand.table_size
    size = LAYOUTS[len(hand.seats)].size
    out = np.zeros(n * size + 20, np.float32)
    playing = set(hand.seats)
    for i in range(n):
        s = (first + i) % n
        if s in playing:
            out[i * size : (i + 1) * size] = featurize(hand.observation(s))
    stock = out[n * size :]
    for text in hand.referee_view()["stock_cards"]:
        stock[int(Card.parse(text))] += 1
    return out


def observation_space(rules: RuleSet | None = None) -> spaces.Dict:
    """``Dict(observation=Box(0, high, (606,), float32), action_mask=Box(0, 1, (115,), int8))`` for the classic
    presets; under ``rules`` its layout and highs (:func:`~paohuzi.env.features.observation_high`: 752 values with
    four players in the hand) and its action count (171 with ``yiwushi``, R9.3)."""
    if rules is None:
        high, size, actions = OBSERVATION_HIGH, OBSERVATION_SIZE, NUM_ACTIONS
    else:
        high, size, actions = observation_high(rules), observation_size(rules), num_actions(rules.yiwushi)
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, high, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (actions,), np.int8),
        }
    )


def action_space(rules: RuleSet | None = None) -> spaces.Discrete:
    """``Discrete(115)``: see :mod:`paohuzi.env.actions`; ``Discrete(171)`` for rules with ``yiwushi`` (R9.3)."""
    return spaces.Discrete(NUM_ACTIONS if rules is None else num_actions(rules.yiwushi))


def make_rules(rules: str | dict[str, Any] | RuleSet) -> RuleSet:
    """A rule set from a preset name, a rules object (``{"name": "hunan", "four_players": True, "cap": 100}``,
    as :meth:`RuleSet.to_dict` gives and JSON text of it) or a :class:`RuleSet`, R8.1 house options included.

    :raises EnvError: for a bad preset, option or value, or stake 0 (rewards are payments ÷ stake, and a
        stake-0 room pays nothing).
    """
    if not isinstance(rules, (str, dict, RuleSet)):
        raise EnvError(f"rules must be a preset name, a rules object or a RuleSet, got {rules!r}")
    try:
        rule_set = parse_rules(rules)
    except RuleSetError as exc:
        raise EnvError(str(exc)) from None
    if rule_set.stake == 0:
        raise EnvError("stake 0 pays nothing (R8.1 points only); rewards are payments ÷ stake: use a stake ≥ 1")
    return rule_set


def pending(hand: Hand) -> tuple[int | None, int | None]:
    """The card on offer (kind index) and the seat that drew or discarded it, in a claim window; else
    (None, None). Read from the last public ``show``/``discard`` event, so it needs no observation."""
    if hand.phase != "claim":
        return None, None
    for event in reversed(hand.events):
        if event.type in ("show", "discard"):
            return int(event.card), event.seat  # type: ignore[attr-defined]
    raise AssertionError("a claim window without a shown or discarded card")  # pragma: no cover


def decision_order(hand: Hand) -> list[int]:
    """The seats that must decide now, in the order the environment asks them: in a claim window, turn
    order from the seat that drew or discarded the card (R4.4); otherwise the engine's order."""
    deciding = list(hand.deciding)
    if len(deciding) > 1 and hand.phase == "claim":
        _, src = pending(hand)
        seats = hand.seats
        start = seats.index(src)
        n = len(seats)
        deciding.sort(key=lambda s: (seats.index(s) - start) % n)
    return deciding


class Dealer:
    """Hand seeds for one environment (R2 decision: a hand is reproducible from its seed).

    ``reset(seed=s)`` deals ``Hand(rules, seed=s)`` — the very hand the engine deals for seed ``s`` — and
    restarts the stream of later seeds from ``s``; a reset without a seed takes the next seed of the
    stream (the first stream, without any seed, starts from OS entropy). Hands that end as they are dealt
    (a dealt 天胡, R6.4) have no decision in them and are skipped: the next seed of the stream is dealt.
    """

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self._stream: random.Random | None = None

    def deal(self, seed: int | None, dealer: int | None = None, deck: Any = None) -> Hand:
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
                raise EnvError(f"seed must be an int, got {seed!r}")
            seed = int(seed)
            self._stream = random.Random(seed)
        elif self._stream is None:
            self._stream = random.Random(random.SystemRandom().getrandbits(64))
        stream = self._stream
        if seed is None:
            seed = stream.getrandbits(63)
        try:
            hand = Hand(self.rules, seed, dealer, deck=deck)
            while hand.over and deck is None:
                hand = Hand(self.rules, stream.getrandbits(63), dealer)
        except PaohuziError as exc:
            raise EnvError(str(exc)) from exc
        if hand.over:
            raise EnvError("the stacked deck ends the hand before anyone decides (a dealt 天胡, R6.4)")
        return hand

    def next_random(self) -> random.Random:
        """A generator seeded from the stream (for bots and seat choices that must replay with the seed)."""
        assert self._stream is not None
        return random.Random(self._stream.getrandbits(64))


def render_text(obs: dict[str, Any]) -> str:
    """A few lines describing a seat's observation (R5-safe: what that seat may see)."""
    me = obs["seat"]
    lines = [
        f"{obs['rules']}  phase {obs['phase']}  stock {obs['stock']}  dealer {obs['dealer']}  "
        f"亮张 {obs['liangzhang']}  seen by seat {me}"
    ]
    for s in obs["seats"]:
        table = " ".join(
            f"{g['kind']}:" + ("?" if g["cards"] is None else "".join(g["cards"])) for g in obs["tables"][s]
        )
        row = " ".join(e["card"] + ("" if e["discarded"] else "*") for e in obs["rows"][s])
        hand = " ".join(obs["hand"]) if s == me else f"{obs['hand_counts'][s]} cards"
        lines.append(f"  seat {s}: hand {hand} | table {table or '-'} | row {row or '-'}")
    if obs["pending"] is not None:
        p = obs["pending"]
        how = "drawn" if p["drawn"] else "discarded"
        lines.append(f"  on offer: {p['card']} ({how} by seat {p['from']})")
    if obs["legal"]:
        lines.append("  legal: " + ", ".join(obs["legal"]))
    if obs["outcome"] is not None:
        o = obs["outcome"]
        lines.append(f"  outcome: {o['kind']}, winner {o['winner']}, points {o['points']}, "
                     f"payments {o['payments']}")
    return "\n".join(lines)


class PaohuziEnv(AECEnv):  # type: ignore[misc]
    """The raw AEC environment (no wrappers); build it with :func:`paohuzi.env.raw_env` or, wrapped,
    :func:`paohuzi.env.env`. Its documentation page is the :mod:`paohuzi.env` module docstring.

    :param rules: a preset name (``qq``, ``hengyang``, ``hunan``, ``huayang``, and the R9 families' ``changde``,
        ``changde_qmt``, ``shihuka``), a rules object with R8.1 house
        options (``{"name": "hunan", "four_players": True, "cap": 100}``) or a :class:`RuleSet`.
    :param render_mode: None, ``ansi`` (``render()`` returns text) or ``human`` (prints it after each step).
    :raises EnvError: for bad rules or render mode.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi"],
        "name": "paohuzi_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, rules: str | dict[str, Any] | RuleSet = "qq", render_mode: str | None = None) -> None:
        super().__init__()
        try:
            self.rules = make_rules(rules)
        except PaohuziError as exc:
            raise EnvError(str(exc)) from exc
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.state_space = state_space(self.rules.players_at_table, self.rules)
        self.possible_agents = [f"player_{s}" for s in range(self.rules.players_at_table)]
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        obs_space, act_space = observation_space(self.rules), action_space(self.rules)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._dealer = Dealer(self.rules)
        self._hand: Hand | None = None
        self._cache: dict[str, tuple[int, Observation, dict[str, np.ndarray]]] = {}
        self._version = 0
        self._offered: tuple[int, int | None] = (-1, None)
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
        self._hand = self._dealer.deal(seed, options.get("dealer"), options.get("deck"))
        hand = self._hand
        self.agents = [self.possible_agents[s] for s in sorted(hand.seats)]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._version += 1
        self._cache = {}
        self.agent_selection = self.possible_agents[decision_order(hand)[0]]

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
            self._was_dead_step(action)
            return
        self.play_move(agent, self.engine_action(agent, action))

    def play_move(self, agent: str, move: Action) -> None:
        """Apply ``move``, a legal engine action of ``agent_selection`` (checked by :meth:`engine_action`),
        and advance the environment: the rest of :meth:`step`."""
        hand = self._hand
        assert hand is not None
        self._cumulative_rewards[agent] = 0.0
        hand.apply(self._seat_of[agent], move)
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
        out = {"observation": featurize(raw), "action_mask": action_mask(raw, selected)}
        self._cache[agent] = (self._version, raw, out)
        return raw, out

    def __str__(self) -> str:
        return str(self.metadata["name"])
