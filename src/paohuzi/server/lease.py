"""Room leases in Redis (the shared mode, issue 14): which server process owns a room, and its fencing token.

A room is owned by the process that holds ``<prefix>:lease:<code>``: ``SET NX PX`` with the value
``"<holder> <token>"``, where the token comes from ``INCR <prefix>:fence`` (one counter for every room, so a
room's tokens only ever go up). The owner renews its leases every third of their time to live
(compare-and-``PEXPIRE``) and writes the token to the room's fence in the database
(:func:`paohuzi.server.db.fence_room`) before it reads or writes the room; a lease it finds gone (it was
paused or cut off for longer than the time to live, and another process may hold the room now) is
answered by :meth:`Leases.lost` (:class:`Keeper` renews, and :class:`~paohuzi.server.shared.Cluster` gives
such rooms up). Releasing (at SIGTERM) is compare-and-``DEL``: only one's own lease.

The renewal runs on a thread of its own with its own Redis connection (:class:`Keeper`, issue 33): a process
whose event loop is merely slow — a second-long stall under load — keeps its rooms, where a renewal task on
the loop let the leases run out and the other processes took the rooms over, back and forth. The loop beats
a heartbeat; when it has not beaten for ``STALL_LIMIT`` leases' time (a loop that is stuck, not slow) the
keeper stops renewing and the rooms fail over as when the process dies.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from paohuzi.server.logs import log

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["STALL_LIMIT", "Keeper", "Leases"]

WARNING = 30
STALL_LIMIT = 10  # a loop silent for this many leases' time is stuck: its leases are left to run out

# KEYS[1] the lease, ARGV[1] the value we set, ARGV[2] the time to live (ms): 1 if it is still ours.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


# KEYS the leases, ARGV their values then the time to live (ms): the (1-based) places of those no longer ours,
# the others renewed. One call for many leases (issue 33): a pipeline of one script call per lease cost the
# keeper's thread a few ms of Python under the GIL (packing, parsing) for every 300 rooms, every second.
_RENEW_MANY = """
local ttl = ARGV[#ARGV]
local gone = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i] then
    redis.call('PEXPIRE', key, ttl)
  else
    gone[#gone + 1] = i
  end
end
return gone
"""
RENEW_CHUNK = 200  # leases per script call: each call holds Redis for a moment only

class Leases:
    """This process's room leases (``held``: code → fencing token) and the look-ups of everyone's."""

    def __init__(self, redis: Redis, prefix: str, holder: str, ttl_ms: int) -> None:
        self.redis = redis
        self.prefix = prefix
        self.holder = holder
        self.ttl_ms = ttl_ms
        self.held: dict[str, int] = {}
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)

    def key(self, code: str) -> str:
        return f"{self.prefix}:lease:{code}"

    def value(self, token: int) -> str:
        return f"{self.holder} {token}"

    async def acquire(self, code: str) -> int | None:
        """Take the room's lease if nobody holds it: the new fencing token, or None."""
        token = int(await self.redis.incr(f"{self.prefix}:fence"))
        if await self.redis.set(self.key(code), self.value(token), nx=True, px=self.ttl_ms):
            self.held[code] = token
            return token
        return None

    async def owner(self, code: str) -> str | None:
        """The holder (process id) of the room's lease, or None."""
        value = await self.redis.get(self.key(code))
        return None if value is None else _text(value).split(" ")[0]

    async def owners(self, codes: list[str]) -> list[str | None]:
        if not codes:
            return []
        values = await self.redis.mget([self.key(c) for c in codes])
        return [None if v is None else _text(v).split(" ")[0] for v in values]

    async def release(self, codes: list[str]) -> None:
        """Give these leases up (only where they are still ours)."""
        if not codes:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for code in codes:
                token = self.held.pop(code, None)
                if token is not None:
                    await self._release(keys=[self.key(code)], args=[self.value(token)], client=pipe)
            await pipe.execute()

    def forget(self, code: str) -> None:
        """The room is no longer ours (lost or closed): stop renewing it."""
        self.held.pop(code, None)

    def lost(self, found: list[tuple[str, int]]) -> list[str]:
        """Leases found gone by a renewal (code, token): the codes still held with that token, forgotten now
        (on the event loop; one released or re-taken meanwhile is not lost)."""
        lost = [code for code, token in found if self.held.get(code) == token]
        for code in lost:
            del self.held[code]
            log(WARNING, "room lease lost", room=code)
        return lost


class Keeper:
    """Renews a :class:`Leases`' leases every third of their time to live from a thread of its own, with a
    blocking Redis client of its own (``redis_url``), so that a busy event loop does not let them run out
    (``RENEW_CHUNK`` leases per script call, so that the thread's own Python under the GIL stays short).
    Leases found gone are handed to ``on_lost`` (codes) on the loop, after :meth:`Leases.lost`. The loop
    calls :meth:`beat` often (the renewal task of :class:`~paohuzi.server.shared.Cluster`); without a beat for
    ``STALL_LIMIT`` times the time to live, nothing is renewed."""

    def __init__(self, leases: Leases, redis_url: str, on_lost: Callable[[list[str]], None]) -> None:
        import asyncio

        self.leases = leases
        self.redis_url = redis_url
        self.on_lost = on_lost
        self.loop = asyncio.get_running_loop()
        self.last_beat = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="paohuzi-leases", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def beat(self) -> None:
        """The event loop is alive (it ran this)."""
        self.last_beat = time.monotonic()

    def _run(self) -> None:
        import redis

        client = redis.Redis.from_url(self.redis_url, socket_timeout=10.0)  # slow answers under load are not failures
        script = client.register_script(_RENEW_MANY)
        ttl = self.leases.ttl_ms
        try:
            while not self._stop.wait(ttl / 3000):
                if time.monotonic() - self.last_beat > STALL_LIMIT * ttl / 1000:
                    continue  # the loop is stuck, not slow: the rooms fail over
                try:
                    gone = self._renew(client, script, ttl)
                except Exception as exc:  # noqa: BLE001 — Redis away: try again; the leases may expire meanwhile
                    log(WARNING, "lease renewal failed", error=repr(exc))
                    continue
                if gone:
                    self.loop.call_soon_threadsafe(self._lost, gone)
        finally:
            client.close()

    def _renew(self, client: Any, script: Any, ttl: int) -> list[tuple[str, int]]:
        held = list(self.leases.held.items())  # one step under the GIL: a snapshot of what the loop holds
        if not held:
            return []
        chunks = [held[i : i + RENEW_CHUNK] for i in range(0, len(held), RENEW_CHUNK)]
        pipe = client.pipeline(transaction=False)
        for chunk in chunks:
            keys = [self.leases.key(code) for code, _ in chunk]
            script(keys=keys, args=[self.leases.value(token) for _, token in chunk] + [ttl], client=pipe)
        results = pipe.execute()
        return [chunk[int(i) - 1] for chunk, gone in zip(chunks, results, strict=True) for i in gone]

    def _lost(self, gone: list[tuple[str, int]]) -> None:
        lost = self.leases.lost(gone)
        if lost:
            self.on_lost(lost)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
