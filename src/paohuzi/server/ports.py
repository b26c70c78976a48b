"""The hub's ports: what differs between one server process and the shared mode (issue 14), each a
:class:`typing.Protocol` with two implementations, chosen once at start-up (:mod:`paohuzi.server.app` calls
:mod:`paohuzi.server.wiring`; docs/server.md, "The hub and its ports"):

- :class:`RoomHome` (where a new room lives): :class:`LocalHome` (a code free in this process, the database
  as it is) or :class:`~paohuzi.server.shared.LeasedHome` (the code's lease taken, the room's writes fenced);
- :class:`RoomsElsewhere` (rooms of other processes): :class:`NoElsewhere` (there is none) or
  :class:`~paohuzi.server.edge.Edge` (asked over the relay);
- :class:`Lifecycle` (start-up and shutdown): :class:`~paohuzi.server.wiring.OneProcess` (the open rooms
  rebuilt from the database) or :class:`~paohuzi.server.shared.Cluster` (rooms nobody holds adopted, handed
  over at SIGTERM).

The other ports have their own modules: the seat mirror (:mod:`~paohuzi.server.directory`), the delivery
port (:class:`~paohuzi.server.registry.Connections` or :class:`~paohuzi.server.relay.RelayedConnections`),
the seating claims (:mod:`~paohuzi.server.seating`), where the 匹配 queue is kept
(:class:`~paohuzi.server.matchmaking.LocalQueue`, :class:`~paohuzi.server.shared_queue.RedisQueue`).
"""

from __future__ import annotations

import secrets
from collections.abc import Container
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast

from paohuzi.server.frames import Delivery, RoomError, RoomState
from paohuzi.server.protocol import ClientMessage

if TYPE_CHECKING:
    from paohuzi.server.directory import RoomDirectory
    from paohuzi.server.matchmaking import Matchmaker
    from paohuzi.server.registry import Connections
    from paohuzi.server.room import Room
    from paohuzi.server.seating import Claims
    from paohuzi.server.services import RoomServices, Tasks

__all__ = [
    *("HubPorts", "Lifecycle", "LocalHome", "NoElsewhere", "RoomHome", "RoomsElsewhere", "left", "new_code"),
    "room_state",
]


def new_code(taken: Container[str]) -> str | None:
    """A random six-digit room code not in ``taken`` (None after 100 tries)."""
    for _ in range(100):
        code = f"{secrets.randbelow(1_000_000):06d}"
        if code not in taken:
            return code
    return None


class RoomHome(Protocol):
    """Where a new room of this process lives: its code and what it writes through."""

    async def new_code(self, taken: Container[str]) -> str:
        """A code no open room has. :raises RoomError: 503 when none is found."""

    async def services_for(self, base: RoomServices, room_id: int, code: str) -> RoomServices:
        """What the new room ``room_id`` of ``code`` is given. :raises RoomError: 503 when it cannot be run here."""

    def closed(self, room: Room) -> None:
        """``room`` was forgotten by this process (closed, or given up)."""


class LocalHome:
    """One process: any code no room of this process has; the database as it is (the writer fence guards it)."""

    async def new_code(self, taken: Container[str]) -> str:
        code = new_code(taken)
        if code is None:
            raise RoomError("internal", "no free room code", 503)
        return code

    async def services_for(self, base: RoomServices, room_id: int, code: str) -> RoomServices:
        return base

    def closed(self, room: Room) -> None:
        pass


class RoomsElsewhere(Protocol):
    """The rooms of other processes, seen from this one (the edge of their players' websockets)."""

    async def owner(self, code: str) -> str | None:
        """The process running room ``code`` if another one does (None: none does, or this one)."""

    async def seat_of(self, player: int) -> tuple[str, str] | None:
        """(code, owner) of the room of another process the player sits in, or None.
        :raises RoomError: 503 ``moving`` while that room is between two owners."""

    async def call(self, owner: str, op: str, code: str | None = None, player: int | None = None,
                   seat: int | None = None) -> object:
        """Ask ``owner`` for a lobby operation (``state``, ``join``, ``leave``, ``leave_waiting``): its JSON
        answer. :raises RoomError: as raised there, or 503 ``moving`` when no answer comes."""

    async def forward(self, player: int, msg: ClientMessage, text: str | None) -> bool:
        """Relay the player's frame (its JSON ``text``) to the owner of its room elsewhere; False when the
        frame is this process's to handle."""

    def attached(self, player: int) -> bool:
        """The player's websocket is here now: True when this port sends it its room (else the hub does)."""

    def detached(self, player: int) -> None:
        """The player's websocket here is gone."""

    def revoked(self, sessions: set[int]) -> None:
        """These sessions were revoked here: tell the other processes."""

    async def addresses(self, players: list[int]) -> dict[int, str]:
        """The address of each of ``players`` whose websocket is at another process (for 同IP, never shown)."""


class NoElsewhere:
    """One process: every room is here."""

    async def owner(self, code: str) -> str | None:
        return None

    async def seat_of(self, player: int) -> tuple[str, str] | None:
        return None

    async def call(self, owner: str, op: str, code: str | None = None, player: int | None = None,
                   seat: int | None = None) -> object:
        raise RoomError("internal", "no other server process", 500)  # never asked: owner() is None

    async def forward(self, player: int, msg: ClientMessage, text: str | None) -> bool:
        return False

    def attached(self, player: int) -> bool:
        return False

    def detached(self, player: int) -> None:
        pass

    def revoked(self, sessions: set[int]) -> None:
        pass

    async def addresses(self, players: list[int]) -> dict[int, str]:
        return {}


class Lifecycle(Protocol):
    """Start-up and shutdown of the process's rooms (the app's lifespan calls these, in this order)."""

    async def start(self) -> None: ...

    async def recover(self) -> None: ...

    async def shutdown(self) -> None: ...


@dataclass(frozen=True, slots=True)
class HubPorts:
    """Everything the hub is given that differs between the two deployments (built in app.py).

    ``sockets`` are this process's websockets; ``delivery`` reaches a player wherever its websocket is (the
    same object with one process)."""

    directory: RoomDirectory
    sockets: Connections
    delivery: Delivery
    claims: Claims
    home: RoomHome
    elsewhere: RoomsElsewhere
    queue: Matchmaker
    tasks: Tasks


def left(value: object) -> tuple[str, int | None]:
    """What the owner answered to ``leave``: (code, the 逃跑 penalty paid or None).

    >>> left(["123456", None]), left(["123456", 40])
    (('123456', None), ('123456', 40))
    """
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
        penalty = value[1]
        if penalty is None or isinstance(penalty, int):
            return value[0], penalty
    raise RoomError("internal", f"a bad answer to leave: {value!r}", 500)


def room_state(value: object) -> RoomState | None:
    """A room's state as answered by its owner (JSON from the relay, read as the frame it is)."""
    return None if value is None else cast("RoomState", value)
