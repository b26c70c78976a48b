"""Room leases in Redis (the shared mode, issue 14): which server process owns a room, and its fencing token.

A room is owned by the process that holds ``<prefix>:lease:<code>``: ``SET NX PX`` with the value
``"<holder> <token>"``, where the token comes from ``INCR <prefix>:fence`` (one counter for every room, so a
room's tokens only ever go up). The owner renews its leases every third of their time to live
(compare-and-``PEXPIRE``) and writes the token to the room's fence in the database
(:func:`paohuzi.server.db.fence_room`) before it reads or writes the room; a lease it finds gone (it was
paused or cut off for longer than the time to live, and another process may hold the room now) is
answered by :meth:`Leases.renew` (:class:`~paohuzi.server.shared.Cluster` renews, and gives such rooms
up). Releasing (at SIGTERM) is compare-and-``DEL``: only one's own lease.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paohuzi.server.logs import log

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["Leases"]

WARNING = 30

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

    def _value(self, token: int) -> str:
        return f"{self.holder} {token}"

    async def acquire(self, code: str) -> int | None:
        """Take the room's lease if nobody holds it: the new fencing token, or None."""
        token = int(await self.redis.incr(f"{self.prefix}:fence"))
        if await self.redis.set(self.key(code), self._value(token), nx=True, px=self.ttl_ms):
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
                    await self._release(keys=[self.key(code)], args=[self._value(token)], client=pipe)
            await pipe.execute()

    def forget(self, code: str) -> None:
        """The room is no longer ours (lost or closed): stop renewing it."""
        self.held.pop(code, None)

    async def renew(self) -> list[str]:
        """Renew every lease held; the codes whose lease was found gone (then forgotten)."""
        held = list(self.held.items())
        if not held:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for code, token in held:
                await self._renew(keys=[self.key(code)], args=[self._value(token), self.ttl_ms], client=pipe)
            results = await pipe.execute()
        lost = [
            code for (code, token), ok in zip(held, results, strict=True) if not ok and self.held.get(code) == token
        ]
        for code in lost:
            del self.held[code]
            log(WARNING, "room lease lost", room=code)
        return lost


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
