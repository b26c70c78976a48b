"""The optional compiled engine (mypyc; issue 15, docs/decisions.md "The compiled engine"): which modules it
covers, and whether this process uses it.

``setup.py`` compiles the modules of :data:`MODULES` with mypyc when it can (a C compiler, mypy at build
time) and writes :data:`MANIFEST` beside this file: the sha256 of each module's source as compiled. The same
``.py`` files stay the reference: a compiled module is the same code, so it gives the same answers.

Python prefers an extension module to a ``.py`` of the same name, so :func:`install` (run by ``import
paohuzi`` before anything else of the package is imported) decides once for all of them, because the
compiled modules call each other directly (one shared library) and must never be mixed with source ones:

- the compiled build runs when every module has its extension next to it and the manifest says it was
  built from exactly the ``.py`` there now;
- otherwise (no build, an edited or checked-out source since the build, or ``PAOHUZI_PURE=1`` in the
  environment) a finder first in ``sys.meta_path`` loads each of them from its ``.py``.

:data:`ACTIVE` says which. This module imports nothing of the package, so that ``setup.py`` can read
:data:`MODULES` without the package's dependencies. It also holds the two run-time helpers the compiled
modules use (:func:`mypyc_attr`, :func:`reduce_frozen`; see the end of the module).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

__all__ = [
    "ACTIVE",
    "GROUP",
    "MANIFEST",
    "MODULES",
    "PACKAGE",
    "install",
    "mypyc_attr",
    "reason",
    "reduce_frozen",
    "source_digests",
]

#: The package directory (``src/paohuzi`` in a checkout).
PACKAGE = Path(__file__).resolve().parent

#: The modules mypyc compiles, as one group (they call each other natively): the engine's hot path — every
#: step of a hand (the state and its seats, the turn logic, the claim window, the endings), observations —,
#: the environment's tensor and action IDs, and the bots that search plays out (greedy's choice, the view of
#: an observation, sampled worlds, the rollouts).
MODULES: tuple[str, ...] = (
    "paohuzi.engine.actions",
    "paohuzi.engine.claims",
    "paohuzi.engine.deck",
    "paohuzi.engine.events",
    "paohuzi.engine.hand",
    "paohuzi.engine.observation",
    "paohuzi.engine.position",
    "paohuzi.engine.scoring_bridge",
    "paohuzi.engine.seat",
    "paohuzi.engine.state",
    "paohuzi.engine.turns",
    "paohuzi.engine.wins",
    "paohuzi.env.actions",
    "paohuzi.env.features",
    "paohuzi.bots.evaluation",
    "paohuzi.bots.greedy",
    "paohuzi.bots.search",
    "paohuzi.bots.view",
    "paohuzi.bots.world",
)

#: The mypyc group's shared library (``setup.py`` names the group), which every compiled module loads.
GROUP = "paohuzi._engine"
SHARED_LIBRARY = GROUP + "__mypyc"

#: Written by setup.py after a compiled build: ``{"python": cache tag, "modules": {name: sha256 of its .py}}``.
MANIFEST = PACKAGE / "_compiled.json"

#: Whether this process runs the compiled modules (set by :func:`install`).
ACTIVE = False
_REASON = "not decided yet"


def source_path(module: str) -> Path:
    """The ``.py`` of one of :data:`MODULES`."""
    return PACKAGE.parent.joinpath(*module.split(".")).with_suffix(".py")


def source_digests() -> dict[str, str]:
    """sha256 of each module's ``.py`` as it is now."""
    return {m: hashlib.sha256(source_path(m).read_bytes()).hexdigest() for m in MODULES}


def built_elsewhere() -> Path | None:
    """The manifest of a compiled build of paohuzi elsewhere on ``sys.path`` (an installed copy that these
    sources shadow, ``PYTHONPATH=src``), or None."""
    for entry in sys.path:
        try:
            other = Path(entry or ".").resolve() / "paohuzi" / MANIFEST.name
            if other.parent != PACKAGE.resolve() and other.is_file():
                return other
        except OSError:
            continue
    return None


def _not_built() -> str:
    """Why there is no compiled build here: none was made, or these sources shadow one (issue 36)."""
    elsewhere = built_elsewhere()
    if elsewhere is not None:  # PYTHONPATH=src in front of an installed, compiled paohuzi
        return (f"these sources ({PACKAGE}) run as Python: the compiled build at {elsewhere.parent} is not used, "
                "as PYTHONPATH puts these sources first (unset it to run the compiled engine)")
    return "not built (no C compiler or mypy at install time, or PAOHUZI_PURE_BUILD)"


