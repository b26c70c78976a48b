"""匹配 in the shared mode (issue 14): one queue for every server process, kept in Redis.

:class:`RedisQueue` is where the :class:`~paohuzi.server.matchmaking.Matchmaker` of a process of the shared
mode keeps its queue (its :class:`~paohuzi.server.matchmaking.QueueKeeper`), and :class:`QueueFrames` how it
reaches the waiting players: the same rules (three online players seated at once, the fill time, the offline
grace, a public table taking waiting players at its next hand), with the queue in Redis instead of the process's memory:

- ``<prefix>:queue`` — player id → ``"<tier> <joined at> <preset>"`` (wall-clock seconds): who waits, where,
  since when, for which preset (issue 29; a value without one, written before, waits for ``qq``);
- ``<prefix>:queue:off`` — player id → ``"<offline since> <grace>"`` for a waiting player whose websocket is
  gone (wall-clock seconds; none while online).

Any process may change the queue (a player joins or leaves through the process holding its websocket) and
every process runs the matcher (a tick a few times a second, and at once when someone joins). Seating is
safe all the same: players leave the queue only through one Lua script that takes a whole group out if each
of them is still waiting (and online) — all or none — so of two processes that pick the same players, one
seats them and the other finds the group gone and looks again. The process that took a group opens the
public table and owns it (its lease, like any room's); the players' frames are relayed to their edges.

A process that dies takes nothing with it: the queue is in Redis. Its players' places stay; each tick looks
for waiting players whose websocket was held by a process that is gone (``PUBSUB NUMSUB`` of its channel
is 0) and counts them offline from then, for ``queue_resume_seconds`` — as long as after a restart of the
embedded server: a player who reconnects (to any process) within it waits online again at its old place.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from paohuzi.server.config import Settings
from paohuzi.server.frames import Frame
from paohuzi.server.logs import log
from paohuzi.server.matchmaking import Entry, Line, Matchmaker
from paohuzi.server.relay import Bus, RelayedConnections

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["QueueFrames", "RedisQueue"]

INFO, WARNING = 20, 30

# KEYS: queue, off. ARGV: player, "<tier> <joined> <preset>", off value ('' when online). 1 if added, 0 if queued.
_ADD = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[2], ARGV[1]) else redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) end
return 1
"""
# KEYS: queue, off. ARGV: mode ('on': each must be online, 'off': offline, 'any'), then the players.
# All of them are taken out of the queue, or none (0).
_TAKE = """
for i = 2, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then return 0 end
  local off = redis.call('HEXISTS', KEYS[2], ARGV[i])
  if (ARGV[1] == 'on' and off == 1) or (ARGV[1] == 'off' and off == 0) then return 0 end
end
for i = 2, #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('HDEL', KEYS[2], ARGV[i])
end
return 1
"""
# KEYS: queue, off, presence. ARGV: player, off value, edge ('*': any). A waiting player goes offline —
# unless its websocket is (again) held by a process other than ``edge`` (it reconnected there).
_OFFLINE = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
if ARGV[3] ~= '*' then
  local edge = redis.call('HGET', KEYS[3], ARGV[1])
  if edge and edge ~= ARGV[3] then return 0 end
