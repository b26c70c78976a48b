"""A batched fast path: ``num_hands`` hands of paohuzi stepped together in one process, numpy in and out.

Each row of the batch is one hand of the AEC environment (:mod:`paohuzi.env`) played by whoever acts for its
deciding seat (self-play over every seat, or one learner and policies of your own): :meth:`BatchEnv.step`
takes one action ID per row — for that row's deciding seat — and returns every row's next observation
tensor, action mask and deciding seat, with the rewards of the rows whose hand ended at this step and
their ``dones``. A row whose hand ends is dealt its next hand in the same call (*same-step autoreset*): the
observation returned for it is the first of the new hand, its rewards and ``done`` those of the hand that
ended, and :attr:`BatchEnv.outcomes` holds that hand's outcome.

Same observations, masks, action IDs and rewards as the AEC environment, step for step: row ``i`` after
``reset(seed=s)`` plays exactly the hands of ``env()`` after ``reset(seed=s + i)`` and its later
``reset()`` calls (the same :class:`~paohuzi.env.aec.Dealer`), asking the seats in the order the AEC
environment selects its agents; an illegal ID ends the hand as in ``env()`` (``illegal_reward`` for the
offender, 0 for the others). The AEC environment's dead steps at the end of a hand have no row here. It is
faster because the tensors of a step are made into one buffer and converted once for the whole batch, and
nothing is made for seats that do not act; when the compiled tensor is built (``paohuzi._accel_tensor``,
:data:`ACCELERATED`) it observes each row in one call, writing its tensor (the values of
:func:`~paohuzi.env.features.featurize_bytes`), its mask and its seat straight into the batch's arrays
(``bench/env.py``; docs/PERFORMANCE.md).

>>> import numpy as np
>>> batch = BatchEnv(num_hands=4, rules="qq")
>>> observations, masks, seats = batch.reset(seed=7)
>>> observations.shape, observations.dtype, masks.shape, masks.dtype, seats.shape
((4, 606), dtype('float32'), (4, 115), dtype('int8'), (4,))
>>> actions = np.argmax(masks, axis=1)  # the first legal ID of every row
>>> observations, masks, seats, rewards, dones = batch.step(actions)
>>> rewards.shape, dones.dtype, float(rewards.sum())
((4, 3), dtype('bool'), 0.0)
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from paohuzi.cards import NUM_KINDS, PaohuziError
from paohuzi.engine import Hand, Observation, Outcome
from paohuzi.env.actions import action_ids, decode, num_actions
from paohuzi.env.aec import Dealer, EnvError, decision_order, make_rules
from paohuzi.env.features import LAYOUTS, _relative, featurize_bytes, observation_size
from paohuzi.env.single import DEFAULT_ILLEGAL_REWARD
from paohuzi.groups import GroupKind
from paohuzi.rules import RuleSet

__all__ = ["BatchEnv", "ACCELERATED"]


def _load_accelerator() -> ModuleType | None:
    """The compiled tensor (``paohuzi._accel_tensor``), set up with this layout, or None (not built, stale, or
    ``PAOHUZI_PURE=1``): then :func:`featurize_bytes` writes the tensor, with the same values."""
    try:
        from paohuzi import _accel_tensor  # type: ignore[attr-defined]  # compiled; absent without a C compiler
    except ImportError:
        return None
    if not _accel_tensor.usable():
        return None
    _accel_tensor.setup(LAYOUTS, _relative, NUM_KINDS, tuple(GroupKind), action_ids, decision_order)
    return _accel_tensor  # type: ignore[no-any-return]


_ACCEL = _load_accelerator()
#: True when the compiled tensor writes the batch's observations (the tests check it is loaded whenever built).
ACCELERATED: bool = _ACCEL is not None


class BatchEnv:
    """``num_hands`` hands stepped together; see the module docstring.

    :param num_hands: rows in the batch (≥ 1).
    :param rules: a preset name, a rules object with R8.1 house options or a :class:`RuleSet` (every preset:
        the tensor has 752 values with four players in the hand and the action space 171 IDs with
        ``yiwushi``, R9.3, as in the AEC environment).
    :param illegal_reward: the reward of an illegal action ID for the seat that chose it (the hand then ends).
    :raises EnvError: for bad arguments.

    :ivar observation_size: the tensor's length; :ivar num_actions: the action space's size;
        :ivar num_seats: seats at the table (the rewards' width: 3, or 4 with ``four_players`` or 六胡抢).
    """

    def __init__(self, num_hands: int = 64, rules: str | dict[str, Any] | RuleSet = "qq",
                 illegal_reward: float = DEFAULT_ILLEGAL_REWARD) -> None:
        if isinstance(num_hands, bool) or not isinstance(num_hands, (int, np.integer)) or num_hands < 1:
            raise EnvError(f"num_hands must be a positive int, got {num_hands!r}")
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float, np.integer, np.floating)):
            raise EnvError(f"illegal_reward must be a number, got {illegal_reward!r}")
        try:
            self.rules = make_rules(rules)
        except PaohuziError as exc:
            raise EnvError(str(exc)) from exc
        self.num_hands = int(num_hands)
        self.illegal_reward = float(illegal_reward)
        self.observation_size = observation_size(self.rules)
        self.num_actions = num_actions(self.rules.yiwushi)
        self.num_seats = self.rules.players_at_table
        self._dealers = [Dealer(self.rules) for _ in range(self.num_hands)]
        self._hands: list[Hand] = []
        self._observations: list[Observation] = []
        # Each row's tensor, mask and deciding seat, written in place by _observe (the compiled Rows.observe when
        # built: the same values).
        self._tensors = np.zeros((self.num_hands, self.observation_size), np.uint8)
        self._masks = np.zeros((self.num_hands, self.num_actions), np.int8)
        self._seats = np.zeros(self.num_hands, np.int64)
        self._observe_row = self._row_observer()
        #: Per row, the outcome of the hand that ended at the last step (None for a row whose hand goes on).
        self.outcomes: list[Outcome | None] = [None] * self.num_hands

    def _row_observer(self) -> Callable[[Hand, int], Observation]:
        """What observes a row into this batch's arrays: the compiled ``Rows.observe`` on them, or :meth:`_observe`."""
        if _ACCEL is None:
            return self._observe
        return _ACCEL.Rows(self._tensors, self._masks, self._seats).observe  # type: ignore[no-any-return]

    def __getstate__(self) -> dict[str, Any]:
        """For copy and pickle: the compiled observer holds this batch's arrays, so a copy makes its own."""
        state = self.__dict__.copy()
        del state["_observe_row"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._observe_row = self._row_observer()

    @property
    def hands(self) -> list[Hand]:
        """The engine's hand of every row (referee information: never give it to a policy; ``hands[i].record()``
        replays it).

        :raises EnvError: before the first :meth:`reset`.
        """
        if not self._hands:
            raise EnvError("no hands dealt yet: call reset() first")
        return self._hands

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal a new hand in every row: row ``i`` deals as the AEC environment's ``reset(seed=seed + i)`` (its
        later hands are the next of that seed's stream); without a seed, from OS entropy.

        :returns: ``(observations, masks, seats)``: ``float32 (num_hands, observation_size)``, ``int8
            (num_hands, num_actions)`` and each row's deciding seat (``int64 (num_hands,)``).
        :raises EnvError: for a seed that is not an int.
        """
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise EnvError(f"seed must be an int, got {seed!r}")
        self._hands = [dealer.deal(None if seed is None else int(seed) + i) for i, dealer in enumerate(self._dealers)]
        self.outcomes = [None] * self.num_hands
        observe = self._observe_row
        self._observations = [observe(hand, i) for i, hand in enumerate(self._hands)]
        return self._arrays()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Play one action ID in every row, for that row's deciding seat.

        :param actions: ``num_hands`` integer IDs (a sequence or an integer array).
        :returns: ``(observations, masks, seats, rewards, dones)``: the first three as :meth:`reset` gives them
            (for a row whose hand ended: its next hand's); ``rewards`` ``float32 (num_hands, num_seats)``, each
            seat's points (payment ÷ stake, R7.3) in the rows whose hand ended at this step, 0 elsewhere;
            ``dones`` ``bool (num_hands,)``. An illegal ID ends its row's hand with ``illegal_reward`` for its
            seat and 0 for the others, the engine's state untouched (as the checked ``env()`` does).
        :raises EnvError: before :meth:`reset`, or for actions of the wrong shape or type or out of range
            (nothing is played then).
        """
        ids = self._check(actions)
        n = self.num_hands
        legal = self._masks[np.arange(n), ids].tolist()
        chosen = ids.tolist()
        rewards = np.zeros((n, self.num_seats), np.float32)
        dones = np.zeros(n, np.bool_)
        outcomes: list[Outcome | None] = [None] * n
        hands, observations, dealers = self._hands, self._observations, self._dealers
        yiwushi, stake = self.rules.yiwushi, self.rules.stake
        observe = self._observe_row
        for i in range(n):
            hand = hands[i]
            obs = observations[i]
            if legal[i]:
                pending = obs.pending
                hand.apply(obs.seat, decode(chosen[i], None if pending is None else pending.card, yiwushi))
                if hand.over:
                    outcome = outcomes[i] = hand.outcome
                    assert outcome is not None
                    for s, paid in enumerate(outcome.payments):
                        rewards[i, s] = paid / stake
                    dones[i] = True
                    hands[i] = dealers[i].deal(None)
            else:
                rewards[i, obs.seat] = self.illegal_reward
                dones[i] = True
                hands[i] = dealers[i].deal(None)
            observations[i] = observe(hands[i], i)
        self.outcomes = outcomes
        observations_out, masks, seats_out = self._arrays()
        return observations_out, masks, seats_out, rewards, dones

    def _check(self, actions: Any) -> np.ndarray:
        if not self._hands:
            raise EnvError("no hands dealt yet: call reset() first")
        try:
            ids = np.asarray(actions)
        except (TypeError, ValueError) as exc:
            raise EnvError(f"actions must be {self.num_hands} action IDs: {exc}") from None
        if ids.shape != (self.num_hands,):
            raise EnvError(f"actions must have shape ({self.num_hands},), one ID per hand; got shape {ids.shape}")
        if ids.dtype == np.bool_ or not np.issubdtype(ids.dtype, np.integer):
            raise EnvError(f"actions must be integer action IDs, got dtype {ids.dtype}")
        bad = np.flatnonzero((ids < 0) | (ids >= self.num_actions))
        if bad.size:
            i = int(bad[0])
            raise EnvError(f"action {int(ids[i])} of hand {i} is out of range 0–{self.num_actions - 1} "
                           f"({bad.size} out of range)")
        return ids.astype(np.int64, copy=False)

    def _observe(self, hand: Hand, i: int) -> Observation:
        """Row ``i`` is ``hand``: its deciding seat (the AEC environment's ``agent_selection``), that seat's
        tensor and its legal IDs as a 0/1 mask, written into the row's place in the batch's arrays; returns the
        seat's observation. The compiled ``Rows.observe`` does the same in one call."""
        deciding = hand.deciding
        seat = deciding[0] if len(deciding) == 1 else decision_order(hand)[0]
        obs = hand.observation(seat)
        self._tensors[i] = np.frombuffer(featurize_bytes(obs), np.uint8)
        pending = obs.pending
        mask = self._masks[i]
        mask[:] = 0
        mask[action_ids(obs.legal, None if pending is None else pending.card)] = 1
        self._seats[i] = seat
        return obs

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self._tensors.astype(np.float32), self._masks.copy(), self._seats.copy()
