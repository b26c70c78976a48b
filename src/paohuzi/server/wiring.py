"""The composition root: the hub and its ports for each of the two deployments (docs/server.md, "The hub
and its ports"). :mod:`paohuzi.server.app` chooses between them, once, at start-up: :func:`one_process`, or
:func:`shared_mode` when ``redis_url`` is set (issue 14).
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paohuzi.server import store
from paohuzi.server.config import Settings
from paohuzi.server.db import Database
from paohuzi.server.directory import NoMirror, RoomDirectory
from paohuzi.server.edge import Edge
from paohuzi.server.hub import Hub
from paohuzi.server.lease import Leases
from paohuzi.server.logs import log
from paohuzi.server.matchmaking import LocalQueue, Matchmaker
from paohuzi.server.ports import HubPorts, Lifecycle, LocalHome, NoElsewhere
from paohuzi.server.registry import Connections
from paohuzi.server.relay import Bus, RelayedConnections, Seats
from paohuzi.server.room import Room, SeatState
from paohuzi.server.seating import LocalClaims, RedisClaims
from paohuzi.server.services import Tasks
from paohuzi.server.shared import Cluster, FencedRooms, LeasedHome
from paohuzi.server.shared_queue import QueueFrames, RedisQueue

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["FencedRooms", "OneProcess", "Server", "one_process", "shared_mode"]

ERROR, INFO = 40, 20


class OneProcess:
    """One process's :class:`~paohuzi.server.ports.Lifecycle`: the open rooms come back from the database at
    start-up (the shared mode adopts them one by one instead: :class:`~paohuzi.server.shared.Cluster`)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    async def start(self) -> None:
        pass

    async def recover(self) -> None:
        """Rebuild every open room and carry on every unfinished match (issue #5 §6); the queue comes back."""
        hub = self.hub
        rooms = await hub.db.run(store.load_open_rooms())
        await hub.ensure_cards(sorted({x.player_id for r in rooms for x in r.seats if x.player_id is not None}))
        resumed = 0
        for data in rooms:
            seats = [SeatState(i, x.player_id, x.bot, bool(x.ready)) for i, x in enumerate(data.seats)]
            room = Room(hub.services, data.id, data.code, data.kind, data.owner_id, data.options, seats, "waiting")
            room.first_match_pending = False  # not known here: no ready clock after a restart (decisions.md)
            hub.directory.add(room)
            for pid in room.humans():
                hub.directory.seat(pid, room)
            if data.match is not None:
                try:
                    await room.resume(data.match)
                    resumed += 1
                except Exception:
                    log(ERROR, "match could not be resumed; aborted", room=room.code, exc_info=True)
                    room.match = None
                    room.status = "waiting"
            elif data.status == "playing":
                room.status = "waiting"
        await hub.queue.restore()
        log(INFO, "recovered", rooms=len(rooms), matches=resumed)

    async def shutdown(self) -> None:
        await self.hub.shutdown()


@dataclass(frozen=True, slots=True)
class Server:
    """A process's hub, its life cycle (start, recover, shutdown), and what the app reports or closes."""

    hub: Hub
    life: Lifecycle
    redis: Redis | None = None  # the shared mode's Redis client (the app's rate limits use it; closed at exit)
    token: int | None = None  # one process: its writer token (db.py)
    process: str | None = None  # the shared mode: this process's name on the relay
    relay_counts: dict[str, int] | None = None  # the shared mode: what the relay sent and received (metrics)


def one_process(settings: Settings, db: Database, token: int) -> Server:
    """The hub of the only process on its database: everything in memory, the database as it is."""
    sockets = Connections()
    queue = Matchmaker(settings, LocalQueue(settings, db, sockets), sockets)
    directory = RoomDirectory(NoMirror())
    claims = LocalClaims(settings.seat_wait)
    ports = HubPorts(directory, sockets, sockets, claims, LocalHome(), NoElsewhere(), queue, Tasks())
    hub = Hub(settings, db, ports)
    return Server(hub, OneProcess(hub), token=token)


def shared_mode(
    settings: Settings, db: Database, redis: Redis, fences: FencedRooms, on_lease: Callable[[str], None]
) -> Server:
    """The hub of one of several processes sharing ``db`` and ``redis`` (shared.py), and its :class:`Cluster`."""
    me = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
    prefix = settings.redis_prefix
    presence = f"{prefix}:presence"  # player id → the process holding the player's websocket
    bus = Bus(redis, prefix, me)
    seats = Seats(redis, prefix)
    leases = Leases(redis, prefix, me, settings.lease_ms)
    directory = RoomDirectory(seats)
    sockets = Connections()
    conns = RelayedConnections(sockets, bus, directory)
    tasks = Tasks()
    queue_frames = QueueFrames(redis, presence, bus, conns)
    queue = Matchmaker(settings, RedisQueue(settings, redis, prefix, me, bus, conns, queue_frames), queue_frames)
    edge = Edge(me, presence, redis, bus, leases, seats, db, directory, conns, tasks)
    claims = RedisClaims(redis, prefix, seats.settled, settings.seat_wait)  # held across the processes
    home = LeasedHome(me, leases, db, tasks, on_lease)
    hub = Hub(settings, db, HubPorts(directory, sockets, conns, claims, home, edge, queue, tasks))
    return Server(hub, Cluster(settings, hub, edge, conns, fences, on_lease), redis, None, me, bus.counts)
