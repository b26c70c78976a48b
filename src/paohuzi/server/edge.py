"""The edge's side of the shared mode (issue 14): :class:`Edge` is the hub's
:class:`~paohuzi.server.ports.RoomsElsewhere` when several processes share a database and Redis.

Any process accepts any websocket (it is the player's *edge*); the room is run by the process holding its
lease (the *owner*). The edge relays the player's frames to the owner (:class:`~paohuzi.server.relay_messages.In`,
the frame's text as the client sent it), says when the websocket comes and goes (``Attach``, ``Detach``), and
asks the owner the lobby questions about its room (``Call`` → ``Reply``). Where the player sits is in Redis
(:class:`~paohuzi.server.relay.Seats`), who owns a room too (:class:`~paohuzi.server.lease.Leases`).
"""

from __future__ import annotations

import asyncio
import itertools
from typing import TYPE_CHECKING, Any

import orjson

from paohuzi.server import frames, store
from paohuzi.server import protocol as p
from paohuzi.server.db import Database
from paohuzi.server.directory import RoomDirectory
from paohuzi.server.frames import MessageId, RoomError
from paohuzi.server.lease import Leases
from paohuzi.server.relay import Bus, RelayedConnections, Seats
from paohuzi.server.relay_messages import Attach, Call, Close, Detach, In, Out, Reply, Revoked
from paohuzi.server.services import Tasks

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["CALL_TIMEOUT", "OWNER_TTL", "Edge", "unavailable"]

CALL_TIMEOUT = 5.0
#: Seconds the edge trusts a room's owner it looked up, for relaying: every change of owner is told (``adopted``,
#: ``released``) or found (nobody listening, an error from the owner) and forgets it sooner, and an owner that
#: no longer holds the room answers a relayed frame with ``moving``, which forgets it too; this bounds the rest
#: (a message lost while Redis was away). Issue 33: each look-up is a redis-py round trip (~150 µs of CPU); at
#: 10 s they were 30 a second for 300 rooms relayed, for owners that had not changed.
OWNER_TTL = 60.0


def unavailable() -> RoomError:
    return RoomError("moving", "the room is moving to another server process; try again in a moment", 503)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def frame_text(msg: p.ClientMessage) -> str:
    """A parsed client frame as JSON text again (only where the text as received is not at hand)."""
    frame = msg.model_dump(mode="python", exclude_none=True)
    if isinstance(msg, p.Act):
        frame["action"] = str(msg.action)
    return orjson.dumps(frame).decode()


