"""What the environments share (issue 36 split it from :mod:`paohuzi.env.aec`): their errors, spaces and
arguments, the global state for critics, the seat order of decisions, the hand seeds and the text rendering.
:mod:`paohuzi.env.aec` re-exports every name."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces

from paohuzi.cards import Card, PaohuziError
from paohuzi.engine import Hand
from paohuzi.env.actions import NUM_ACTIONS, num_actions
from paohuzi.env.features import (
    LAYOUTS,
    OBSERVATION_HIGH,
    OBSERVATION_SIZE,
    featurize,
    observation_high,
    observation_size,
)
from paohuzi.env.infostate import info_state_high, info_state_size
from paohuzi.rules import RuleSet, RuleSetError, parse_rules

__all__ = [
    "EnvError",
    "RenderModeError",
    "Dealer",
    "global_state",
    "check_render_mode",
    "check_obs_type",
    "state_space",
    "observation_space",
    "action_space",
    "make_rules",
    "pending",
    "decision_order",
    "render_text",
    "OBS_TYPES",
]

#: The observation types (``obs_type``): the snapshot tensor (:mod:`paohuzi.env.features`) or the
#: information state, the seat's perfect-recall history with it (:mod:`paohuzi.env.infostate`).
OBS_TYPES = ("snapshot", "info_state")


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


def check_obs_type(obs_type: object) -> str:
    """``obs_type`` checked: one of :data:`OBS_TYPES`.

    :raises EnvError: for another value."""
    if obs_type not in OBS_TYPES:
        raise EnvError(f"obs_type must be one of {', '.join(map(repr, OBS_TYPES))}, got {obs_type!r}")
    return str(obs_type)


def observation_space(rules: RuleSet | None = None, obs_type: str = "snapshot") -> spaces.Dict:
    """``Dict(observation=Box(0, high, (606,), float32), action_mask=Box(0, 1, (115,), int8))`` for the classic
    presets; under ``rules`` its layout and highs (:func:`~paohuzi.env.features.observation_high`: 752 values with
    four players in the hand) and its action count (171 with ``yiwushi``, R9.3). With ``obs_type="info_state"``
    the ``observation`` is the information state (:func:`~paohuzi.env.infostate.info_state_size` values)."""
    if obs_type == "info_state":
        rules = rules or make_rules("qq")
        high, size, actions = info_state_high(rules), info_state_size(rules), num_actions(rules.yiwushi)
    elif rules is None:
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
    (None, None). Read from the last public ``show``/``discard`` event, so it needs no observation (but in a
    hand set up by :meth:`~paohuzi.engine.Hand.from_position` before its first card is shown)."""
    if hand.phase != "claim":
        return None, None
    for event in reversed(hand.events):
        if event.type in ("show", "discard"):
            return int(event.card), event.seat  # type: ignore[attr-defined]
    offer = hand.observation(hand.seats[0]).pending  # a hand set up from a position has no events before
    assert offer is not None, "a claim window without a card on offer"
    return int(offer.card), offer.from_seat


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
        self._shared = False  # the stream may be another dealer's too (copy)

    def deal(self, seed: int | None, dealer: int | None = None, deck: Any = None) -> Hand:
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
                raise EnvError(f"seed must be an int, got {seed!r}")
            seed = int(seed)
            self._stream, self._shared = random.Random(seed), False
        elif self._own() is None:
            self._stream = random.Random(random.SystemRandom().getrandbits(64))
        stream = self._stream
        assert stream is not None
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

    def copy(self) -> Dealer:
        """A dealer that goes on with the same seed stream independently (copied on its first use, by
        either dealer: a clone costs nothing until it deals)."""
        new = Dealer(self.rules)
        new.share(self)
        return new

    def share(self, other: Dealer) -> None:
        """Go on with ``other``'s seed stream (copied on first use by either, :meth:`copy`)."""
        self._stream = other.stream
        self._shared = other._shared = self._stream is not None  # noqa: SLF001 — the same class

    @property
    def stream(self) -> random.Random | None:
        """The seed stream (None before the first deal)."""
        return self._stream

    def _own(self) -> random.Random | None:
        """The stream, copied first if another dealer may share it."""
        if self._shared and self._stream is not None:
            stream = random.Random()
            stream.setstate(self._stream.getstate())
            self._stream, self._shared = stream, False
        return self._stream

    def next_random(self) -> random.Random:
        """A generator seeded from the stream (for bots and seat choices that must replay with the seed)."""
        stream = self._own()
        assert stream is not None
        return random.Random(stream.getrandbits(64))


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
