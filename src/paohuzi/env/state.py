"""The environment's state API for search and replay (issue 36): a typed, serialisable :class:`EnvState` and
a public determinization, :func:`sample_world`.

:meth:`PaohuziEnv.get_state <paohuzi.env.aec.PaohuziEnv.get_state>` returns an :class:`EnvState`: the hand's
record (``docs/engine.md`` §8: rules, deal, every action so far) and what the environment adds to it (a hand
ended by an illegal action, the agents already stepped out after the end). It is JSON-ready
(:meth:`EnvState.to_dict`) and :meth:`~paohuzi.env.aec.PaohuziEnv.set_state` rebuilds the very environment
from it by replaying the record through the environment's own steps — so a state is also made from any
record: :meth:`EnvState.from_record` (``simulate --record`` output, a stored hand). ``env.clone()`` (an
independent copy, :meth:`paohuzi.engine.Hand.copy`) and ``env.step_back()`` (undo) need no replay.

:func:`sample_world` deals the cards one seat has not seen (R5) at random, consistently with its
observation, and returns a playable :class:`~paohuzi.engine.Hand` in that position: it reads the observation
only (:func:`paohuzi.bots.world.sample_world`, the search bot's determinization), never the hidden cards.

>>> from paohuzi.env import raw_env
>>> e = raw_env("qq")
>>> e.reset(seed=7)
>>> e.step(int(e.observe(e.agent_selection)["action_mask"].argmax()))
>>> s = e.get_state()
>>> len(s.record["actions"]), EnvState.from_dict(s.to_dict()) == s
(1, True)
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paohuzi.bots.view import read
from paohuzi.bots.world import build_hand
from paohuzi.bots.world import sample_world as _sample
from paohuzi.cards import PaohuziError
from paohuzi.engine import Hand, Observation

__all__ = ["EnvState", "StateError", "sample_world"]


class StateError(PaohuziError):
    """A state that cannot be read or set (a bad record, other rules, nothing to undo)."""


@dataclass(frozen=True, slots=True)
class EnvState:
    """One moment of an AEC environment (:class:`~paohuzi.env.aec.PaohuziEnv`), serialisable.

    :ivar record: the hand's record so far (:meth:`paohuzi.engine.Hand.record`, JSON form): rules, deal,
        actions as ``[seat, text]``, the result once over.
    :ivar illegal: ``(agent, reward)`` when the hand was ended by that agent's illegal action
        (:meth:`~paohuzi.env.aec.PaohuziEnv.end_illegal`), else None.
    :ivar dead_steps: the ``step(None)`` calls made after the end (each removes one agent, PettingZoo).
    """

    record: Mapping[str, Any]
    illegal: tuple[str, float] | None = None
    dead_steps: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"record": …, "illegal": [agent, reward] | null, "dead_steps": n}``."""
        illegal = None if self.illegal is None else [self.illegal[0], self.illegal[1]]
        return {"record": json.loads(json.dumps(self.record)), "illegal": illegal, "dead_steps": self.dead_steps}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | object) -> EnvState:
        """Read :meth:`to_dict`'s form back.

        :raises StateError: naming what is wrong.
        """
        if not isinstance(data, Mapping):
            raise StateError(f"a state is an object with a record, got {type(data).__name__}")
        record = data.get("record")
        if not isinstance(record, Mapping):
            raise StateError("a state needs its hand's record (an object)")
        illegal = data.get("illegal")
        if illegal is not None:
            ok = isinstance(illegal, (list, tuple)) and len(illegal) == 2 and isinstance(illegal[0], str)
            if not ok or isinstance(illegal[1], bool) or not isinstance(illegal[1], (int, float)):
                raise StateError(f"illegal must be null or [agent, reward], got {illegal!r}")
            illegal = (illegal[0], float(illegal[1]))
        dead = data.get("dead_steps", 0)
        if isinstance(dead, bool) or not isinstance(dead, int) or dead < 0:
            raise StateError(f"dead_steps must be a count ≥ 0, got {dead!r}")
        return cls(dict(record), illegal, dead)

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | object) -> EnvState:
        """The state at the end of a hand's record (``paohuzi simulate --record``, ``Hand.record()``, a stored
        hand); cut ``record["actions"]`` for an earlier moment.

        :raises StateError: if ``record`` is not an object with actions.
        """
        if not isinstance(record, Mapping) or not isinstance(record.get("actions"), list):
            raise StateError("a record is an object with a list of actions (docs/engine.md §8)")
        return cls(dict(record))


def sample_world(observation: Observation | Mapping[str, Any], rng: random.Random) -> Hand:
    """A playable hand in ``observation``'s position, the cards its seat has not seen dealt at random (R5:
    only the observation is read). The seat's own hand, every table, row and the card on offer are as
    observed; the other hands, the kinds of their face-down 偎 and the stock order are sampled as the search
    bot samples them (:mod:`paohuzi.bots.world`), and the other seats' 臭 are those their discards imply.

    :param observation: a seat's :class:`~paohuzi.engine.Observation` (or its JSON form) with a decision to
        make (``deciding``): the sampled hand waits for that decision.
    :param rng: the source of randomness (the same seed gives the same world).
    :raises StateError: for an observation without a decision (nothing to search) or one that does not read.
    """
    try:
        obs = observation if isinstance(observation, Observation) else Observation.from_dict(observation)
    except PaohuziError as exc:
        raise StateError(f"not an observation: {exc}") from None
    if not obs.deciding:
        raise StateError(f"seat {obs.seat} has no decision to make in this observation (phase {obs.phase})")
    view = read(obs)
    try:
        return build_hand(view, _sample(view, rng))
    except PaohuziError as exc:  # pragma: no cover - a world the sampler builds always fits the view
        raise StateError(f"the sampled world does not fit the observation: {exc}") from exc
