"""Rate limits by key (token buckets): in this process's memory, or in Redis in the shared mode (issue 14),
so that N processes behind one proxy give an address or an account the same allowance as one.

The keys name what is limited: ``http:<address>`` (lobby requests), ``guess:addr:<address>`` /
``guess:player:<id>`` (unknown room codes), ``login:addr:<address>`` / ``login:acct:<key>`` (log-ins,
claims, deletions). A bucket holds ``burst`` tokens and gains ``rate`` a second; in Redis it is a hash
``<prefix>:limit:<key>`` updated by one script with the Redis server's clock (one clock for all
processes), expiring once full again. If Redis does not answer, the process's own buckets are used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paohuzi.server.connection import TokenBucket
from paohuzi.server.logs import log

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["Limits"]

WARNING = 30

# KEYS[1] the bucket; ARGV: rate (tokens/s), burst, cost (0: only look, 1: take one). 1 if a token was there.
_BUCKET = """
local rate, burst, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local b = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens, stamp = tonumber(b[1]) or burst, tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
local ok = tokens >= 1
if ok and cost > 0 then
  tokens = tokens - cost
end
if cost > 0 then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
end
return ok and 1 or 0
"""


class Limits:
    """Token buckets by key: :meth:`take` one token, or :meth:`peek` whether one is there."""

    def __init__(self, redis: Redis | None = None, prefix: str = "paohuzi") -> None:
        self.redis = redis
        self.prefix = prefix
        self._local: dict[str, TokenBucket] = {}
        self._script = None if redis is None else redis.register_script(_BUCKET)

    async def take(self, key: str, rate: float, burst: int) -> bool:
        return await self._ask(key, rate, burst, 1)

    async def peek(self, key: str, rate: float, burst: int) -> bool:
        return await self._ask(key, rate, burst, 0)

    async def _ask(self, key: str, rate: float, burst: int, cost: int) -> bool:
        if self._script is not None:
            try:
                found = await self._script(keys=[f"{self.prefix}:limit:{key}"], args=[rate, burst, cost])
                return bool(int(found))
            except Exception as exc:  # noqa: BLE001 — Redis away: this process's own bucket instead
                log(WARNING, "shared rate limit unavailable; limiting in this process", error=repr(exc))
        bucket = self._local.get(key)
        if bucket is None:
            if len(self._local) > 50_000:
                self._local.clear()
            bucket = self._local[key] = TokenBucket(rate, burst)
        return bucket.take() if cost else bucket.peek()
