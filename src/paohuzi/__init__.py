"""paohuzi — 跑胡子 (字牌), the 80-card game of Hunan: an exact rules engine, bots, an RL environment and a
self-hostable online game. The rules are in ``docs/rules.md``; sections (R1, R2 …) are cited throughout.

With Gymnasium installed (the ``env`` extra), ``import paohuzi`` makes the Gymnasium id
``paohuzi/Paohuzi-v0`` (:class:`paohuzi.env.PaohuziGymEnv`, with a batched ``vector_entry_point``) known to
Gymnasium, whichever of the two is imported first, so ``import paohuzi; gymnasium.make("paohuzi/Paohuzi-v0")``
works. It imports neither Gymnasium nor the environment itself (the command line and the server start
without them): the id is registered as soon as Gymnasium is imported. ``gymnasium.make("paohuzi:paohuzi/
Paohuzi-v0")`` needs no import at all.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Any

from paohuzi import _compiled

# Before any engine module is imported: the compiled engine, or its sources (paohuzi/_compiled.py).
_compiled.install()

__version__ = "0.1.0"

#: The Gymnasium id of the single-agent environment (issue #16).
GYM_ID = "paohuzi/Paohuzi-v0"


def _register(gymnasium: Any) -> None:
    """Register :data:`GYM_ID` (string entry points: nothing of ours is imported)."""
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ID,
            entry_point="paohuzi.env.single:PaohuziGymEnv",
            vector_entry_point="paohuzi.env.vector:PaohuziVectorEnv",
        )


class _RegisterAfter(importlib.abc.Loader):
    """Gymnasium's own loader, then :func:`_register` once the module has run."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        _register(module)

    def __getattr__(self, name: str) -> Any:  # resource readers and the like: the real loader's
        return getattr(self._loader, name)


class _GymnasiumHook(importlib.abc.MetaPathFinder):
    """Registers :data:`GYM_ID` when Gymnasium is first imported (a one-shot entry of ``sys.meta_path``)."""

    def find_spec(self, fullname: str, path: Any, target: ModuleType | None = None) -> Any:
        if fullname != "gymnasium":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _RegisterAfter(spec.loader)
        return spec


if "gymnasium" in sys.modules:
    _register(sys.modules["gymnasium"])
elif not any(isinstance(f, _GymnasiumHook) for f in sys.meta_path):
    sys.meta_path.insert(0, _GymnasiumHook())
