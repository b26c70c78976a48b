"""Who is who, in memory: each player's one open websocket (:class:`Connections`, the rooms'
:class:`~paohuzi.server.frames.Delivery`) and the player cards the rooms show (:class:`PlayerCards`, the
rooms' :class:`~paohuzi.server.services.Roster`). The hub owns both and hands them to its rooms.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

from paohuzi.scoring import level_title
from paohuzi.server.connection import Connection, encode
from paohuzi.server.frames import Frame, PlayerCard
from paohuzi.server.rows import PlayerProfile, PlayerRow

__all__ = ["Connections", "PlayerCards"]


class Connections:
    """Player id → that player's one open websocket in this process, and the delivery port over them."""

    def __init__(self) -> None:
        self._sockets: dict[int, Connection] = {}
        self._last: tuple[object, bytes] | None = None  # the frame encoded last, and its bytes

    def get(self, player: int) -> Connection | None:
        return self._sockets.get(player)

    def __contains__(self, player: object) -> bool:
        return player in self._sockets

    def __len__(self) -> int:
        return len(self._sockets)

    def __iter__(self) -> Iterator[int]:
        return iter(self._sockets)

    def values(self) -> list[Connection]:
        """The open websockets (a copy: closing one may change the registry)."""
        return list(self._sockets.values())

    def put(self, player: int, conn: Connection) -> Connection | None:
        """``conn`` is the player's websocket from now on: the one it replaces, or None."""
        old = self._sockets.get(player)
        self._sockets[player] = conn
        return old

    def remove(self, player: int, conn: Connection) -> bool:
        """Forget ``conn`` if it is still the player's websocket; whether it was."""
        if self._sockets.get(player) is not conn:
            return False
        del self._sockets[player]
        return True

    def send(self, player: int, frame: Frame) -> None:
        conn = self._sockets.get(player)
        if conn is not None:
            conn.send_bytes(self.encoded(frame))

    def encoded(self, frame: Frame) -> bytes:
        """The frame's UTF-8 JSON, encoded once for all its recipients (issue 33): a broadcast — a room's state,
        a match's end, a chat line — sends one frame object to each seat in turn, and the one encoded last is
        kept. (A frame is never changed once sent: each builder in frames.py makes a new one.)"""
        last = self._last
        if last is not None and last[0] is frame:
            return last[1]
        payload = encode(cast("dict[str, Any]", frame))
        self._last = (frame, payload)
        return payload

    def online(self, player: int) -> bool:
        return player in self._sockets

    def local(self, player: int) -> Connection | None:
        """The player's websocket in this process (the same as :meth:`get`; the relayed delivery port has it too)."""
        return self._sockets.get(player)


class PlayerCards:
    """Player id → profile (a cache of the ``players`` table), kept up to date as hands end."""

    def __init__(self) -> None:
        self.profiles: dict[int, PlayerRow] = {}

    def remember(self, player: PlayerRow) -> None:
        self.profiles[player.id] = player

    def profile(self, player_id: int) -> PlayerProfile:
        """Profile (docs/protocol.md §2) from the cache. :raises KeyError: for a player not cached."""
        return self.profiles[player_id].profile()

    def card(self, player_id: int) -> PlayerCard:
        """What a room shows of a seated player."""
        data = self.profiles.get(player_id)
        if data is None:
            return {"id": player_id, "nickname": "?", "title": level_title(0), "points": 0}
        return {"id": player_id, "nickname": data.nickname, "title": level_title(data.points), "points": data.points}

    def won(self, player_id: int, delta: int, won: bool, beans: int = 0) -> None:
        """A hand ended: ``delta`` points, ``beans`` 欢乐豆, and one more hand played (and won)."""
        data = self.profiles.get(player_id)
        if data is not None:
            data.points += delta
            data.beans += beans
            data.hands_played += 1
            data.hands_won += 1 if won else 0

    def played_match(self, player_id: int) -> None:
        data = self.profiles.get(player_id)
        if data is not None:
            data.matches_played += 1