class Edge:
    """Rooms of other processes, for the players whose websocket is here."""

    def __init__(  # noqa: PLR0913, PLR0917 (the shared mode's parts it uses)
        self,
        me: str,
        presence: str,
        redis: Redis,
        bus: Bus,
        leases: Leases,
        seats: Seats,
        db: Database,
        directory: RoomDirectory,
        conns: RelayedConnections,
        tasks: Tasks,
    ) -> None:
        self.me = me
        self.presence = presence  # player id → the process holding the player's websocket (a Redis hash)
        self.address_of = f"{presence}:address"  # player id → its websocket's address, for 同IP (a Redis hash)
        self.redis = redis
        self.bus = bus
        self.leases = leases
        self.seats = seats
        self.db = db
        self.directory = directory
        self.conns = conns
        self.sockets = conns.local_sockets
        self.tasks = tasks
        self.edge_room: dict[int, str] = {}  # player id → code, for local websockets seated elsewhere
        self.stopping = False  # set by the Cluster at shutdown: nothing more is relayed
        self._calls: dict[int, asyncio.Future[Reply]] = {}
        self._call_ids = itertools.count(1)
        # code → (owner, when looked up): a relayed frame asked Redis for its room's lease every time (issue 33)
        self._owners: dict[str, tuple[str, float]] = {}

    # ---- RoomsElsewhere ------------------------------------------------------------------------------

    async def owner(self, code: str) -> str | None:
        return await self.leases.owner(code)

    async def seat_of(self, player: int) -> tuple[str, str] | None:
        """(code, owner) of the room of another process the player sits in, or None."""
        code = await self.seats.room_of(player)
        if code is None or code in self.directory.rooms:
            return None
        owner = await self.leases.owner(code)
        if owner is None:
            if code not in {c for _, c in await self.db.run(store.open_rooms())}:
                self.seats.unseat(player, code)  # a seat left behind by a room closed meanwhile (a crash)
                return None
            raise unavailable()  # open, between two owners: taken over in a moment
        return code, owner

    async def call(self, owner: str, op: str, code: str | None = None, player: int | None = None,
                   seat: int | None = None) -> object:
        n = next(self._call_ids)
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._calls[n] = future
        self.bus.send(owner, Call(n, self.me, op, code, player, seat))
        try:
            reply = await asyncio.wait_for(future, CALL_TIMEOUT)
        except TimeoutError:
            raise unavailable() from None
        finally:
            self._calls.pop(n, None)
        if reply.error is not None:
            code_, message, status = reply.error
            raise RoomError(code_, message, status)
        return reply.result

    def replied(self, reply: Reply) -> None:
        """The answer to one of this process's calls came."""
        future = self._calls.pop(reply.number, None)
        if future is not None and not future.done():
            future.set_result(reply)

    async def forward(self, player: int, msg: p.ClientMessage, text: str | None) -> bool:
        code = self.edge_room.get(player) or await self.seats.room_of(player)
        if code is None or code in self.directory.rooms or player in self.directory:
            return False
        self.edge_room[player] = code
        message = In(player, code, self.me, text if text is not None else frame_text(msg))
        if await self.to_owner(player, code, message, msg.id):
            return True
        if await self.seat_of(player) is not None:  # raises while the room is between owners
            raise unavailable()
        self.edge_room.pop(player, None)  # that room is closed: the frame is this process's
        return False

    def attached(self, player: int) -> bool:
        self.tasks.spawn(self._attach(player))
        return True

    def detached(self, player: int) -> None:
        if self.stopping:
            return
        code = self.edge_room.pop(player, None)
        if code is not None:
            self.tasks.spawn(self.to_owner(player, code, Detach(player, code, self.me)))
        self.tasks.spawn(self._unpresent(player))

    def revoked(self, sessions: set[int]) -> None:
        self.bus.broadcast(Revoked(tuple(sorted(sessions))))

    async def addresses(self, players: list[int]) -> dict[int, str]:
        """同IP across the processes (issue 31 §4): the addresses the players' processes wrote at attach."""
        found = await self.redis.hmget(self.address_of, [str(p) for p in players]) if players else []
        return {p: _text(a) for p, a in zip(players, found, strict=True) if a is not None}

    # ---- the relay -----------------------------------------------------------------------------------

    async def to_owner(
        self, player: int, code: str, message: In | Attach | Detach, msg_id: MessageId | None = None
    ) -> bool:
        """Send a message about the player to the room's owner; False when nobody (else) holds the room now.
        A frame (``In``) that no process received (the owner died and its lease has not run out yet) is
        answered with a ``moving`` error; the player gets the snapshot once another process has the room."""
        owner = await self._relay_owner(code, fresh=not isinstance(message, In))  # attach, detach: rare, looked up
        if owner is None or owner == self.me:
            return False

        def counted(n: int) -> None:
            if n == 0:  # that process is gone
                self.moved(code, owner)
            conn = self.sockets.get(player)
            if n == 0 and isinstance(message, In) and conn is not None:
                conn.send(dict(frames.error("moving", unavailable().message, msg_id)))

        self.bus.send(owner, message, counted)
        return True

    async def _relay_owner(self, code: str, fresh: bool = False) -> str | None:
        """The room's owner, for relaying: looked up in Redis at most every ``OWNER_TTL`` s (``fresh``: now)."""
        now = asyncio.get_running_loop().time()
        known = self._owners.get(code)
        if known is not None and not fresh and now - known[1] < OWNER_TTL:
            return known[0]
        owner = await self.leases.owner(code)
        if owner is None:
            self._owners.pop(code, None)
        else:
            self._owners[code] = (owner, now)
        return owner

    def owned(self, code: str, owner: str) -> None:
        """Process ``owner`` took the room over (``adopted``)."""
        self._owners[code] = (owner, asyncio.get_running_loop().time())

    def moved(self, code: str, owner: str | None = None) -> None:
        """The room's owner may have changed (``owner``: only if it was that one): look it up again."""
        known = self._owners.get(code)
        if known is not None and (owner is None or known[0] == owner):
            del self._owners[code]

    def delivered(self, out: Out) -> None:
        """A frame from the owner of the player's room, for its websocket here."""
        conn = self.sockets.get(out.player)
        if conn is None or out.player in self.directory:
            return
        if out.kind == "error" and out.code is not None:
            self.moved(out.code)  # perhaps "moving": the room is not that process's any more (rare: look again)
        if out.code is not None:
            self.edge_room[out.player] = out.code
        elif out.kind == "room":
            left = self.edge_room.pop(out.player, None)
            if left is not None:
                self.moved(left)
        conn.send_bytes(out.frame)  # the owner's encoding, untouched (issue 33)

    async def _attach(self, pid: int) -> None:
        await self.redis.hset(self.presence, str(pid), self.me)
        conn = self.sockets.get(pid)
        client = conn.websocket.client if conn is not None else None
        if client is not None:
            await self.redis.hset(self.address_of, str(pid), client.host)
        old = self.conns.remote.pop(pid, None)
        if old is not None:  # the player's older websocket, at another process
            self.bus.send(old, Close(pid))
        if pid in self.directory:
            self._attach_here(pid)
            return
        code = await self.seats.room_of(pid)
        if pid in self.directory or code in self.directory.rooms:
            self._attach_here(pid)
        elif code is None:
            self.conns.send(pid, frames.room(None))
        elif pid in self.sockets:
            self.edge_room[pid] = code
            await self.to_owner(pid, code, Attach(pid, code, self.me))  # no owner now: "adopted" will attach it

    def _attach_here(self, pid: int) -> None:
        """The player's room is this process's (as :meth:`Hub.attach` does with one process)."""
        room = self.directory.room_of(pid)
        if room is not None:
            room.connected(pid)
        else:
            self.conns.send(pid, frames.room(None))

    async def _unpresent(self, pid: int) -> None:
        if pid not in self.sockets and await self.redis.hget(self.presence, str(pid)) in (self.me, self.me.encode()):
            await self.redis.hdel(self.presence, str(pid))
            await self.redis.hdel(self.address_of, str(pid))