def _has_extension(module: str) -> bool:
    base = PACKAGE.parent.joinpath(*module.split("."))
    return any(base.with_name(base.name + suffix).exists() for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def _decide() -> tuple[bool, str]:
    if os.environ.get("PAOHUZI_PURE", "") not in ("", "0"):
        return False, "PAOHUZI_PURE is set"
    if not MANIFEST.exists():
        return False, _not_built()
    try:
        built = json.loads(MANIFEST.read_text(encoding="utf-8"))
        modules = built["modules"]
    except (OSError, ValueError, KeyError, TypeError):
        return False, f"{MANIFEST.name} is unreadable"
    if built.get("python") != sys.implementation.cache_tag:
        return False, f"built for {built.get('python')}, this is {sys.implementation.cache_tag}"
    missing = [m for m in (SHARED_LIBRARY, *MODULES) if not _has_extension(m)]
    if missing:
        return False, f"no compiled module for {missing[0]}"
    try:
        now = source_digests()
    except OSError:
        return True, "compiled (sources not installed)"
    stale = [m for m in MODULES if modules.get(m) != now[m]]
    if stale:
        return False, f"{stale[0]} changed since it was compiled (rebuild: make venv)"
    return True, "compiled"


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Loads the modules of :data:`MODULES` from their ``.py`` even where an extension lies beside it."""

    def find_spec(self, fullname: str, path: Any, target: ModuleType | None = None) -> Any:
        if fullname not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, source_path(fullname))


def install() -> bool:
    """Decide (once) whether the compiled modules run; if not, make every one of them load from source.
    Returns :data:`ACTIVE`."""
    global ACTIVE, _REASON
    if _REASON != "not decided yet":
        return ACTIVE
    ACTIVE, _REASON = _decide()
    loaded = [m for m in MODULES if m in sys.modules]
    if loaded:  # imported before the package (never in practice): keep what is there
        ACTIVE = not sys.modules[loaded[0]].__file__.endswith(".py")  # type: ignore[union-attr]
        _REASON = "decided by an earlier import"
    elif not ACTIVE and not any(isinstance(f, _SourceFirst) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst())
    return ACTIVE


def reason() -> str:
    """Why :data:`ACTIVE` is what it is, in a few words (``paohuzi --version``-style diagnostics, tests)."""
    return _REASON


# What the compiled modules need to say to mypyc that Python does not need to know.
#
# ``mypyc_attr(allow_interpreted_subclasses=True)`` marks a compiled class as open to subclasses written in
# Python (the bots a user may build on). It also gives the class the ``__new__`` of a Python class, which
# makes an instance without running ``__init__`` (a closed compiled class's ``X.__new__(X)`` runs it): the
# engine's ``Hand``, ``HandState`` and ``Seat`` carry it for their copies and ``Hand.from_position``, nothing
# subclasses them (a hand is watched through its events: the R4.4 oracle, ``tests/engine/oracle.py``). The
# type checker and mypyc read it from ``mypy_extensions``; at run time it is the no-op below, so the package
# needs nothing of mypy to run.
#
# A compiled function checks the types of its arguments on entry (a ``TypeError`` of mypyc's, naming no
# parameter). The public entry points that refuse bad input with an error of their own (``Hand(...)``,
# ``Hand.apply``, ``Hand.from_position``, ``Action.parse``, ``Observation.from_dict``, ``env.actions.decode``)
# therefore declare such a parameter as ``T | object``: ``T`` is what they expect, and anything else reaches
# their own check and its clear message, compiled or not.

_T = TypeVar("_T")

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*args: Any, **kwargs: Any) -> Callable[[_T], _T]:
        """No-op at run time (see above)."""
        return lambda cls: cls


def reduce_frozen(value: Any) -> tuple[Any, ...]:
    """``__reduce__`` of the frozen dataclasses of the compiled modules: rebuilt by calling the class with its
    fields. A compiled class routes every attribute write through the dataclass's frozen ``__setattr__``, so
    the default protocol (make an empty instance, then set its slots) cannot pickle or copy it; calling the
    class can, compiled or not.
    """
    return (type(value), tuple(getattr(value, f.name) for f in fields(value) if f.init))
