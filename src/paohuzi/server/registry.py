"""Who is who, in memory: each player's one open websocket (:class:`Connections`, the rooms'
:class:`~paohuzi.server.frames.Delivery`) and the player cards the rooms show (:class:`PlayerCards`, the
rooms' :class:`~paohuzi.server.services.Roster`). The hub owns both and hands them to its rooms.
"""

from __future__ import annotations

from typing import Any, cast

from paohuzi.scoring import level_title
from paohuzi.server.connection import Connection
from paohuzi.server.frames import Frame, PlayerCard
from paohuzi.server.rows import PlayerProfile, PlayerRow

__all__ = ["Connections", "PlayerCards"]


class Connections(dict[int, Connection]):
    """Player id → that player's one open websocket, and the delivery port over them."""

    def send(self, player: int, frame: Frame) -> None:
        conn = self.get(player)
        if conn is not None:
            conn.send(cast("dict[str, Any]", frame))

    def online(self, player: int) -> bool:
        return player in self


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
