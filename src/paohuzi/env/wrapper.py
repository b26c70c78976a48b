"""The checks of the public environment :func:`paohuzi.env.env`, in one wrapper layer.

PettingZoo's classic environments stack three wrappers: ``TerminateIllegalWrapper`` (an illegal action
ends the game with a penalty for the offender), ``AssertOutOfBoundsWrapper`` (an action outside the action
space is an error) and ``OrderEnforcingWrapper`` (calls out of order are refused). Every attribute read
through that stack (``agent_selection``, ``terminations``, …; about 44 per turn in PettingZoo's own
benchmark loop) goes through three ``BaseWrapper.__getattr__`` calls, which cost the environment 40% of
its speed. :class:`CheckedWrapper` makes the same three checks in one layer and reads the attributes that
every turn needs from the environment directly (properties, not ``__getattr__``).

It subclasses ``OrderEnforcingWrapper``, so it is one for PettingZoo (``agent_iter()`` and its
"step() in the loop" check, ``render()``/``state()`` before ``reset()``, ``aec_to_parallel``) and every
other attribute is forwarded as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo.utils.env_logger import EnvLogger  # type: ignore[import-untyped]
from pettingzoo.utils.wrappers import OrderEnforcingWrapper  # type: ignore[import-untyped]

from paohuzi.engine import IllegalActionError
from paohuzi.env.actions import NUM_ACTIONS, num_actions
from paohuzi.env.aec import PaohuziEnv

__all__ = ["CheckedWrapper"]


def _not_reset(name: str) -> AttributeError:
    return AttributeError(f"{name} cannot be accessed before reset")


class CheckedWrapper(OrderEnforcingWrapper):  # type: ignore[misc]
    """:class:`~paohuzi.env.aec.PaohuziEnv` with the checks of PettingZoo's ``TerminateIllegalWrapper``,
    ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``, behaving as those three stacked:

    * an action ID that is not legal now ends the hand: every agent is terminated (and truncated, as
      PettingZoo's wrapper does), the offender gets ``illegal_reward`` and the others 0; the engine's state
      is not touched and PettingZoo's "Illegal move made" warning is logged;
    * an action that is not in ``Discrete(115)`` (171 with ``yiwushi``; or None for an agent that must act) raises
      ``AssertionError("action is not in action space")`` and changes nothing; unlike an ``assert``
      statement it is raised under ``python -O`` too, and a ``bool`` is refused;
    * before the first ``reset()``: ``step()``, ``observe()``, ``state()``, ``render()`` and
      ``agent_iter()`` raise, and reading ``agents``, ``agent_selection``, ``rewards``, ``terminations``,
      ``truncations``, ``infos`` or ``num_agents`` raises ``AttributeError``; ``step()`` once every agent
      is gone only warns; a loop over ``agent_iter()`` must call ``step()``.

    :param env: the raw environment.
    :param illegal_reward: the offender's reward for an illegal action.
    """

    def __init__(self, env: PaohuziEnv, illegal_reward: float) -> None:
        super().__init__(env)
        self._raw: PaohuziEnv = env.unwrapped
        self._illegal_reward = float(illegal_reward)
        self._n_actions = num_actions(self._raw.rules.yiwushi)  # Discrete(115), 171 with 一五十 (R9.3)

    # ---------------------------------------------------------------------------------------------
    # The attributes of every turn: read from the environment directly. Setting one sets the
    # environment's (the old stack stored it on the outer wrapper, where the environment never saw it).
    # ---------------------------------------------------------------------------------------------

    @property
    def agent_selection(self) -> str:
        if self._has_reset:
            return self._raw.agent_selection
        raise _not_reset("agent_selection")

    @agent_selection.setter
    def agent_selection(self, value: str) -> None:
        self._raw.agent_selection = value

    @property
    def agents(self) -> list[str]:
        if self._has_reset:
            return self._raw.agents
        raise _not_reset("agents")

    @agents.setter
    def agents(self, value: list[str]) -> None:
        self._raw.agents = value

    @property
    def rewards(self) -> dict[str, float]:
        if self._has_reset:
            return self._raw.rewards
        raise _not_reset("rewards")

    @rewards.setter
    def rewards(self, value: dict[str, float]) -> None:
        self._raw.rewards = value

    @property
    def terminations(self) -> dict[str, bool]:
        if self._has_reset:
            return self._raw.terminations
        raise _not_reset("terminations")

    @terminations.setter
    def terminations(self, value: dict[str, bool]) -> None:
        self._raw.terminations = value

    @property
    def truncations(self) -> dict[str, bool]:
        if self._has_reset:
            return self._raw.truncations
        raise _not_reset("truncations")

    @truncations.setter
    def truncations(self, value: dict[str, bool]) -> None:
        self._raw.truncations = value

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        if self._has_reset:
            return self._raw.infos
        raise _not_reset("infos")

    @infos.setter
    def infos(self, value: dict[str, dict[str, Any]]) -> None:
        self._raw.infos = value

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self._raw._cumulative_rewards  # noqa: SLF001 — PettingZoo's own attribute, forwarded

    @_cumulative_rewards.setter
    def _cumulative_rewards(self, value: dict[str, float]) -> None:
        self._raw._cumulative_rewards = value  # noqa: SLF001 — PettingZoo's own attribute, forwarded

    @property
    def unwrapped(self) -> PaohuziEnv:
        return self._raw

    # ---------------------------------------------------------------------------------------------
    # The API, checked
    # ---------------------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._has_reset = True
        self._has_updated = True
        self._raw.reset(seed=seed, options=options)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool,
                                                   dict[str, Any]]:
        if not self._has_reset:
            raise _not_reset("agent_selection")
        raw = self._raw
        agent = raw.agent_selection
        return (
            raw.observe(agent) if observe else None,
            raw._cumulative_rewards[agent],  # noqa: SLF001 — PettingZoo's own attribute
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def step(self, action: int | np.integer | None) -> None:
        """Play ``action`` for ``agent_selection``, checked as described in the class docstring."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        self._has_updated = True
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            if action is not None and not _in_space(action, self._n_actions):
                raise AssertionError("action is not in action space")
            raw.step(action)  # a dead step: PettingZoo refuses any action but None
            return
        if not _in_space(action, self._n_actions):
            raise AssertionError("action is not in action space")
        try:
            move = raw.engine_action(agent, action)
        except IllegalActionError:
            EnvLogger.warn_on_illegal_move()
            raw.end_illegal(agent, self._illegal_reward)
            return
        raw.play_move(agent, move)

    # ---------------------------------------------------------------------------------------------
    # The state API (issue 36), wrapped again: a clone or a sampled world is checked as this one is
    # ---------------------------------------------------------------------------------------------

    def clone(self) -> CheckedWrapper:
        """:meth:`PaohuziEnv.clone <paohuzi.env.aec.PaohuziEnv.clone>`, with the same checks."""
        return self._again(self._raw.clone())

    def sample_world(self, agent: str | None = None, rng: Any = None) -> CheckedWrapper:
        """:meth:`PaohuziEnv.sample_world <paohuzi.env.aec.PaohuziEnv.sample_world>`, with the same checks."""
        return self._again(self._raw.sample_world(agent, rng))

    def set_state(self, state: Any) -> None:
        """:meth:`PaohuziEnv.set_state <paohuzi.env.aec.PaohuziEnv.set_state>`; the environment counts as reset."""
        self._raw.set_state(state)
        self._has_reset = True
        self._has_updated = True

    def _again(self, raw: PaohuziEnv) -> CheckedWrapper:
        new = CheckedWrapper(raw, self._illegal_reward)
        new._has_reset = self._has_reset  # noqa: SLF001 — the same wrapper class
        new._has_updated = self._has_updated  # noqa: SLF001 — the same wrapper class
        return new

    def __str__(self) -> str:
        return str(self._raw)


def _in_space(action: Any, n: int = NUM_ACTIONS) -> bool:
    """Whether ``action`` is in ``Discrete(n)`` as ``gymnasium.spaces.Discrete.contains`` has
    it (a Python or NumPy integer, or a 0-d integer array), except that a ``bool`` is not."""
    if type(action) is int:
        return 0 <= action < n
    if isinstance(action, bool):
        return False
    if isinstance(action, int):
        return 0 <= action < n
    if isinstance(action, (np.generic, np.ndarray)):
        return action.shape == () and np.issubdtype(action.dtype, np.integer) and 0 <= int(action) < n
    return False
