"""The shared mode (issue 14): several server processes on one PostgreSQL and one Redis.

Each process has the one :class:`~paohuzi.server.hub.Hub`, given the shared mode's ports (app.py): the
room directory mirrored to Redis, the relayed delivery, the Redis seating claims and queue, :class:`LeasedHome`
(a new room's lease and fence) and :class:`~paohuzi.server.edge.Edge` (rooms of other processes). What has no
counterpart with one process — adopting rooms, giving fenced ones up, serving the relay — is :class:`Cluster`,
a collaborator holding the hub and those ports. A room is run by exactly one
process — the one holding its Redis lease (:mod:`paohuzi.server.lease`); every write it makes for the room
carries the lease's fencing token, checked in the same transaction (:class:`~paohuzi.server.db.RoomStore`),
so a stale owner can never append. Any process accepts any websocket and relays (:mod:`paohuzi.server.edge`):
the player's frames go to the room's owner, the owner's frames for the seat come back. Lobby calls about a
room of another process (look at it, join it, leave it) are asked of its owner.

Failover: every process looks for open rooms nobody holds every ``lease_ms`` (and at once when a process
says it released some). It takes such a room's lease (a new token), writes the token to the room's fence
(which waits for a transaction of the previous owner still in flight), reads the room and its match from
the database and carries on (:meth:`~paohuzi.server.room.Room.resume`, exactly as a restart does), and
tells every process (``adopted``) so that the edges attach their players to it (each gets the snapshot).
A process asked to stop (SIGTERM) finishes each room's step in flight, releases its leases and says so:
the others take the rooms over at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable, Container
from typing import Any

import orjson

from paohuzi.server import frames, store
from paohuzi.server import protocol as p
from paohuzi.server.config import Settings
from paohuzi.server.db import Database, fence_room
from paohuzi.server.directory import RoomDirectory
from paohuzi.server.edge import Edge, unavailable
from paohuzi.server.frames import RoomError, error
from paohuzi.server.hub import Hub
from paohuzi.server.lease import Keeper, Leases
from paohuzi.server.logs import log
from paohuzi.server.ports import new_code
from paohuzi.server.relay import Bus, RelayedConnections, Seats
from paohuzi.server.relay_messages import (
    Adopted,
    Attach,
    Call,
    Close,
    Detach,
    In,
    Message,
    Out,
    Released,
    Reply,
    Revoked,
)
from paohuzi.server.room import Room, SeatState
from paohuzi.server.services import RoomServices, Tasks

__all__ = ["Cluster", "FencedRooms", "LeasedHome"]

ERROR, WARNING, INFO = 40, 30, 20

#: Counts a lease change for the metrics: "acquired", "lost" or "released".
LeaseCounter = Callable[[str], None]


class FencedRooms:
    """The rooms the database refused a write for (their fence has a newer token: another process holds
    them), handed from the database thread (:class:`~paohuzi.server.db.Database`'s ``on_room_fenced``) to the
    event loop, where :class:`Cluster` gives them up."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[list[int]] = asyncio.Queue()

    def report(self, room_ids: list[int]) -> None:
        """Called on the database thread."""
        self._loop.call_soon_threadsafe(self._queue.put_nowait, room_ids)

    async def next(self) -> list[int]:
        return await self._queue.get()


class LeasedHome:
    """The shared mode's :class:`~paohuzi.server.ports.RoomHome`: a new room's code is one whose lease this
    process takes there and then (so two processes never share one), and its writes carry that lease's token
    (the room's fence in the database)."""

    def __init__(self, me: str, leases: Leases, db: Database, tasks: Tasks, on_lease: LeaseCounter) -> None:
        self.me = me
        self.leases = leases
        self.db = db
        self.tasks = tasks
        self.on_lease = on_lease
        self._tokens: dict[str, int] = {}  # code → the token of a lease taken for a room being created

    async def new_code(self, taken: Container[str]) -> str:
        for _ in range(100):
            code = new_code(taken)
            if code is None:
                break
            token = await self.leases.acquire(code)
            if token is not None:
                self._tokens[code] = token
                self.on_lease("acquired")
                return code
        raise RoomError("internal", "no free room code", 503)

    async def services_for(self, base: RoomServices, room_id: int, code: str) -> RoomServices:
        token = self._tokens.pop(code)
        if not await self.db.run(fence_room(room_id, token, self.me)):
            raise RoomError("internal", "the new room was taken over at once", 503)
        return dataclasses.replace(base, db=self.db.for_room(room_id, token))

    def closed(self, room: Room) -> None:
        token = self.leases.held.get(room.code)
        if token is not None and room.closed:
            self.tasks.spawn(self.leases.release([room.code]))
            log(INFO, "room lease released", room=room.code, token=token)


class Cluster:
    """What only the shared mode has: the bus listener (serving the relay for the rooms of this process and
    the websockets here), adoption of rooms nobody holds, lease renewal, giving up fenced or lost rooms, and
    the hand-over at SIGTERM. The app's :class:`~paohuzi.server.ports.Lifecycle` in the shared mode."""

    def __init__(  # noqa: PLR0913 (the hub and the shared mode's ports)
        self,
        settings: Settings,
        hub: Hub,
        edge: Edge,
        conns: RelayedConnections,
        fenced: FencedRooms,
        on_lease: LeaseCounter,
    ) -> None:
        self.settings = settings
        self.hub = hub
        self.edge = edge
        self.me = edge.me
        self.db = hub.db
        self.redis = edge.redis
        self.bus: Bus = edge.bus
        self.leases: Leases = edge.leases
        self.seats: Seats = edge.seats
        self.directory: RoomDirectory = hub.directory
        self.rooms = hub.directory.rooms
        self.conns = conns  # the relayed delivery: its ``remote`` is where this process's players are
        self.sockets = conns.local_sockets
        self.fenced = fenced
        self.on_lease = on_lease
        self.stopping = False
        self._adopting: set[str] = set()

    # ---- life cycle --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen, renew, and look for rooms nobody holds (at once, then every ``lease_ms``)."""
        self.bus.handler = self._on_message  # each message handled as the bus reads it, until the bus stops
        if not await self.bus.start():
            log(WARNING, "Redis does not answer; serving without rooms until it does")
        self.seats.start()
        self.hub.spawn(self._fences())
        self.hub.spawn(self._renew())
        self.hub.spawn(self._adopt_loop())

    async def recover(self) -> None:
        try:
            await self.adopt_orphans()
        except Exception as exc:  # noqa: BLE001 — Redis away: the loop tries again
            log(WARNING, "looking for rooms failed", error=repr(exc))

    async def _fences(self) -> None:
        while True:
            room_ids = await self.fenced.next()
            for room in [r for r in self.rooms.values() if r.id in room_ids]:
                self._drop(room.code, "fenced")

    async def _renew(self) -> None:
        """The leases are renewed by a thread (:class:`~paohuzi.server.lease.Keeper`: a slow loop keeps its rooms,
        issue 33), as long as this loop beats; a room whose lease was found gone is given up."""
        keeper = Keeper(self.leases, self.settings.redis_url, self._lost)
        keeper.start()
        try:
            while True:
                keeper.beat()
                await asyncio.sleep(min(0.5, self.leases.ttl_ms / 6000))
        finally:
            keeper.stop()

    def _lost(self, codes: list[str]) -> None:
        for code in codes:
            self._drop(code, "lease lost")

    async def _adopt_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.lease_ms / 1000 * random.uniform(0.3, 0.6))
            try:
                await self.adopt_orphans()
            except Exception as exc:  # noqa: BLE001 — the database or Redis away: next round
                log(WARNING, "looking for rooms failed", error=repr(exc))

    async def adopt_orphans(self) -> None:
        """Take over every open room whose lease nobody holds."""
        if self.stopping:
            return
        rooms = [(i, c) for i, c in await self.db.run(store.open_rooms()) if c not in self.rooms]
        owners = await self.leases.owners([c for _, c in rooms])
        for (room_id, code), owner in zip(rooms, owners, strict=True):
            if owner is None:
                await self.adopt(room_id, code)

    async def adopt(self, room_id: int, code: str) -> None:
        """Take the room over from the database, if its lease is free."""
        if self.stopping or code in self.rooms or code in self._adopting:
            return
        self._adopting.add(code)
        try:
            token = await self.leases.acquire(code)
            if token is not None:
                await self._adopt(room_id, code, token)
        except Exception:
            log(ERROR, "room take-over failed", room=code, exc_info=True)
            self._drop(code, "take-over failed")
        finally:
            self._adopting.discard(code)

    async def _adopt(self, room_id: int, code: str, token: int) -> None:
        self.edge.moved(code)
        if not await self.db.run(fence_room(room_id, token, self.me)):
            self.leases.forget(code)
            return
        found = await self.db.run(store.load_open_rooms(room_id))
        if not found or found[0].code != code:
            await self.leases.release([code])
            return
        data = found[0]
        seats = [SeatState(i, x.player_id, x.bot, bool(x.ready)) for i, x in enumerate(data.seats)]
        services = dataclasses.replace(self.hub.services, db=self.db.for_room(room_id, token))
        room = Room(services, data.id, data.code, data.kind, data.owner_id, data.options, seats, "waiting")
        humans = room.humans()
        await self.hub.ensure_cards(humans)
        edges = await self.redis.hmget(self.edge.presence, [str(x) for x in humans]) if humans else []
        self.directory.add(room)
        for pid, edge in zip(humans, edges, strict=True):
            self.edge.edge_room.pop(pid, None)
            self.directory.seat(pid, room)
            if edge is not None and pid not in self.sockets:
                self.conns.remote[pid] = _text(edge)
        if data.match is not None:
            try:
                await room.resume(data.match)
            except Exception:
                log(ERROR, "match could not be resumed; aborted", room=code, exc_info=True)
                room.match, room.status = None, "waiting"
        elif data.status == "playing":
            room.status = "waiting"
        for pid in humans:
            if pid in self.sockets:
                room.connected(pid)
        self.bus.broadcast(Adopted(code, self.me, tuple(humans)))
        self.on_lease("acquired")
        log(INFO, "room taken over", room=code, token=token, match=data.match is not None)

    def _drop(self, code: str, why: str, reattach: bool = True) -> None:
        """Give a room up (another process holds it now, or will): forget it without writing anything."""
        self.leases.forget(code)
        self.edge.moved(code)
        room = self.rooms.get(code)
        if room is None:
            return
        room.cancel_decisions()
        room.status = "closed"  # nothing of it runs any more here (its writes are fenced in any case)
        self.directory.forget(room, mirrored=False)  # the new owner writes its players' seats
        for pid in room.humans():
            self.conns.remote.pop(pid, None)
            if pid in self.sockets:
                self.edge.edge_room[pid] = code
                if reattach:
                    self.hub.spawn(self.edge.to_owner(pid, code, Attach(pid, code, self.me)))
        log(WARNING, "room given up", room=code, why=why)
        self.on_lease("lost")

    async def shutdown(self) -> None:
        """Stop without losing anything: every room's step in flight ends, nothing more is written, the
        leases are released and the others told, who take the rooms over at once."""
        self.stopping = self.edge.stopping = True  # nothing new comes in from now on
        for room in self.rooms.values():
            room.cancel_decisions()
        for room in list(self.rooms.values()):  # the steps in flight end, their frames go out
            try:
                await asyncio.wait_for(room.lock.acquire(), 2.0)  # held from now on: nothing more runs
            except TimeoutError:
                log(WARNING, "room still busy at shutdown", room=room.code)
        self.hub.tasks.cancel()
        try:
            await asyncio.wait_for(self.db.run(store.open_rooms()), 5.0)  # every earlier job is done
        except Exception as exc:  # noqa: BLE001 — the leases go anyway; the fences keep the log right
            log(WARNING, "database not drained at shutdown", error=repr(exc))
        released = tuple((room.id, code) for code, room in self.rooms.items() if code in self.leases.held)
        for _ in released:
            self.on_lease("released")
        await self.leases.release(list(self.leases.held))
        self.bus.broadcast(Released(released))
        for pid, code in list(self.edge.edge_room.items()):
            await self.edge.to_owner(pid, code, Detach(pid, code, self.me))
        for conn in self.sockets.values():
            conn.close(1012, "server restarting")
        if self.sockets:
            await self.redis.hdel(self.edge.presence, *[str(x) for x in self.sockets])
            await self.redis.hdel(self.edge.address_of, *[str(x) for x in self.sockets])
        await self.bus.flush()
        await self.seats.stop()
        await self.bus.stop()  # the messages that came meanwhile were still answered (``moving``, …)
        log(INFO, "rooms handed over", rooms=[code for _, code in released])
        await asyncio.sleep(0.05)
        self.hub.bots.shutdown()

    # ---- the relay: messages from the other processes ------------------------------------------------

    def _on_message(self, m: Message) -> None:  # noqa: C901 (one branch per kind of message)
        match m:
            case Out():
                self.edge.delivered(m)
            case In():
                self._on_in(m)
            case Attach():
                self._on_attach(m)
            case Detach():
                self._on_detach(m)
            case Call():
                self.hub.spawn(self._serve_call(m))
            case Reply():
                self.edge.replied(m)
            case Close():
                conn = self.sockets.get(m.player)
                if conn is not None:
                    conn.close(4000, "replaced by a newer connection")
            case Adopted() if m.owner != self.me and not self.stopping:
                self._on_adopted(m)
            case Released() if not self.stopping:
                for room_id, code in m.rooms:
                    self.edge.moved(code)
                    self.hub.spawn(self._adopt_soon(room_id, code))
            case Revoked():
                self.hub.forget_sessions_here(set(m.sessions))

    async def _adopt_soon(self, room_id: int, code: str) -> None:
        await asyncio.sleep(random.uniform(0, 0.05))  # the rooms of a stopping process spread over the others
        await self.adopt(room_id, code)

    def _owned_room(self, code: str, player: int) -> Room | None:
        room = self.rooms.get(code)
        return None if self.stopping or room is None or player not in room.humans() else room

    def _on_attach(self, m: Attach) -> None:
        room = self._owned_room(m.code, m.player)
        if room is None:
            if m.code in self.rooms:  # the player left that room meanwhile
                self.bus.send(m.edge, self.conns.out(m.player, None, frames.room(None)))
            return
        old = self.conns.remote.get(m.player)
        if old is not None and old != m.edge:
            self.bus.send(old, Close(m.player))
        local = self.sockets.get(m.player)
        self.conns.remote[m.player] = m.edge
        if local is not None:
            local.close(4000, "replaced by a newer connection")
        room.connected(m.player)

    def _on_detach(self, m: Detach) -> None:
        if self.conns.remote.get(m.player) != m.edge:
            return
        del self.conns.remote[m.player]
        room = self.directory.room_of(m.player)
        if room is not None and m.player not in self.sockets:
            room.disconnected(m.player)

    def _on_in(self, m: In) -> None:
        room = self._owned_room(m.code, m.player)
        if room is None:
            msg_id = _frame_id(m.text)
            moving = error("moving", unavailable().message, msg_id)
            self.bus.send(m.edge, self.conns.out(m.player, m.code, moving))
            return
        if m.player not in self.sockets:
            self.conns.remote[m.player] = m.edge
        msg = p.parse_client_frame(m.text)  # checked by the edge already: cannot fail
        self.hub.spawn(self._run_remote(m.player, msg))

    async def _run_remote(self, pid: int, msg: p.ClientMessage) -> None:
        try:
            await self.hub.handle_player(pid, msg)
        except RoomError as exc:
            self.conns.send(pid, error(exc.code, exc.message, msg.id))
        except Exception:  # noqa: BLE001 — logged here, a plain error to the client
            log(ERROR, "relayed frame failed", player=pid, type=msg.type, exc_info=True)
            self.conns.send(pid, error("internal", "the server failed", msg.id))

    async def _serve_call(self, m: Call) -> None:
        try:
            if self.stopping:
                raise unavailable()
            reply = Reply(m.number, await self._call_here(m))
            await self.seats.settled()  # the caller holds the player's claim until the seat is in Redis
        except RoomError as exc:
            reply = Reply(m.number, error=(exc.code, exc.message, exc.status))
        except Exception:  # noqa: BLE001 — answered as internal, logged here
            log(ERROR, "relayed call failed", op=m.op, exc_info=True)
            reply = Reply(m.number, error=("internal", "internal server error", 500))
        self.bus.send(m.reply_to, reply)

    async def _call_here(self, m: Call) -> Any:
        """A lobby call about a room of this process (its JSON answer)."""
        if m.op == "state" and m.code is not None:
            room = self.rooms.get(m.code)
            return None if room is None else room.state()
        if m.player is None:
            raise RoomError("bad_request", f"call {m.op!r} names no player", 400)
        if m.op == "join" and m.code is not None:
            if m.code not in self.rooms:
                raise unavailable()
            edge = await self.redis.hget(self.edge.presence, str(m.player))
            if edge is not None and m.player not in self.sockets:
                self.conns.remote[m.player] = _text(edge)
            await self.hub.ensure_cards([m.player])
            return (await self.hub.join(m.player, m.code, m.seat)).state()
        if m.op == "leave":
            return list(await self.hub.leave(m.player))
        if m.op == "leave_waiting":
            await self.hub.leave_waiting_here(m.player)  # the room here, no relay
            return None
        raise RoomError("bad_request", f"unknown call {m.op!r}", 400)

    def _on_adopted(self, m: Adopted) -> None:
        if m.code in self.rooms:
            self._drop(m.code, "taken over by another process", reattach=False)
        self.edge.owned(m.code, m.owner)
        for pid in m.players:
            if pid in self.sockets and pid not in self.directory:
                self.edge.edge_room[pid] = m.code
                self.bus.send(m.owner, Attach(pid, m.code, self.me))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _frame_id(text: str) -> Any:
    """The ``id`` of a client frame's text (checked by its edge), or None."""
    try:
        frame = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return frame.get("id") if isinstance(frame, dict) else None