end
return redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2])
"""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class QueueFrames:
    """The queue's delivery port in the shared mode: a player's ``queue`` frames go to the process holding
    its websocket (``<prefix>:presence``), in order, from one task."""

    def __init__(self, redis: Redis, presence: str, bus: Bus, conns: RelayedConnections) -> None:
        self.redis = redis
        self.presence = presence
        self.bus = bus
        self.conns = conns
        self._out: asyncio.Queue[tuple[int, Frame]] = asyncio.Queue()
        self._pending = 0  # frames put in _out and not yet sent: a local frame must not overtake them
        self._task: asyncio.Task[None] | None = None

    def send(self, player: int, frame: Frame) -> None:
        conn = self.conns.local(player)
        if conn is not None and self._pending == 0:
            conn.send(frame)  # type: ignore[arg-type]
            return
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._relay())
        self._pending += 1
        self._out.put_nowait((player, frame))

    def online(self, player: int) -> bool:
        return self.conns.local(player) is not None

    async def flush(self) -> None:
        """Until every frame sent so far is handed to the relay (the room's frames come after)."""
        await self._out.join()

    async def _relay(self) -> None:
        while True:
            batch = [await self._out.get()]
            while not self._out.empty():
                batch.append(self._out.get_nowait())
            try:
                edges = await self.redis.hmget(self.presence, [str(pid) for pid, _ in batch])
                for (pid, frame), edge in zip(batch, edges, strict=True):
                    conn = self.conns.local(pid)
                    if conn is not None:
                        conn.send(frame)  # type: ignore[arg-type]
                    elif edge is not None:
                        self.bus.send(_text(edge), self.conns.out(pid, None, frame))
            except Exception as exc:  # noqa: BLE001 — Redis away: these frames are lost; `sync` asks again
                log(WARNING, "queue frames not relayed", error=repr(exc), frames=len(batch))
            finally:
                self._pending -= len(batch)
                for _ in batch:
                    self._out.task_done()


class RedisQueue:
    """The queue of every tier, in Redis, for every process of the shared mode (a
    :class:`~paohuzi.server.matchmaking.QueueKeeper`)."""

    def __init__(  # noqa: PLR0913 (what the shared wiring hands over)
        self,
        settings: Settings,
        redis: Redis,
        prefix: str,
        me: str,
        bus: Bus,
        conns: RelayedConnections,
        frames: QueueFrames,
    ) -> None:
        self.settings = settings
        self.presence = f"{prefix}:presence"
        self.frames = frames
        self.redis = redis
        self.prefix = prefix
        self.me = me
        self.bus = bus
        self.conns = conns
        self.keys = [f"{prefix}:queue", f"{prefix}:queue:off"]
        self._add_script = redis.register_script(_ADD)
        self._take_script = redis.register_script(_TAKE)
        self._offline_script = redis.register_script(_OFFLINE)
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def resume_grace(self) -> float:
        """How long a player whose process is gone keeps its place (as after a restart)."""
        return max(self.settings.offline_grace, self.settings.queue_resume_seconds)

    # ---- the queue in Redis --------------------------------------------------------------------------

    async def refresh(self, entries: dict[int, Entry]) -> dict[int, Entry]:
        """The queue as Redis has it now (the offline times turned into this process's monotonic clock)."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(self.keys[0])
            pipe.hgetall(self.keys[1])
            waiting, off = await pipe.execute()
        now_wall, now_mono = time.time(), time.monotonic()
        entries = {}
        for key, value in waiting.items():
            pid = int(key)
            tier, joined, *preset = _text(value).split(" ")
            since, grace = None, self.settings.offline_grace
            gone = off.get(key)
            if gone is not None:
                wall, grace_text = _text(gone).split(" ")
                since, grace = now_mono - max(0.0, now_wall - float(wall)), float(grace_text)
            entries[pid] = Entry(pid, tier, float(joined), since, grace, *preset[:1])
        return entries

    async def online(self, player_id: int) -> bool:
        return self.conns.local(player_id) is not None or bool(await self.redis.hexists(self.presence, str(player_id)))

    async def add(self, player_id: int, line: Line, joined_at: float, online: bool) -> bool:
        off = "" if online else f"{time.time()} {self.settings.offline_grace}"
        value = f"{line[0]} {joined_at!r} {line[1]}"
        return bool(await self._add_script(keys=self.keys, args=[player_id, value, off]))

    async def take_out(self, ids: list[int], online: bool | None) -> bool:
        mode = "any" if online is None else "on" if online else "off"
        return bool(await self._take_script(keys=self.keys, args=[mode, *ids]))

    async def seating(self, ids: list[int]) -> None:
        """Their ``queue: null`` goes first; the owner relays their room's frames to their edges."""
        await self.frames.flush()
        edges = await self.redis.hmget(self.presence, [str(pid) for pid in ids])
        for pid, edge in zip(ids, edges, strict=True):
            if edge is not None and self.conns.local(pid) is None:
                self.conns.remote[pid] = _text(edge)

    async def restore(self) -> dict[int, Entry]:
        """Nothing to restore: the queue is in Redis. (A process that died is found by :meth:`lost`.)"""
        entries = await self.refresh({})
        log(INFO, "queue (shared)", players=len(entries))
        return entries

    # ---- connections ---------------------------------------------------------------------------------

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log(WARNING, "queue update failed", error=repr(task.exception()))

    def connected(self, book: Matchmaker, player_id: int) -> None:
        self._spawn(self._connected(book, player_id))

    async def _connected(self, book: Matchmaker, player_id: int) -> None:
        # presence first (as the edge's own attach does): a tick that finds it cannot take this player offline
        await self.redis.hset(self.presence, str(player_id), self.me)
        await self.redis.hdel(self.keys[1], str(player_id))
        await self._resend(book, player_id)

    def disconnected(self, book: Matchmaker, player_id: int) -> None:
        self._spawn(self._offline(player_id, self.me, self.settings.offline_grace))

    async def _offline(self, player_id: int, edge: str, grace: float) -> bool:
        args: list[str | int] = [player_id, f"{time.time()} {grace}", edge]
        return bool(await self._offline_script(keys=[*self.keys, self.presence], args=args))

    def resend(self, book: Matchmaker, player_id: int) -> None:
        self._spawn(self._resend(book, player_id))

    async def _resend(self, book: Matchmaker, player_id: int) -> None:
        async with book.lock:
            book.entries = await self.refresh(book.entries)
            if book.of(player_id) is not None:
                book.send(player_id)

    async def lost(self, book: Matchmaker) -> None:
        """Waiting players online at a process that is gone (killed: its channel has no listener) go
        offline, with the grace of a restart."""
        entries = await self.refresh(book.entries)
        online = [e.player_id for e in entries.values() if e.offline_since is None]
        if not online:
            return
        found = await self.redis.hmget(self.presence, [str(pid) for pid in online])
        edges = [None if e is None else _text(e) for e in found]
        named = sorted({e for e in edges if e is not None and e != self.me})
        listeners = await self.redis.pubsub_numsub(*[self.bus.channel(e) for e in named]) if named else []
        counts = {_text(channel): int(n) for channel, n in listeners}
        dead = {e for e in named if counts.get(self.bus.channel(e), 0) == 0}
        for pid, edge in zip(online, edges, strict=True):
            if edge in dead and await self._offline(pid, edge, self.resume_grace):
                log(INFO, "queued player's process is gone; offline", player=pid, edge=edge)
