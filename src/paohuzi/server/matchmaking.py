"""Public tables (匹配, issue 13 §4): each tier's queue of players waiting to be seated with strangers.

- A player waits in one queue at a time, first come first served: a tier's queue for one preset (issue 29:
  one queue per preset the server's ``match_presets`` lists, in each tier; a public table plays its queue's
  preset).
- A table's worth of players online in a queue (three; four for 六胡抢, whose public tables seat four active
  players, R9.3: :func:`seats_of`) are seated together at once at a new public table.
- When the first of them has waited ``match_fill_seconds`` (10 s), whoever waits in that queue (fewer than
  a table) is seated and a computer takes each seat still free.
- A public table between two hands takes waiting players into its computers' seats (:meth:`Matchmaker.take`,
  called by the table as its next hand starts; docs/decisions.md).
- A player whose websocket closes keeps its place for ``offline_grace`` seconds, then is dropped; an offline
  player is never seated. Every entry is a row of ``queue_entries``: after a restart the players who were
  waiting keep their place (and their waiting time) for ``queue_resume_seconds`` and wait again as soon as
  they reconnect.

The :class:`Matchmaker` decides who is seated with whom and answers the groups to seat; opening the tables
is :class:`~paohuzi.server.public.PublicTables`'. Where the queue is kept is a port, :class:`QueueKeeper`,
given to the matchmaker's constructor: :class:`LocalQueue` (this process's memory and ``queue_entries``), or
:class:`~paohuzi.server.shared_queue.RedisQueue` (Redis, for every process of the shared mode).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Protocol

from paohuzi.rules import find_preset
from paohuzi.server import economy, frames, queue_store
from paohuzi.server.config import Settings
from paohuzi.server.db import Database
from paohuzi.server.frames import Delivery, QueueInfo, RoomError
from paohuzi.server.logs import log

__all__ = ["Entry", "Line", "LocalQueue", "Matchmaker", "QueueKeeper", "line_of", "seats_of"]

INFO = 20
DEFAULT_PRESET = "qq"  # what an entry stored before issue 29 (no preset) waited for


#: One 匹配 queue: (tier, preset) — a tier's queue of the players who wait to play that preset (issue 29).
Line = tuple[str, str]


@dataclass
class Entry:
    """One waiting player. ``joined_at`` is wall-clock time (it survives a restart); ``offline_since`` is
    ``time.monotonic()`` when its websocket went away (None while online); ``grace`` how long it then keeps
    its place; ``preset`` the rule set it waits to play (issue 29)."""

    player_id: int
    tier: str
    joined_at: float
    offline_since: float | None
    grace: float
    preset: str = DEFAULT_PRESET


def seats_of(preset: str) -> int:
    """The seats of a public table of ``preset``: its rule set's players at the table with the preset's own
    options (3; 4 for 六胡抢, R9.3). A public table plays the preset as it is (no house options)."""
    return find_preset(preset).players_at_table


def line_of(entry: Entry) -> Line:
    """The queue the entry waits in."""
    return (entry.tier, entry.preset)


class QueueKeeper(Protocol):
    """Where the queue is kept: the matchmaker's storage port (one process, or Redis for several)."""

    async def refresh(self, entries: dict[int, Entry]) -> dict[int, Entry]:
        """The queue as it is now (``entries``: as this process last knew it)."""

    async def online(self, player_id: int) -> bool:
        """Whether the player's websocket is open (at any process)."""

    async def add(self, player_id: int, line: Line, joined_at: float, online: bool) -> bool:
        """Store a new entry in the queue ``line``; False if the player waits already."""

    async def take_out(self, ids: list[int], online: bool | None) -> bool:
        """Take these players out of the queue, all or none: only if each is still waiting and, with
        ``online`` True/False, still online/offline."""

    async def seating(self, ids: list[int]) -> None:
        """These players are about to be seated (their ``queue: null`` sent)."""

    async def restore(self) -> dict[int, Entry]:
        """The queue at start-up."""

    async def lost(self, book: Matchmaker) -> None:
        """Before each tick: waiting players whose websocket's process is gone go offline."""

    def connected(self, book: Matchmaker, player_id: int) -> None:
        """The player's websocket is (back) up: it waits online again and is told its place."""

    def disconnected(self, book: Matchmaker, player_id: int) -> None:
        """The player's websocket is gone: it keeps its place for ``offline_grace`` seconds."""

    def resend(self, book: Matchmaker, player_id: int) -> None:
        """The player's place again (``sync``), if it waits."""


