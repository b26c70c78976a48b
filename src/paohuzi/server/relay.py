"""The relay between server processes (the shared mode, issue 14): Redis pub/sub.

Each process listens on its own channel ``<prefix>:proc:<id>`` and on ``<prefix>:all`` (broadcasts). A
player's websocket is served by whichever process accepted it (the *edge*); the room is run by the process
holding its lease (the *owner*). The edge forwards the player's frames to the owner (``in``), and says when
the player comes and goes (``attach``, ``detach``); the owner sends each seat's frames back to the edge
(``out``). Lobby calls for a room of another process are requests with a reply (``call``, ``reply``).

:class:`Bus` publishes in order from one task: what was sent in one loop turn goes out as one pipeline, with
one ``PUBLISH`` per receiving process carrying all its messages (a packet, :func:`~paohuzi.server.relay_messages.pack`;
issue 33: a relayed action's three updates were three publishes, and each a pub/sub message for the
receiver's Redis client to read). It publishes and listens on two Redis connections of its own, spoken
directly (:class:`~paohuzi.server.resp.Link`, issue 33: redis-py's asyncio client cost ~190 µs of CPU a publish
and its receipt, the link ~35 µs). It keeps every message received, in order, for its reader
(:meth:`Bus.received`; :class:`~paohuzi.server.shared.Cluster` reads them), and counts what it sent and received
(:attr:`Bus.counts`, the ``paohuzi_relay_*`` metrics). The messages are typed
(:mod:`paohuzi.server.relay_messages`). :class:`RelayedConnections` is the owner's delivery port: the local
websockets, and for the players of its rooms connected elsewhere, the edge to relay to. :class:`Seats` mirrors
which room each player sits in (``<prefix>:seat:<player>`` → room code) for the edges and the other processes'
lobby calls.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from paohuzi.server.connection import Connection
from paohuzi.server.directory import RoomDirectory
from paohuzi.server.frames import Frame
from paohuzi.server.logs import log
from paohuzi.server.registry import Connections
from paohuzi.server.relay_messages import Message, Out, pack, unpack
from paohuzi.server.resp import Link, LinkError

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["Bus", "RelayedConnections", "Seats"]

WARNING, ERROR = 30, 40

# KEYS[1] the seat key, ARGV[1] the room code: delete the key only if the player still sits in that room.
_UNSEAT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


Counted = Callable[[int], None] | None  # told how many processes received a message (0: its process is gone)


class Bus:
    """Messages between the server processes over Redis pub/sub."""

    def __init__(self, redis: Redis, prefix: str, me: str) -> None:
        self.redis = redis
        self.prefix = prefix
        self.me = me
        self._in: asyncio.Queue[Message] = asyncio.Queue()  # received, for the reader (in order)
        #: set: each message received is handed to it at once, from the link's reading callback, in order
        #: (issue 33: no queue and no reader task a packet); not set: kept for :meth:`received`
        self.handler: Callable[[Message], None] | None = None
        self._out: list[tuple[str, Message, Counted]] = []  # sent since the publisher last took them
        self._waiting = asyncio.Event()  # something is in ``_out``
        self._tasks: list[asyncio.Task[Any]] = []
        self._ready = asyncio.Event()
        #: messages sent and received, and the publishes (packets) that carried them, since the start
        self.counts = {"sent": 0, "received": 0, "packets_sent": 0, "packets_received": 0}

    def channel(self, proc: str) -> str:
        return f"{self.prefix}:proc:{proc}"

    async def start(self, wait: float = 5.0) -> bool:
        """Start listening and publishing; whether the subscription was made within ``wait`` seconds (if not,
        the listener keeps trying: Redis may come later, and ``/readyz`` says it is missing meanwhile)."""
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._publish())]
        try:
            await asyncio.wait_for(self._ready.wait(), wait)
        except TimeoutError:
            return False
        return True

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def send(self, proc: str, message: Message, counted: Counted = None) -> None:
        """Publish ``message`` to process ``proc`` (in order with every other); ``counted`` gets how many
        listeners received it (0: that process is gone)."""
        self._out.append((self.channel(proc), message, counted))
        self._waiting.set()

    def broadcast(self, message: Message) -> None:
        self._out.append((f"{self.prefix}:all", message, None))
        self._waiting.set()

    async def received(self) -> Message:
        """The next message received (in the order they came)."""
        return await self._in.get()

    async def flush(self, timeout: float = 2.0) -> None:
        """Wait until everything sent so far is published (at shutdown)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while self._out and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.02)

    async def _publish(self) -> None:
        link: Link | None = None  # a Redis connection of the publisher's own (resp.py, issue 33)
        try:
            while True:
                await self._waiting.wait()
                self._waiting.clear()
                batch, self._out = self._out, []
                packets: dict[str, list[tuple[Message, Counted]]] = {}  # per channel, in the order sent
                for channel, message, counted in batch:
                    packets.setdefault(channel, []).append((message, counted))
                try:
                    if link is None or link.closed.done():
                        link = await Link.open(self.redis, f"{self.prefix}:relay:{self.me}:publish")
                    commands = [("PUBLISH", ch, pack([m for m, _ in items])) for ch, items in packets.items()]
                    counts = [n if isinstance(n, int) else 0 for n in await link.execute(commands)]
                except Exception as exc:  # noqa: BLE001 — Redis away: these messages are lost, like a dropped socket
                    log(WARNING, "relay publish failed", error=repr(exc), messages=len(batch))
                    counts = [0] * len(packets)
                    if link is not None:
                        link.close()
                        link = None
                self.counts["sent"] += len(batch)
                self.counts["packets_sent"] += len(packets)
                for items, n in zip(packets.values(), counts, strict=True):
                    for _, counted in items:
                        if counted is not None:
                            counted(n)
        finally:
            if link is not None:
                link.close()

    async def _listen(self) -> None:
        while True:
            link: Link | None = None
            try:
                # each packet is handed to _dispatch by the link's reading callback, as it is read
                link = await Link.open(self.redis, f"{self.prefix}:relay:{self.me}:listen", self._dispatch)
                await link.subscribe(self.channel(self.me), f"{self.prefix}:all")
                self._ready.set()
                await link.closed
                raise LinkError("the relay's subscription was lost")
            except asyncio.CancelledError:
                if link is not None:
                    link.close()
                raise
            except Exception as exc:  # noqa: BLE001 — Redis away: listen again
                log(WARNING, "relay listener failed; resubscribing", error=repr(exc))
                if link is not None:
                    link.close()
                await asyncio.sleep(0.5)

    def _dispatch(self, data: bytes) -> None:
        try:
            messages = unpack(data)
        except Exception:  # noqa: BLE001 — one bad packet must not stop the listener
            log(ERROR, "relay message failed", exc_info=True)
            return
        self.counts["received"] += len(messages)
        self.counts["packets_received"] += 1
        handler = self.handler
        for message in messages:
            if handler is None:
                self._in.put_nowait(message)
                continue
            try:
                handler(message)
            except Exception:  # noqa: BLE001 — one bad message must not stop the others
                log(ERROR, "relay message failed", exc_info=True)


