"""The shared mode (issue 14): several server processes on one PostgreSQL and one Redis.

:class:`SharedHub` is the :class:`~paohuzi.server.hub.Hub` of such a process. A room is run by exactly one
process — the one holding its Redis lease (:mod:`paohuzi.server.lease`); every write it makes for the room
carries the lease's fencing token, checked in the same transaction (:class:`~paohuzi.server.db.RoomStore`),
so a stale owner can never append. Any process accepts any websocket and relays (:mod:`paohuzi.server.relay`):
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
import itertools
import os
import random
import secrets
import socket
from collections.abc import Callable
from typing import Any

import orjson

from paohuzi.server import frames, store
from paohuzi.server import protocol as p
from paohuzi.server.config import Settings
from paohuzi.server.db import Database, fence_room
from paohuzi.server.frames import RoomError, RoomState
from paohuzi.server.hub import Hub
from paohuzi.server.lease import Leases
from paohuzi.server.logs import log
from paohuzi.server.relay import Bus, Message, Seats, SharedConnections
from paohuzi.server.room import Room, SeatState
from paohuzi.server.seating import RedisClaims, SeatMap
from paohuzi.server.services import RoomServices
from paohuzi.server.shared_queue import SharedMatchmaker

__all__ = ["SharedHub"]

ERROR, WARNING, INFO = 40, 30, 20
CALL_TIMEOUT = 5.0


def _unavailable() -> RoomError:
    return RoomError("moving", "the room is moving to another server process; try again in a moment", 503)


class SharedHub(Hub):
    """The hub of one of several processes sharing a database and Redis."""

    def __init__(self, settings: Settings, db: Database, redis: Any) -> None:
        super().__init__(settings, db)
        self.me = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        prefix = settings.redis_prefix
        self.redis = redis
        self.presence = f"{prefix}:presence"  # player id → the process holding the player's websocket
        self.bus = Bus(redis, prefix, self.me)
        self.bus.handler = self._on_message
        self.leases = Leases(redis, prefix, self.me, settings.lease_ms)
        self.seats = Seats(redis, prefix)
        self.relayed = SharedConnections(self.bus, self._code_of)
        self.relayed.on_gone = self._gone
        self.conns = self.relayed
        self.services = dataclasses.replace(self.services, delivery=self.conns)
        self.seat_map = SeatMap(self.seats)
        self.claims = RedisClaims(redis, prefix, self.seats.settled)  # held across the processes
        self.room_of = self.seat_map
        self.edge_room: dict[int, str] = {}  # player id → code, for local websockets seated elsewhere
        self.stopping = False
        self._tokens: dict[str, int] = {}  # code → the token of a lease taken for a room being created
        self._calls: dict[int, asyncio.Future[Any]] = {}
        self._call_ids = itertools.count(1)
        self._adopting: set[str] = set()
        self.on_lease: Callable[[str], None] = lambda change: None  # the metrics: acquired, lost, released
        self.queue = SharedMatchmaker(settings, db, self.open_public, redis, prefix, self.me, self.bus, self.relayed)

    # ---- life cycle --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen, renew, and look for rooms nobody holds (at once, then every ``lease_ms``)."""
        loop = asyncio.get_running_loop()
        self.leases.on_lost = lambda code: self._drop(code, "lease lost")

        def fenced(ids: list[int]) -> None:
            loop.call_soon_threadsafe(self._fenced, ids)

        self.db.on_room_fenced = fenced
        if not await self.bus.start():
            log(WARNING, "Redis does not answer; serving without rooms until it does")
        self.seats.start()
        self.spawn(self.leases.run())
        self.spawn(self._adopt_loop())

    async def recover(self) -> None:
        try:
            await self.adopt_orphans()
        except Exception as exc:  # noqa: BLE001 — Redis away: the loop tries again
            log(WARNING, "looking for rooms failed", error=repr(exc))

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
        if not await self.db.run(fence_room(room_id, token, self.me)):
            self.leases.forget(code)
            return
        found = await self.db.run(store.load_open_rooms(room_id))
        if not found or found[0].code != code:
            await self.leases.release([code])
            return
        data = found[0]
        seats = [SeatState(i, x.player_id, x.bot, bool(x.ready)) for i, x in enumerate(data.seats)]
        services = dataclasses.replace(self.services, db=self.db.for_room(room_id, token))
        room = Room(services, data.id, data.code, data.kind, data.owner_id, data.options, seats, "waiting")
        humans = room.humans()
        await self.ensure_cards(humans)
        edges = await self.redis.hmget(self.presence, [str(x) for x in humans]) if humans else []
        self.rooms[code] = room
        for pid, edge in zip(humans, edges, strict=True):
            self.edge_room.pop(pid, None)
            self.room_of[pid] = room
            if edge is not None and pid not in self.conns:
                self.relayed.remote[pid] = edge.decode() if isinstance(edge, bytes) else str(edge)
        if data.match is not None:
            try:
                await room.resume(data.match)
            except Exception:
                log(ERROR, "match could not be resumed; aborted", room=code, exc_info=True)
                room.match, room.status = None, "waiting"
        elif data.status == "playing":
            room.status = "waiting"
        for pid in humans:
            if pid in self.conns:
                room.connected(pid)
        self.bus.broadcast({"k": "adopted", "c": code, "o": self.me, "p": humans})
        self.on_lease("acquired")
        log(INFO, "room taken over", room=code, token=token, match=data.match is not None)

    def _fenced(self, room_ids: list[int]) -> None:
        for room in [r for r in self.rooms.values() if r.id in room_ids]:
            self._drop(room.code, "fenced")

    def _drop(self, code: str, why: str, reattach: bool = True) -> None:
        """Give a room up (another process holds it now, or will): forget it without writing anything."""
        self.leases.forget(code)
        room = self.rooms.pop(code, None)
        if room is None:
            return
        room.cancel_decisions()
        room.status = "closed"  # nothing of it runs any more here (its writes are fenced in any case)
        self.seat_map.quiet = True
        try:
            for pid in [pid for pid, r in self.room_of.items() if r is room]:
                del self.room_of[pid]
        finally:
            self.seat_map.quiet = False
        for pid in room.humans():
            self.relayed.remote.pop(pid, None)
            if pid in self.conns:
                self.edge_room[pid] = code
                if reattach:
                    self.spawn(self._forward(pid, code, {"k": "attach"}))
        log(WARNING, "room given up", room=code, why=why)
        self.on_lease("lost")

    def forget_room(self, room: Room) -> None:
        super().forget_room(room)
        if self.leases.held.get(room.code) is not None and room.closed:
            token = self.leases.held[room.code]
            self.spawn(self.leases.release([room.code]))
            log(INFO, "room lease released", room=room.code, token=token)

    async def shutdown(self) -> None:
        """Stop without losing anything: every room's step in flight ends, nothing more is written, the
        leases are released and the others told, who take the rooms over at once."""
        self.stopping = True  # nothing new comes in from now on
        for room in self.rooms.values():
            room.cancel_decisions()
        for room in list(self.rooms.values()):  # the steps in flight end, their frames go out
            try:
                await asyncio.wait_for(room.lock.acquire(), 2.0)  # held from now on: nothing more runs
            except TimeoutError:
                log(WARNING, "room still busy at shutdown", room=room.code)
        self.tasks.cancel()
        try:
            await asyncio.wait_for(self.db.run(store.open_rooms()), 5.0)  # every earlier job is done
        except Exception as exc:  # noqa: BLE001 — the leases go anyway; the fences keep the log right
            log(WARNING, "database not drained at shutdown", error=repr(exc))
        released = [[room.id, code] for code, room in self.rooms.items() if code in self.leases.held]
        for _ in released:
            self.on_lease("released")
        await self.leases.release(list(self.leases.held))
        self.bus.broadcast({"k": "released", "r": released})
        for pid, code in list(self.edge_room.items()):
            await self._forward(pid, code, {"k": "detach"})
        for conn in list(self.conns.values()):
            conn.close(1012, "server restarting")
        if self.conns:
            await self.redis.hdel(self.presence, *[str(x) for x in self.conns])
        await self.bus.flush()
        await self.seats.stop()
        await self.bus.stop()
        log(INFO, "rooms handed over", rooms=[code for _, code in released])
        await asyncio.sleep(0.05)
        self.bots.shutdown()

    # ---- the owner's side --------------------------------------------------------------------------

    async def _services_for(self, room_id: int, code: str) -> RoomServices:
        token = self._tokens.pop(code)
        if not await self.db.run(fence_room(room_id, token, self.me)):
            raise RoomError("internal", "the new room was taken over at once", 503)
        return dataclasses.replace(self.services, db=self.db.for_room(room_id, token))

    async def _new_code(self) -> str:
        """A code nobody's room has: its lease is taken here and now (so two processes never share one)."""
        for _ in range(100):
            code = f"{secrets.randbelow(1_000_000):06d}"
            if code in self.rooms:
                continue
            token = await self.leases.acquire(code)
            if token is not None:
                self._tokens[code] = token
                self.on_lease("acquired")
                return code
        raise RoomError("internal", "no free room code", 503)

    def _code_of(self, player: int) -> str | None:
        room = self.room_of.get(player)
        return None if room is None else room.code

    def _gone(self, player: int, edge: str) -> None:
        room = self.room_of.get(player)
        if room is not None and player not in self.conns:
            room.disconnected(player)

    def _on_message(self, m: Message) -> None:
        kind = m.get("k")
        if kind == "out":
            self._on_out(m)
        elif kind == "in":
            self._on_in(m)
        elif kind == "attach":
            self._on_attach(m)
        elif kind == "detach":
            self._on_detach(m)
        elif kind == "call":
            self.spawn(self._serve_call(m))
        elif kind == "reply":
            future = self._calls.pop(int(m["n"]), None)
            if future is not None and not future.done():
                future.set_result(m)
        elif kind == "close":
            conn = self.conns.get(int(m["p"]))
            if conn is not None:
                conn.close(4000, "replaced by a newer connection")
        elif kind == "adopted" and m["o"] != self.me and not self.stopping:
            self._on_adopted(m)
        elif kind == "released" and not self.stopping:
            for room_id, code in m["r"]:
                self.spawn(self._adopt_soon(int(room_id), str(code)))
        elif kind == "revoked":
            Hub._forget_sessions(self, set(m["s"]))  # noqa: SLF001 — this process's part only

    async def _adopt_soon(self, room_id: int, code: str) -> None:
        await asyncio.sleep(random.uniform(0, 0.05))  # the rooms of a stopping process spread over the others
        await self.adopt(room_id, code)

    def _owned_room(self, m: Message) -> Room | None:
        room = self.rooms.get(str(m["c"]))
        return None if self.stopping or room is None or int(m["p"]) not in room.humans() else room

    def _on_attach(self, m: Message) -> None:
        pid, edge = int(m["p"]), str(m["e"])
        room = self._owned_room(m)
        if room is None:
            if str(m["c"]) in self.rooms:  # the player left that room meanwhile
                self.bus.send(edge, {"k": "out", "p": pid, "c": None, "f": frames.room(None)})
            return
        old = self.relayed.remote.get(pid)
        if old is not None and old != edge:
            self.bus.send(old, {"k": "close", "p": pid})
        local = self.conns.get(pid)
        self.relayed.remote[pid] = edge
        if local is not None:
            local.close(4000, "replaced by a newer connection")
        room.connected(pid)

    def _on_detach(self, m: Message) -> None:
        pid = int(m["p"])
        if self.relayed.remote.get(pid) != m["e"]:
            return
        del self.relayed.remote[pid]
        room = self.room_of.get(pid)
        if room is not None and pid not in self.conns:
            room.disconnected(pid)

    def _on_in(self, m: Message) -> None:
        pid, frame = int(m["p"]), m["f"]
        room = self._owned_room(m)
        if room is None:
            error = {"type": "error", "code": "moving", "message": _unavailable().message}
            if frame.get("id") is not None:
                error["id"] = frame["id"]
            self.bus.send(str(m["e"]), {"k": "out", "p": pid, "c": str(m["c"]), "f": error})
            return
        if pid not in self.conns:
            self.relayed.remote[pid] = str(m["e"])
        msg = p.parse_client_frame(orjson.dumps(frame))  # checked by the edge already: cannot fail
        self.spawn(self._run_remote(pid, msg))

    async def _run_remote(self, pid: int, msg: p.ClientMessage) -> None:
        try:
            await Hub.handle_player(self, pid, msg)
        except RoomError as exc:
            error: dict[str, Any] = {"type": "error", "code": exc.code, "message": exc.message}
            if msg.id is not None:
                error["id"] = msg.id
            self.conns.send(pid, error)  # type: ignore[arg-type]
        except Exception:  # noqa: BLE001 — logged here, a plain error to the client
            log(ERROR, "relayed frame failed", player=pid, type=msg.type, exc_info=True)
            failed: dict[str, Any] = {"type": "error", "code": "internal", "message": "the server failed"}
            if msg.id is not None:
                failed["id"] = msg.id
            self.conns.send(pid, failed)  # type: ignore[arg-type]

    async def _serve_call(self, m: Message) -> None:
        reply: Message = {"k": "reply", "n": m["n"]}
        try:
            if self.stopping:
                raise _unavailable()
            reply["ok"] = await self._call_here(str(m["op"]), m["a"])
            await self.seats.settled()  # the caller holds the player's claim until the seat is in Redis
        except RoomError as exc:
            reply["err"] = [exc.code, exc.message, exc.status]
        except Exception:  # noqa: BLE001 — answered as internal, logged here
            log(ERROR, "relayed call failed", op=m.get("op"), exc_info=True)
            reply["err"] = ["internal", "internal server error", 500]
        self.bus.send(str(m["r"]), reply)

    async def _call_here(self, op: str, a: dict[str, Any]) -> Any:
        if op == "state":
            room = self.rooms.get(str(a["c"]))
            return None if room is None else room.state()
        if op == "join":
            code, pid = str(a["c"]), int(a["p"])
            if code not in self.rooms:
                raise _unavailable()
            edge = await self.redis.hget(self.presence, str(pid))
            if edge is not None and pid not in self.conns:
                self.relayed.remote[pid] = edge.decode() if isinstance(edge, bytes) else str(edge)
            await self.ensure_cards([pid])
            return (await Hub.join(self, pid, code, a["s"])).state()
        if op == "leave":
            return list(await Hub.leave(self, int(a["p"])))
        if op == "leave_waiting":
            await Hub._leave_waiting_room(self, int(a["p"]))  # noqa: SLF001 — the room here, no relay
            return None
        raise RoomError("bad_request", f"unknown call {op!r}", 400)

    # ---- the edge's side ---------------------------------------------------------------------------

    async def _forward(self, pid: int, code: str, message: Message, msg_id: Any = None) -> bool:
        """Send a message about the player to the room's owner; False when nobody holds the room now. A
        frame (``msg_id``) that no process received (the owner died and its lease has not run out yet) is
        answered with a ``moving`` error; the player gets the snapshot once another process has the room."""
        owner = await self.leases.owner(code)
        if owner is None or owner == self.me:
            return False

        def counted(n: int) -> None:
            conn = self.conns.get(pid)
            if n == 0 and message["k"] == "in" and conn is not None:
                error: dict[str, Any] = {"type": "error", "code": "moving", "message": _unavailable().message}
                if msg_id is not None:
                    error["id"] = msg_id
                conn.send(error)

        self.bus.send(owner, dict(message, c=code, p=pid, e=self.me), counted)
        return True

    async def _call(self, owner: str, op: str, args: dict[str, Any]) -> Any:
        n = next(self._call_ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[n] = future
        self.bus.send(owner, {"k": "call", "op": op, "a": args, "r": self.me, "n": n})
        try:
            reply = await asyncio.wait_for(future, CALL_TIMEOUT)
        except TimeoutError:
            raise _unavailable() from None
        finally:
            self._calls.pop(n, None)
        if "err" in reply:
            code, message, status = reply["err"]
            raise RoomError(code, message, int(status))
        return reply.get("ok")

    async def _owner_of_seat(self, pid: int) -> tuple[str, str] | None:
        """(code, owner) of the room of another process the player sits in, or None."""
        code = await self.seats.room_of(pid)
        if code is None or code in self.rooms:
            return None
        owner = await self.leases.owner(code)
        if owner is None:
            if code not in {c for _, c in await self.db.run(store.open_rooms())}:
                self.seats.unseat(pid, code)  # a seat left behind by a room closed meanwhile (a crash)
                return None
            raise _unavailable()  # open, between two owners: taken over in a moment
        return code, owner

    def _room_on_attach(self, player_id: int) -> None:
        self.spawn(self._edge_attach(player_id))

    async def _edge_attach(self, pid: int) -> None:
        await self.redis.hset(self.presence, str(pid), self.me)
        old = self.relayed.remote.pop(pid, None)
        if old is not None:  # the player's older websocket, at another process
            self.bus.send(old, {"k": "close", "p": pid})
        if pid in self.room_of:
            super()._room_on_attach(pid)
            return
        code = await self.seats.room_of(pid)
        if pid in self.room_of or code in self.rooms:
            super()._room_on_attach(pid)
        elif code is None:
            self.conns.send(pid, frames.room(None))
        elif pid in self.conns:
            self.edge_room[pid] = code
            await self._forward(pid, code, {"k": "attach"})  # no owner now: "adopted" will attach it

    def detach(self, conn: Any) -> None:
        pid = conn.player_id
        mine = pid is not None and self.conns.get(pid) is conn
        super().detach(conn)
        if not mine or self.stopping:
            return
        code = self.edge_room.pop(pid, None)
        if code is not None:
            self.spawn(self._forward(pid, code, {"k": "detach"}))
        self.spawn(self._unpresent(pid))

    async def _unpresent(self, pid: int) -> None:
        if pid not in self.conns and await self.redis.hget(self.presence, str(pid)) in (self.me, self.me.encode()):
            await self.redis.hdel(self.presence, str(pid))

    def _on_out(self, m: Message) -> None:
        pid = int(m["p"])
        conn = self.conns.get(pid)
        if conn is None or pid in self.room_of:
            return
        code, frame = m.get("c"), m["f"]
        if code is not None:
            self.edge_room[pid] = str(code)
        elif frame.get("type") == "room":
            self.edge_room.pop(pid, None)
        conn.send(frame)

    def _on_adopted(self, m: Message) -> None:
        code, owner = str(m["c"]), str(m["o"])
        if code in self.rooms:
            self._drop(code, "taken over by another process", reattach=False)
        for pid in m["p"]:
            if pid in self.conns and pid not in self.room_of:
                self.edge_room[pid] = code
                self.bus.send(owner, {"k": "attach", "c": code, "p": pid, "e": self.me})

    async def handle_player(self, player_id: int, msg: p.ClientMessage) -> None:
        if player_id in self.room_of or isinstance(msg, (p.Ping, p.Hello)):
            await super().handle_player(player_id, msg)
            return
        code = self.edge_room.get(player_id) or await self.seats.room_of(player_id)
        if code is None or code in self.rooms or player_id in self.room_of:
            await super().handle_player(player_id, msg)
            return
        self.edge_room[player_id] = code
        frame = msg.model_dump(mode="python", exclude_none=True)
        if isinstance(msg, p.Act):
            frame["action"] = str(msg.action)
        if not await self._forward(player_id, code, {"k": "in", "f": frame}, msg.id):
            if await self._owner_of_seat(player_id) is not None:  # raises while the room is between owners
                raise _unavailable()
            self.edge_room.pop(player_id, None)  # that room is closed: the frame is this process's
            await super().handle_player(player_id, msg)

    # ---- the lobby, for rooms of other processes -----------------------------------------------------

    async def room_state(self, code: str) -> RoomState | None:
        if code in self.rooms:
            return await super().room_state(code)
        owner = await self.leases.owner(code)
        return None if owner is None else await self._call(owner, "state", {"c": code})

    async def player_room_state(self, player_id: int) -> RoomState | None:
        if player_id in self.room_of:
            return await super().player_room_state(player_id)
        found = await self._owner_of_seat(player_id)
        return None if found is None else await self._call(found[1], "state", {"c": found[0]})

    async def _join_room(self, player_id: int, code: str, seat: int | None) -> RoomState:
        if code in self.rooms:
            return await super()._join_room(player_id, code, seat)
        owner = await self.leases.owner(code)
        if owner is None:
            raise RoomError("not_found", f"no open room {code!r}", 404)
        if self.room_of.get(player_id) is None or self.room_of[player_id].code != code:
            await self._leave_waiting_room(player_id)
        state: RoomState = await self._call(owner, "join", {"c": code, "p": player_id, "s": seat})
        return state

    async def leave_room(self, player_id: int) -> tuple[str, int | None]:
        if player_id in self.room_of:
            return await super().leave_room(player_id)
        found = await self._owner_of_seat(player_id)
        if found is None:
            raise RoomError("not_in_room", "you are in no room")
        code, penalty = await self._call(found[1], "leave", {"p": player_id})
        return str(code), penalty

    async def _leave_waiting_room(self, player_id: int) -> None:
        if player_id in self.room_of:
            await super()._leave_waiting_room(player_id)
            return
        found = await self._owner_of_seat(player_id)
        if found is not None:
            await self._call(found[1], "leave_waiting", {"p": player_id})

    async def delete_account(self, player_id: int) -> None:
        await self._leave_waiting_room(player_id)
        await super().delete_account(player_id)

    def _forget_sessions(self, ids: set[int]) -> None:
        super()._forget_sessions(ids)
        if ids:
            self.bus.broadcast({"k": "revoked", "s": sorted(ids)})