class Matchmaker:
    """The queues of every tier, kept by a :class:`QueueKeeper`; all changes under :attr:`lock`."""

    def __init__(self, settings: Settings, keeper: QueueKeeper, delivery: Delivery) -> None:
        self.settings = settings
        self.keeper = keeper
        self.delivery = delivery
        self.entries: dict[int, Entry] = {}
        self.lock = asyncio.Lock()

    # ---- reading -------------------------------------------------------------------------------------

    def of(self, player_id: int) -> Entry | None:
        return self.entries.get(player_id)

    async def entry(self, player_id: int) -> Entry | None:
        """The player's entry, read fresh (the shared mode's queue is in Redis)."""
        await self._refresh()
        return self.of(player_id)

    async def place(self, player_id: int) -> QueueInfo | None:
        """:meth:`info`, read fresh."""
        await self._refresh()
        return self.info(player_id)

    async def counts(self) -> dict[Line, int]:
        """How many wait in each queue: (tier, preset) for every tier and every preset of ``match_presets``."""
        await self._refresh()
        return {
            (t.name, pr): len(self.waiting((t.name, pr))) for t in economy.TIERS for pr in self.settings.match_presets
        }

    async def _refresh(self) -> None:
        """Read the queue again (the shared mode's is in Redis)."""
        self.entries = await self.keeper.refresh(self.entries)

    def waiting(self, line: Line) -> list[Entry]:
        """One queue (a tier's, for one preset), first come first."""
        return sorted(
            (e for e in self.entries.values() if line_of(e) == line), key=lambda e: (e.joined_at, e.player_id)
        )

    def info(self, player_id: int) -> QueueInfo | None:
        """The player's place in its queue (docs/protocol.md §3.8), or None."""
        entry = self.entries.get(player_id)
        if entry is None:
            return None
        line = self.waiting(line_of(entry))
        tier = economy.find_tier(entry.tier)
        drop = None
        if entry.offline_since is not None:
            drop = max(0, int((entry.grace - (time.monotonic() - entry.offline_since)) * 1000))
        return {
            "tier": tier.name,
            "preset": entry.preset,
            "multiplier": tier.multiplier,
            "minimum": tier.minimum,
            "position": line.index(entry) + 1,
            "waiting": len(line),
            "waited_ms": max(0, int((time.time() - entry.joined_at) * 1000)),
            "fill_ms": int(self.settings.match_fill_seconds * 1000),
            "online": entry.offline_since is None,
            "drop_ms": drop,
        }

    def send(self, player_id: int) -> None:
        self.delivery.send(player_id, frames.queue(self.info(player_id)))

    def resend(self, player_id: int) -> None:
        """The player's place again (``sync``), if it waits."""
        self.keeper.resend(self, player_id)

    def _tell(self, line: Line) -> None:
        """Everyone waiting in this queue gets its place again (someone came or went)."""
        for entry in self.waiting(line):
            self.send(entry.player_id)

    # ---- joining and leaving -------------------------------------------------------------------------

    async def join(self, player_id: int, line: Line) -> list[list[int]]:
        """Wait in the queue ``line`` (tier, preset; checked by the caller): the groups to seat at once
        (three waiting).

        :raises RoomError: ``already_queued`` (409)."""
        async with self.lock:
            await self._refresh()
            entry = self.entries.get(player_id)
            if entry is not None:
                raise RoomError("already_queued", f"you already wait for a table in the {entry.tier} queue")
            now = time.time()
            offline = None if await self.keeper.online(player_id) else time.monotonic()
            if not await self.keeper.add(player_id, line, now, offline is None):
                raise RoomError("already_queued", "you already wait for a table")  # joined elsewhere meanwhile
            tier, preset = line
            self.entries[player_id] = Entry(player_id, tier, now, offline, self.settings.offline_grace, preset)
            if offline is not None and await self.keeper.online(player_id):
                # its websocket came up while the entry was being written: connected() found no entry to mark
                # then, and an entry left offline would be dropped after offline_grace, the player online
                self.keeper.connected(self, player_id)
            log(INFO, "queued", player=player_id, tier=tier, preset=preset)
            self._tell(line)
            return await self._match(line)

    async def leave(self, player_id: int) -> str | None:
        """Leave the queue (cancel): the tier left, or None if the player was not waiting."""
        async with self.lock:
            await self._refresh()
            entry = self.entries.get(player_id)
            if entry is None or not await self._unqueue([player_id], line_of(entry), None):
                return None
            log(INFO, "left the queue", player=player_id, tier=entry.tier)
            return entry.tier

    async def take(self, line: Line, n: int) -> list[int]:
        """Up to ``n`` players online in the queue ``line``, first come first, taken out of it: a public
        table (of that tier and preset) seats them in its computers' seats as its next hand starts."""
        if n <= 0:
            return []
        async with self.lock:
            await self._refresh()
            chosen = [e.player_id for e in self.waiting(line) if e.offline_since is None][:n]
            if not chosen or not await self._unqueue(chosen, line, True):
                return []
            await self.keeper.seating(chosen)
            log(INFO, "queue to a table's free seats", players=chosen, tier=line[0], preset=line[1])
            return chosen

    async def _unqueue(self, ids: list[int], line: Line, online: bool | None) -> bool:
        """Take these players out of the queue ``line``, all or none (:meth:`QueueKeeper.take_out`); each
        gets ``queue: null``. False (the queue read again) when another process changed it first."""
        if not await self.keeper.take_out(ids, online):
            await self._refresh()
            return False
        self._forget(ids, line)
        return True

    def _forget(self, ids: list[int], line: Line) -> None:
        for pid in ids:
            self.entries.pop(pid, None)
            self.delivery.send(pid, frames.queue(None))
        self._tell(line)

    # ---- connections ---------------------------------------------------------------------------------

    def connected(self, player_id: int) -> None:
        """The player's websocket is (back) up: it waits online again and is told its place."""
        self.keeper.connected(self, player_id)

    def disconnected(self, player_id: int) -> None:
        """The player's websocket is gone: it keeps its place for ``offline_grace`` seconds."""
        self.keeper.disconnected(self, player_id)

    async def restore(self) -> None:
        """After a restart: everyone who was waiting waits again (:meth:`QueueKeeper.restore`)."""
        self.entries = await self.keeper.restore()

    # ---- seating -------------------------------------------------------------------------------------

    async def tick(self) -> list[tuple[Line, list[list[int]]]]:
        """Drop who was offline too long, then take out whoever can be seated: (queue, groups) to seat."""
        await self.keeper.lost(self)
        async with self.lock:
            await self._refresh()
            now = time.monotonic()
            gone = [
                e for e in self.entries.values() if e.offline_since is not None and now - e.offline_since >= e.grace
            ]
            for line in sorted({line_of(e) for e in gone}):
                ids = [e.player_id for e in gone if line_of(e) == line]
                if await self._unqueue(ids, line, False):
                    log(INFO, "dropped from the queue (offline)", players=ids, tier=line[0], preset=line[1])
            lines = sorted({line_of(e) for e in self.entries.values()})
            return [(line, await self._match(line)) for line in lines]

    async def _match(self, line: Line) -> list[list[int]]:
        """Take full tables (:func:`seats_of` the queue's preset) out of the queue; fewer once the first of them
        has waited ``match_fill_seconds``: the groups to seat (by :meth:`_open`, once the lock is released — a table
        waits for each player's seating claim, and a claim's holder may be waiting for this lock)."""
        online = [e for e in self.waiting(line) if e.offline_since is None]
        seats = seats_of(line[1])
        groups = [online[i : i + seats] for i in range(0, len(online) - seats + 1, seats)]
        rest = online[len(groups) * seats :]
        if rest and time.time() - rest[0].joined_at >= self.settings.match_fill_seconds:
            groups.append(rest)
        taken = []
        for group in groups:
            ids = [e.player_id for e in group]
            if not await self._unqueue(ids, line, True):
                continue  # another process seated one of them first (the shared mode)
            await self.keeper.seating(ids)
            taken.append(ids)
        return taken


