"""What the compiled engine (mypyc, ``paohuzi._compiled``) needs to know that Python does not.

``mypyc_attr(allow_interpreted_subclasses=True)`` marks the classes of a hand's state machine as open to
subclasses written in Python (the R4.4 oracle, ``tests/engine/oracle.py``, subclasses :class:`Hand` to watch
every claim window). The type checker and mypyc read it from ``mypy_extensions``; at run time it is this
module's no-op, so the package needs nothing of mypy to run.

A compiled function checks the types of its arguments on entry (a ``TypeError`` of mypyc's, naming no
parameter). The public entry points that refuse bad input with an error of their own (``Hand(...)``,
``Hand.apply``, ``Hand.from_position``, ``Action.parse``, ``Observation.from_dict``, ``env.actions.decode``)
therefore declare such a parameter as ``T | object``: ``T`` is what they expect, and anything else reaches
their own check and its clear message, compiled or not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

_T = TypeVar("_T")

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*args: Any, **kwargs: Any) -> Callable[[_T], _T]:
        """No-op at run time (see the module docstring)."""
        return lambda cls: cls
