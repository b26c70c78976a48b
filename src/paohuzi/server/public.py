"""The hub's part for public tables (匹配, issue 13 §4): joining and leaving a tier's queue, opening a public
table for the players the :class:`~paohuzi.server.matchmaking.Matchmaker` seats together, and a public
table's next hand (which takes waiting players into its computers' seats). Mixed into
:class:`~paohuzi.server.hub.Hub`.

A public table is a room of kind ``public``: one hand per match (each hand is its own 一场, so that players
may come and go between hands), the tier's multiplier and minimum, no 提示, no 解散; its code is internal:
it is shown to nobody but its players, and nobody joins it by code.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from paohuzi.server import protocol as p
from paohuzi.server import store
from paohuzi.server.config import Settings
from paohuzi.server.frames import Frame, QueueInfo, RoomError, RoomState
from paohuzi.server.logs import log
from paohuzi.server.matchmaking import Matchmaker, tier_or_error
from paohuzi.server.room import Room, SeatState
from paohuzi.server.seating import Claims, hold_each

if TYPE_CHECKING:
    from paohuzi.server.db import Database
    from paohuzi.server.registry import Connections
    from paohuzi.server.room_options import RoomOptions
    from paohuzi.server.services import RoomServices

__all__ = ["PublicTables", "PUBLIC_HANDS"]

INFO = 20
PUBLIC_HANDS = 1  # hands in a public table's match: players may come and go between two


class PublicTables:
    """Queue and public tables, for the hub (whose rooms, membership and services these are)."""

    db: Database
    rooms: dict[str, Room]
    room_of: dict[int, Room]
    services: RoomServices
    queue: Matchmaker
    claims: Claims

    if TYPE_CHECKING:
        conns: Connections

        def room_options(self, body: p.RoomOptionsIn | p.QuickPlayIn, quick: bool) -> RoomOptions: ...

        async def _new_code(self) -> str: ...

        async def _services_for(self, room_id: int, code: str) -> RoomServices: ...

        async def _check_beans(self, player_id: int, minimum: int) -> None: ...

        async def _leave_waiting_room(self, player_id: int) -> None: ...

        async def player_room_state(self, player_id: int) -> RoomState | None: ...

    async def queue_join(self, player_id: int, tier_name: str) -> QueueInfo | None:
        """Wait for a public table of ``tier_name``: a room without a match on is left first. Your place,
        or None when you were seated at once.

        :raises RoomError: ``invalid`` (422, no such tier), ``in_game`` (playing a match),
            ``not_enough_beans``, ``already_queued`` (409)."""
        tier = tier_or_error(tier_name)
        async with self.claims.hold(player_id):  # one seating request of the player's at a time (seating.py)
            room = self.room_of.get(player_id)
            if room is not None and room.playing:
                raise RoomError("in_game", "you are playing a match; finish it or leave the table first")
            await self._check_beans(player_id, tier.minimum)
            if await self.queue.entry(player_id) is None:
                await self._leave_waiting_room(player_id)
            await self.queue.join(player_id, tier.name)
            return await self.queue.place(player_id)

    async def queue_leave(self, player_id: int) -> str:
        """Leave the queue: the tier left. :raises RoomError: ``not_queued`` (409)."""
        tier = await self.queue.leave(player_id)
        if tier is None:
            raise RoomError("not_queued", "you are not waiting for a table")
        return tier

    async def queue_message(self, player_id: int, msg: p.QueueJoin | p.QueueLeave) -> None:
        """``queue_join`` / ``queue_leave`` on the websocket (answered by ``queue`` frames)."""
        if isinstance(msg, p.QueueJoin):
            await self.queue_join(player_id, msg.tier)
        else:
            await self.queue_leave(player_id)

    async def not_queued(self, player_id: int) -> None:
        """A player waiting for a public table sits nowhere else. :raises RoomError: ``queued`` (409)."""
        entry = await self.queue.entry(player_id)
        if entry is not None:
            raise RoomError("queued", f"you wait for a table in the {entry.tier} queue; leave the queue first")

    def _make_queue(self, settings: Settings) -> Matchmaker:
        """The queue, delivering through whatever ``conns`` the hub has when it sends (the shared mode puts
        its relay there after the hub is built)."""
        return Matchmaker(settings, self.db, _Live(self), self.open_public)

    async def open_public(self, tier: str, players: list[int]) -> None:
        """A new public table of ``tier`` for ``players`` (in queue order, seats 0, 1 …); computers take the
        other seats; the hand starts at once. A player seated elsewhere since leaving the queue (a quick
        play in between) is left out: one room per player (seating.py)."""
        async with hold_each(self.claims, players) as held:
            players = [pid for pid in players if pid in held and await self.player_room_state(pid) is None]
            if players:
                await self._open_public(tier, players)

    async def _open_public(self, tier: str, players: list[int]) -> None:
        options = self.room_options(p.QuickPlayIn(tier=tier, hands=PUBLIC_HANDS), quick=True).public()
        code = await self._new_code()
        room_id = await self.db.run(store.create_room(code, "public", None, options, 3))
        services = await self._services_for(room_id, code)
        bot = options.bot_level
        seats = [
            SeatState(i, players[i], None, True) if i < len(players) else SeatState(i, None, bot, True)
            for i in range(3)
        ]
        room = Room(services, room_id, code, "public", None, options, seats)
        self.rooms[code] = room
        for pid in players:
            self.room_of[pid] = room
        async with room.lock:
            await room.start_match()
        log(INFO, "public table", room=code, tier=tier, players=players)

    async def public_rematch(self, room: Room, player_id: int) -> None:
        """继续 at a public table: ready for the next hand, if the player still holds the tier's minimum.
        When every player there is ready, players waiting in the tier's queue take the computers' (and
        free) seats, computers fill what is left, and the hand starts."""
        await self._check_beans(player_id, room.options.minimum)
        tier = room.options.tier

        async with contextlib.AsyncExitStack() as held:

            async def take(n: int) -> list[int]:
                """Players from the queue, each one's seating claim held until seated here (seating.py)."""
                free = []
                for pid in sorted(await self.queue.take(tier, n)):
                    await held.enter_async_context(self.claims.hold(pid))
                    if await self.player_room_state(pid) is None:  # not seated elsewhere meanwhile
                        free.append(pid)
                return free

            for newcomer in await room.rematch(player_id, take):
                self.room_of[newcomer] = room


class _Live:
    """The hub's current connections as the queue's delivery port."""

    def __init__(self, tables: PublicTables) -> None:
        self.tables = tables

    def send(self, player: int, frame: Frame) -> None:
        self.tables.conns.send(player, frame)

    def online(self, player: int) -> bool:
        return self.tables.conns.online(player)
