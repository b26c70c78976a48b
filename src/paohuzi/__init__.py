"""paohuzi — 跑胡子 (字牌), the 80-card game of Hunan: an exact rules engine, bots, an RL environment and a
self-hostable online game. The rules are in ``docs/rules.md``; sections (R1, R2 …) are cited throughout.

When Gymnasium is installed (the ``rl`` extra), importing the package registers the Gymnasium id
``paohuzi/Paohuzi-v0`` (:class:`paohuzi.env.PaohuziGymEnv`, with a batched ``vector_entry_point``), so
``import paohuzi; gymnasium.make("paohuzi/Paohuzi-v0")`` works; the environment module itself is imported
only when an environment is made. ``gymnasium.make("paohuzi:paohuzi/Paohuzi-v0")`` needs no import at all.
"""

from __future__ import annotations

__version__ = "0.1.0"

#: The Gymnasium id of the single-agent environment (issue #16).
GYM_ID = "paohuzi/Paohuzi-v0"


def _register_gymnasium() -> None:
    """Register :data:`GYM_ID` with Gymnasium if it is installed (string entry points: nothing imported)."""
    try:
        import gymnasium
    except ImportError:  # pragma: no cover - the rl extra is not installed
        return
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ID,
            entry_point="paohuzi.env.single:PaohuziGymEnv",
            vector_entry_point="paohuzi.env.vector:PaohuziVectorEnv",
        )


_register_gymnasium()
