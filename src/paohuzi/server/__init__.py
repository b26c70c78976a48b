"""The online play server (``paohuzi serve``): lobby over HTTP, the game over one websocket per player,
accounts, rooms, persistence and recovery. The wire protocol is ``docs/protocol.md``; the design is
``docs/server.md``.

Layers (each module calls only the layers below it; imports go downwards only, checked by
tests/server/test_layers.py):

- transport — :mod:`~paohuzi.server.app` (the ASGI app), :mod:`~paohuzi.server.api` (HTTP lobby),
  :mod:`~paohuzi.server.ws` (websocket: origin, hello, limits), :mod:`~paohuzi.server.connection`;
- wire edge — :mod:`~paohuzi.server.protocol` (one Pydantic model per client message and body),
  :mod:`~paohuzi.server.frames` (one typed builder per server frame; the delivery port);
- application — :mod:`~paohuzi.server.hub` (rooms, who sits where, routing, recovery),
  :mod:`~paohuzi.server.registry` (connections, player cards), :mod:`~paohuzi.server.services` (what a
  room is given: never the hub), :mod:`~paohuzi.server.room` (seats, ready/start, 托管),
  :mod:`~paohuzi.server.game` (the match: hands, frames, resume), :mod:`~paohuzi.server.turns`
  (decisions, timers, bot turns), :mod:`~paohuzi.server.bots`;
- persistence — :mod:`~paohuzi.server.db` (engine, migrations, the database thread),
  :mod:`~paohuzi.server.models`, :mod:`~paohuzi.server.store` (the jobs), :mod:`~paohuzi.server.rows`
  (the typed rows they return);
- domain — :mod:`paohuzi.engine`, the only referee.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(*args: Any, **kwargs: Any) -> Any:
    """See :func:`paohuzi.server.app.create_app` (imported lazily: FastAPI is an optional extra)."""
    from paohuzi.server.app import create_app as create

    return create(*args, **kwargs)