class LocalQueue:
    """One process: the queue in the matchmaker's memory, each entry a row of ``queue_entries`` (so that a
    restart finds it), its players online when their websocket is in ``delivery`` (the hub's connections)."""

    def __init__(self, settings: Settings, db: Database, delivery: Delivery) -> None:
        self.settings = settings
        self.db = db
        self.delivery = delivery

    async def refresh(self, entries: dict[int, Entry]) -> dict[int, Entry]:
        return entries  # this process's own

    async def online(self, player_id: int) -> bool:
        return self.delivery.online(player_id)

    async def add(self, player_id: int, line: Line, joined_at: float, online: bool) -> bool:
        await self.db.run(queue_store.add(player_id, line[0], joined_at, line[1]))
        return True

    async def take_out(self, ids: list[int], online: bool | None) -> bool:
        await self.db.run(queue_store.remove(ids))  # always possible here, under the matchmaker's lock
        return True

    async def seating(self, ids: list[int]) -> None:
        pass

    async def restore(self) -> dict[int, Entry]:
        """Everyone who was waiting waits again, offline until it reconnects, for at most
        ``queue_resume_seconds``."""
        rows = await self.db.run(queue_store.load())
        now = time.monotonic()
        grace = max(self.settings.offline_grace, self.settings.queue_resume_seconds)
        log(INFO, "queue restored", players=len(rows))
        return {pid: Entry(pid, tier, joined_at, now, grace, preset) for pid, tier, joined_at, preset in rows}

    async def lost(self, book: Matchmaker) -> None:
        pass  # a process that is gone is this one

    def connected(self, book: Matchmaker, player_id: int) -> None:
        entry = book.of(player_id)
        if entry is not None:
            entry.offline_since = None
            entry.grace = self.settings.offline_grace
            book.send(player_id)

    def disconnected(self, book: Matchmaker, player_id: int) -> None:
        entry = book.of(player_id)
        if entry is not None and entry.offline_since is None:
            entry.offline_since = time.monotonic()
            entry.grace = self.settings.offline_grace

    def resend(self, book: Matchmaker, player_id: int) -> None:
        if book.of(player_id) is not None:
            book.send(player_id)


def tier_or_error(name: str) -> economy.Tier:
    """:raises RoomError: ``invalid`` (422) naming the tiers there are."""
    try:
        return economy.find_tier(name)
    except KeyError as exc:
        raise RoomError("invalid", str(exc.args[0]), 422) from None
