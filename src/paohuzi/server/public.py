"""Public tables (匹配, issue 13 §4), a collaborator of the hub: joining and leaving a tier's queue, opening a
public table for the players the :class:`~paohuzi.server.matchmaking.Matchmaker` seats together, and a public
table's next hand (which takes waiting players into its computers' seats).

A public table is a room of kind ``public``: one hand per match (each hand is its own 一场, so that players
may come and go between hands), the tier's multiplier and minimum, no 提示, no 解散; its code is internal:
it is shown to nobody but its players, and nobody joins it by code.

:class:`PublicTables` holds the ports it needs (the room directory, the claims, the queue, where a new room
lives) and two of the hub's lobby calls, given to its constructor: where a player sits (here or in another
process) and "leave the room you wait in".
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from paohuzi.rules import RuleSetError, find_preset
from paohuzi.server import frames, store
from paohuzi.server import protocol as p
from paohuzi.server.config import Settings
from paohuzi.server.frames import QueueInfo, RoomError, RoomState
from paohuzi.server.logs import log
from paohuzi.server.matchmaking import Line, tier_or_error
from paohuzi.server.room import Room, SeatState
from paohuzi.server.room_options import room_options
from paohuzi.server.seating import hold_each

if TYPE_CHECKING:
    from paohuzi.server.db import Database
    from paohuzi.server.ports import HubPorts
    from paohuzi.server.services import RoomServices

__all__ = ["PublicTables", "PUBLIC_HANDS", "check_beans"]

ERROR, INFO = 40, 20
PUBLIC_HANDS = 1  # hands in a public table's match: players may come and go between two


async def check_beans(db: Database, player_id: int, minimum: int) -> None:
    """A tier asks a minimum of beans to sit down (R7.3). :raises RoomError: 409 ``not_enough_beans``."""
    if minimum <= 0:
        return
    fresh = await db.run(store.player_by_id(player_id))
    beans = fresh.beans if fresh is not None else 0
    if beans < minimum:
        raise RoomError("not_enough_beans", f"this table asks {minimum} 欢乐豆 to sit down; you hold {beans}", 409)


class PublicTables:
    """The 匹配 queue and the public tables it opens, for the hub (whose rooms and services these are)."""

    def __init__(  # noqa: PLR0913 (the ports, and the two lobby calls)
        self,
        settings: Settings,
        db: Database,
        ports: HubPorts,
        services: RoomServices,
        *,
        seated: Callable[[int], Awaitable[RoomState | None]],
        leave_waiting: Callable[[int], Awaitable[None]],
    ) -> None:
        self.settings = settings
        self.db = db
        self.directory = ports.directory
        self.claims = ports.claims
        self.queue = ports.queue
        self.home = ports.home
        self.delivery = ports.delivery
        self.services = services
        self.seated = seated  # the room the player sits in, here or elsewhere (Hub.player_room_state)
        self.leave_waiting = leave_waiting  # Hub._leave_waiting_room

    async def queue_join(self, player_id: int, tier_name: str, preset: str | None = None) -> QueueInfo | None:
        """Wait for a public table of ``tier_name`` playing ``preset`` (default: the first of the server's
        ``match_presets``): a room without a match on is left first. Your place, or None when you were
        seated at once.

        :raises RoomError: ``invalid`` (422, no such tier, or no queue for that preset), ``in_game``
            (playing a match), ``not_enough_beans``, ``already_queued`` (409)."""
        tier = tier_or_error(tier_name)
        line = (tier.name, self.match_preset(preset))
        async with self.claims.hold(player_id):  # one seating request of the player's at a time (seating.py)
            room = self.directory.room_of(player_id)
            if room is not None and room.playing:
                raise RoomError("in_game", "you are playing a match; finish it or leave the table first")
            await check_beans(self.db, player_id, tier.minimum)
            if await self.queue.entry(player_id) is None:
                await self.leave_waiting(player_id)
            groups = await self.queue.join(player_id, line)
            await self._open(line, groups)  # three waiting: seated at once (this claim is re-entrant)
            return await self.queue.place(player_id)

    async def queue_leave(self, player_id: int) -> str:
        """Leave the queue: the tier left. :raises RoomError: ``not_queued`` (409)."""
        tier = await self.queue.leave(player_id)
        if tier is None:
            raise RoomError("not_queued", "you are not waiting for a table")
        return tier

    def match_preset(self, name: str | None) -> str:
        """The preset of a 匹配 queue (issue 29): ``name`` (a preset's name or alias) when the server's
        ``match_presets`` lists it; None: the first listed. :raises RoomError: ``invalid`` (422) naming the
        presets that have a queue."""
        listed = self.settings.match_presets
        if name is None:
            return listed[0]
        try:
            found = find_preset(name).name
        except RuleSetError:
            found = None
        if found not in listed:
            raise RoomError(
                "invalid",
                f"no public tables for preset {name!r} on this server; 匹配 presets: {', '.join(listed)}",
                422,
            )
        return found

    async def queue_message(self, player_id: int, msg: p.QueueJoin | p.QueueLeave) -> None:
        """``queue_join`` / ``queue_leave`` on the websocket (answered by ``queue`` frames)."""
        if isinstance(msg, p.QueueJoin):
            await self.queue_join(player_id, msg.tier, msg.preset)
        else:
            await self.queue_leave(player_id)

    async def not_queued(self, player_id: int) -> None:
        """A player waiting for a public table sits nowhere else. :raises RoomError: ``queued`` (409)."""
        entry = await self.queue.entry(player_id)
        if entry is not None:
            raise RoomError("queued", f"you wait for a table in the {entry.tier} queue; leave the queue first")

    async def run(self) -> None:
        """The queue's background loop: :meth:`Matchmaker.tick` a few times a second, and the tables it asks for."""
        period = max(0.05, min(0.5, self.settings.match_fill_seconds / 4))
        while True:
            await asyncio.sleep(period)
            try:
                for line, groups in await self.queue.tick():
                    await self._open(line, groups)
            except Exception:
                log(ERROR, "matchmaking failed", exc_info=True)

    async def _open(self, line: Line, groups: list[list[int]]) -> None:
        for ids in groups:
            try:
                await self.open_public(line, ids)
            except Exception:
                log(ERROR, "public table could not be opened", players=ids, queue=line, exc_info=True)
                for pid in ids:
                    self.delivery.send(pid, frames.error("internal", "no table could be opened; please try again"))

    async def open_public(self, line: Line, players: list[int]) -> None:
        """A new public table of the queue ``line`` (tier, preset) for ``players`` (in queue order, seats 0,
        1 …); computers take the
        other seats; the hand starts at once. A player seated elsewhere since leaving the queue (a quick
        play in between) is left out: one room per player (seating.py)."""
        async with hold_each(self.claims, players) as held:
            players = [pid for pid in players if pid in held and await self.seated(pid) is None]
            if players:
                await self._open_public(line, players)

    async def _open_public(self, line: Line, players: list[int]) -> None:
        tier, preset = line
        body = p.QuickPlayIn(tier=tier, preset=preset, hands=PUBLIC_HANDS)
        options = room_options(self.settings, body, quick=True).public()
        code = await self.home.new_code(self.directory.rooms)
        n = options.rules.players_at_table  # 3; 4 at a 六胡抢 table (R9.3)
        room_id = await self.db.run(store.create_room(code, "public", None, options, n))
        services = await self.home.services_for(self.services, room_id, code)
        bot = options.bot_level
        seats = [
            SeatState(i, players[i], None, True) if i < len(players) else SeatState(i, None, bot, True)
            for i in range(n)
        ]
        room = Room(services, room_id, code, "public", None, options, seats)
        self.directory.add(room)
        for pid in players:
            self.directory.seat(pid, room)
        async with room.lock:
            await room.start_match()
        log(INFO, "public table", room=code, tier=tier, preset=preset, players=players)

    async def public_rematch(self, room: Room, player_id: int) -> None:
        """继续 at a public table: ready for the next hand, if the player still holds the tier's minimum.
        When every player there is ready, players waiting in the tier's queue take the computers' (and
        free) seats, computers fill what is left, and the hand starts."""
        await check_beans(self.db, player_id, room.options.minimum)
        line = (room.options.tier, room.options.preset)  # its queue (issue 29: a tier's, for its preset)

        async with contextlib.AsyncExitStack() as held:

            async def take(n: int) -> list[int]:
                """Players from the queue, each one's seating claim held until seated here (seating.py)."""
                free = []
                for pid in sorted(await self.queue.take(line, n)):
                    await held.enter_async_context(self.claims.hold(pid))
                    if await self.seated(pid) is None:  # not seated elsewhere meanwhile
                        free.append(pid)
                return free

            for newcomer in await room.rematch(player_id, take):
                self.directory.seat(newcomer, room)
