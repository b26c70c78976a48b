"""A batched Gymnasium environment: ``num_envs`` hands at once, each a :class:`PaohuziGymEnv`.

``gymnasium.make_vec("paohuzi/Paohuzi-v0", num_envs=8, opponents="random")`` builds it (the id's
``vector_entry_point``); ``vectorization_mode="sync"`` or ``"async"`` gives Gymnasium's own vectorizers
instead. It is Gymnasium's :class:`~gymnasium.vector.SyncVectorEnv` (next-step autoreset: the step after an
episode ends resets that environment and returns its first observation with reward 0) plus
:meth:`PaohuziVectorEnv.action_masks`, the batched masks, and :meth:`~PaohuziVectorEnv.state`; its infos
keep each copy's ``outcome`` dict whole (Gymnasium's own vectorizers batch dicts field by field, which fails
when one copy wins and another's hand is drawn in the same step: use this one).

>>> envs = PaohuziVectorEnv(num_envs=2, opponents="random")
>>> obs, info = envs.reset(seed=3)
>>> obs["observation"].shape, envs.action_masks().shape, bool((envs.action_masks() == obs["action_mask"]).all())
((2, 606), (2, 115), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from paohuzi.env.aec import EnvError
from paohuzi.env.single import Opponent, PaohuziGymEnv

__all__ = ["PaohuziVectorEnv"]


class PaohuziVectorEnv(gymnasium.vector.SyncVectorEnv):
    """``num_envs`` copies of :class:`PaohuziGymEnv` stepped together; ``**kwargs`` go to each.

    ``reset(seed=s)`` seeds copy ``i`` with ``s + i`` (Gymnasium's rule), so a run is reproducible.
    """

    def __init__(self, num_envs: int = 1, **kwargs: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise EnvError(f"num_envs must be a positive int, got {num_envs!r}")
        kwargs.pop("max_episode_steps", None)  # a hand always ends (R4.6: the stock runs out)
        PaohuziGymEnv(**kwargs)  # bad arguments fail here, once, with a clear error
        super().__init__([lambda: PaohuziGymEnv(**kwargs) for _ in range(num_envs)])

    def _add_info(self, vector_infos: dict[str, Any], env_info: dict[str, Any], env_num: int) -> dict[str, Any]:
        """Gymnasium's info batching, except that ``outcome`` (a dict whose fields change type: the
        ``winner`` is None on a 荒庄) is kept whole: ``info["outcome"][i]`` is copy i's outcome dict."""
        if "outcome" not in env_info:
            return super()._add_info(vector_infos, env_info, env_num)
        env_info = dict(env_info)
        outcome = env_info.pop("outcome")
        vector_infos = super()._add_info(vector_infos, env_info, env_num)
        if "outcome" not in vector_infos:
            vector_infos["outcome"] = np.full(self.num_envs, None, dtype=object)
            vector_infos["_outcome"] = np.zeros(self.num_envs, dtype=np.bool_)
        vector_infos["outcome"][env_num] = outcome
        vector_infos["_outcome"][env_num] = True
        return vector_infos

    def action_masks(self) -> np.ndarray:
        """The legal IDs of every copy now, ``(num_envs, 115)`` booleans (what each copy's observation
        ``action_mask`` holds)."""
        return np.stack([env.action_masks() for env in self.envs])  # type: ignore[attr-defined]

    def state(self) -> np.ndarray:
        """The global states of every copy, ``(num_envs, state size)`` (for centralised critics only)."""
        return np.stack([env.state() for env in self.envs])  # type: ignore[attr-defined]

    def set_opponents(self, opponents: str | Opponent | Sequence[Opponent]) -> None:
        """:meth:`PaohuziGymEnv.set_opponents` on every copy."""
        for env in self.envs:
            env.set_opponents(opponents)  # type: ignore[attr-defined]
