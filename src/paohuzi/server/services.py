"""What a room is given to work with (:class:`RoomServices`): the settings, the database, the delivery port,
the player cards, background tasks and the bot pool — and nothing else: a room never sees the hub.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from paohuzi.server.bots import BotPool
from paohuzi.server.config import Settings
from paohuzi.server.db import Database, RoomStore
from paohuzi.server.frames import Delivery, PlayerCard
from paohuzi.server.logs import log

__all__ = ["RoomServices", "Roster", "Seating", "Tasks"]

ERROR = 40


class Roster(Protocol):
    """The player cards a room shows, and the counts it updates as hands and matches end."""

    def card(self, player_id: int) -> PlayerCard:
        """What a room shows of a seated player."""

    def won(self, player_id: int, delta: int, won: bool, beans: int = 0) -> None:
        """A hand ended for the player: ``delta`` points, ``beans`` 欢乐豆; ``won`` if it was theirs."""

    def played_match(self, player_id: int) -> None:
        """A match the player sat in ended."""


class Seating(Protocol):
    """Who sits where is kept outside the room: a room that stands a player up by itself says so here."""

    def released(self, room: Any, player_id: int, seconds: float) -> None:
        """``room`` stood the player up for not saying ``ready`` within ``seconds`` (issue 12 item 5)."""


class Tasks:
    """Background tasks: kept until done, their errors logged (never lost), all cancelled at shutdown."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log(
                ERROR, "background task failed", error=repr(exc), exc_info=(type(exc), exc, exc.__traceback__)
            )

    def cancel(self) -> None:
        for task in list(self._tasks):
            task.cancel()


@dataclass(frozen=True, slots=True)
class RoomServices:
    """The ports a :class:`~paohuzi.server.room.Room` uses. ``db`` is the database itself with one process,
    or a :class:`~paohuzi.server.db.RoomStore` (the room's fence on every write) in the shared mode."""

    settings: Settings
    db: Database | RoomStore
    delivery: Delivery
    roster: Roster
    tasks: Tasks
    bots: BotPool
    seating: Seating | None = None