class RelayedConnections:
    """The owner's delivery port in the shared mode: this process's websockets (``local``), and for the players
    of its rooms connected elsewhere (``remote``: player → the process holding its websocket), the relay."""

    def __init__(self, local: Connections, bus: Bus, directory: RoomDirectory) -> None:
        self.local_sockets = local
        self.bus = bus
        self.directory = directory
        self.remote: dict[int, str] = {}

    def send(self, player: int, frame: Frame) -> None:
        conn = self.local_sockets.get(player)
        if conn is not None:
            conn.send_bytes(self.local_sockets.encoded(frame))
            return
        edge = self.remote.get(player)
        if edge is None:
            return

        def counted(n: int) -> None:
            if n == 0 and self.remote.get(player) == edge:  # that process is gone: the player is offline
                del self.remote[player]
                self._gone(player)

        self.bus.send(edge, self.out(player, self.directory.code_of(player), frame), counted)

    def out(self, player: int, code: str | None, frame: Frame) -> Out:
        """The relay message carrying ``frame`` to the player's edge, encoded here once (the edge writes these
        bytes to the websocket as they are; a broadcast's frame is encoded once for all its seats)."""
        return Out(player, code, frame["type"], self.local_sockets.encoded(frame))

    def _gone(self, player: int) -> None:
        room = self.directory.room_of(player)
        if room is not None and player not in self.local_sockets:
            room.disconnected(player)

    def online(self, player: int) -> bool:
        return player in self.local_sockets or player in self.remote

    def local(self, player: int) -> Connection | None:
        return self.local_sockets.get(player)


class Seats:
    """Which room each player sits in, for every process: ``<prefix>:seat:<player>`` → room code, written
    in order by the owner of the room (a player who left is unseated only from that room)."""

    def __init__(self, redis: Redis, prefix: str) -> None:
        self.redis = redis
        self.prefix = prefix
        self._unseat = redis.register_script(_UNSEAT)
        self._queue: asyncio.Queue[tuple[int, str, bool]] = asyncio.Queue()
        self._task: asyncio.Task[Any] | None = None
        self._pending = 0  # changes queued or being written
        self._written = asyncio.Event()
        self._written.set()

    def key(self, player: int) -> str:
        return f"{self.prefix}:seat:{player}"

    def start(self) -> None:
        self._task = asyncio.create_task(self._write())

    async def stop(self) -> None:
        deadline = asyncio.get_running_loop().time() + 2
        while not self._queue.empty() and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        if self._task is not None:
            self._task.cancel()

    def seat(self, player: int, code: str) -> None:
        self._put((player, code, True))

    def unseat(self, player: int, code: str) -> None:
        self._put((player, code, False))

    def _put(self, change: tuple[int, str, bool]) -> None:
        self._pending += 1
        self._written.clear()
        self._queue.put_nowait(change)

    async def settled(self, timeout: float = 2.0) -> None:
        """Wait until every change made so far is written (or failed: Redis away), at most ``timeout`` s:
        a player's seating claim is released only then (:mod:`paohuzi.server.seating`)."""
        if self._task is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._written.wait(), timeout)

    async def room_of(self, player: int) -> str | None:
        value = await self.redis.get(self.key(player))
        return None if value is None else (value.decode() if isinstance(value, bytes) else str(value))

    async def _write(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for player, code, on in batch:
                        if on:
                            pipe.set(self.key(player), code)
                        else:
                            await self._unseat(keys=[self.key(player)], args=[code], client=pipe)
                    await pipe.execute()
            except Exception as exc:  # noqa: BLE001 — Redis away: the next change writes again
                log(WARNING, "seat directory write failed", error=repr(exc))
            finally:
                self._pending -= len(batch)
                if not self._pending:
                    self._written.set()
