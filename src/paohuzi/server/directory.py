"""The room directory: the open rooms this process runs (code → room) and which of them each player sits in
(player → room), with every change of a seat told to a :class:`SeatMirror` by an explicit call.

The mirror is the port that differs between the two deployments (chosen in :mod:`paohuzi.server.app`):

- :class:`NoMirror` (one process): nobody else needs to know;
- :class:`~paohuzi.server.relay.Seats` (the shared mode, issue 14): ``<prefix>:seat:<player>`` → room code in
  Redis, for the edges and the other processes' lobby calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from paohuzi.server.room import Room

__all__ = ["NoMirror", "RoomDirectory", "SeatMirror"]


class SeatMirror(Protocol):
    """Where a seat change is told besides this process's memory."""

    def seat(self, player: int, code: str) -> None:
        """``player`` sits in room ``code`` now."""

    def unseat(self, player: int, code: str) -> None:
        """``player`` left room ``code`` (a no-op if it sits elsewhere by now)."""


class NoMirror:
    """One process: the directory in memory is the whole truth."""

    def seat(self, player: int, code: str) -> None:
        pass

    def unseat(self, player: int, code: str) -> None:
        pass


class RoomDirectory:
    """The rooms of this process by code (:attr:`rooms`) and each player's room."""

    def __init__(self, mirror: SeatMirror) -> None:
        self.mirror = mirror
        self.rooms: dict[str, Room] = {}
        self._room_of: dict[int, Room] = {}

    def __contains__(self, player: object) -> bool:
        """Whether the player sits in a room of this process."""
        return player in self._room_of

    def room_of(self, player: int) -> Room | None:
        return self._room_of.get(player)

    def code_of(self, player: int) -> str | None:
        room = self._room_of.get(player)
        return None if room is None else room.code

    def players(self, room: Room) -> list[int]:
        return [pid for pid, r in self._room_of.items() if r is room]

    def seat(self, player: int, room: Room) -> None:
        """``player`` sits in ``room`` (of this process) from now on."""
        self._room_of[player] = room
        self.mirror.seat(player, room.code)

    def unseat(self, player: int, room: Room | None = None) -> Room | None:
        """``player`` sits nowhere here any more (only if it sat in ``room``, when given): its room, or None."""
        current = self._room_of.get(player)
        if current is None or (room is not None and current is not room):
            return None
        del self._room_of[player]
        self.mirror.unseat(player, current.code)
        return current

    def add(self, room: Room) -> None:
        self.rooms[room.code] = room

    def forget(self, room: Room, *, mirrored: bool = True) -> None:
        """A closed room goes, and nobody sits in it any more. ``mirrored=False``: the room was given up to
        another process, which writes its players' seats (they are not unseated in the mirror)."""
        for pid in self.players(room):
            del self._room_of[pid]
            if mirrored:
                self.mirror.unseat(pid, room.code)
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]
