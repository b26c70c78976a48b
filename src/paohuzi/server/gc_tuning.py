"""The garbage collector of a server process, tuned once it has started (issue 33).

A profile of the event loop with native frames (py-spy ``--native``, 300 tables at people's pace) put a quarter
of its samples in CPython's cyclic collector (``gc_collect_main``, and the compiled engine's ``traverse``
functions it calls): with the default thresholds (700, 10, 10) the collector runs a young collection every few
actions — each action allocates hundreds of containers (the seat views' dicts and lists, the frames) that
reference counting frees anyway — and every hundred of those a full one, which walks every object the process
holds: the imported modules, the app, SQLAlchemy's and pydantic's structures, every room and connection.

So, once the process is set up (the app and its hub made, before the open rooms are resumed): the objects made
so far — the modules, the app, the hub, the database — are frozen, moved to a generation the collector never
scans again (:func:`gc.freeze`; they live as long as the process, and a frozen object whose count falls to zero
is still freed; only a cycle of them would never be, which is why the rooms, made and dropped while it runs, are
resumed after the freeze); and the young generation's threshold is raised
to :data:`YOUNG`, so that young collections, and with them the full ones, are that much rarer. Garbage in
reference cycles is still collected, only later: at most :data:`YOUNG` container allocations after it was
made. ``PAOHUZI_GC_DEFAULT=1`` in the environment leaves the collector as Python sets it (to compare).
"""

from __future__ import annotations

import gc
import os

__all__ = ["YOUNG", "tune"]

YOUNG = 20_000  # allocations of container objects (net) between young collections; Python's default is 700


def tune() -> bool:
    """Freeze what start-up made and raise the young threshold; False (nothing changed) when
    ``PAOHUZI_GC_DEFAULT=1``."""
    if os.environ.get("PAOHUZI_GC_DEFAULT") == "1":
        return False
    gc.collect()  # start-up's own garbage first: it would be frozen with the rest
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, old)
    return True
