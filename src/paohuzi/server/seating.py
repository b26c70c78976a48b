"""One room per player (issue 27): the per-player claim every path that seats a player holds, the shared
mode's seat directory, and the rule by which a repeated request answers the room it already made.

Every path that seats a player (quick play, creating a room, joining one, waiting for a public table, a
public table taking players from the queue) runs inside :meth:`Claims.hold` for that player: "does the
player sit somewhere?" and "seat the player" happen with no other seating request of the player's in
between. The hub is given one of two implementations:

- :class:`LocalClaims` (one server process): a lock per player. One process is the only writer of its
  database (the writer fence, :mod:`paohuzi.server.db`: a second process started on it is fenced and
  stops), so the lock of that one process is the lock of every request the database will ever store.
- :class:`RedisClaims` (the shared mode, issue 14): the same lock in the process, then a Redis key
  ``<prefix>:claim:<player>`` set only if absent (``SET NX PX``) with a random token, renewed while held
  and deleted only by the token's holder (a crashed holder's claim expires within :data:`CLAIM_MS`). It
  is released only once the player's seat is written to Redis (the room directory's seat mirror,
  :class:`~paohuzi.server.relay.Seats`), so the next holder, in any process, sees where the player sits.

A second quick play, or a second "create room", made while (or after) the first one made a room answers
that room (:func:`same_room`, docs/protocol.md §2: HTTP 200 instead of 201, the same code) instead of a
second room or a 逃跑 from the first.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from paohuzi.server.frames import RoomError, RoomState
from paohuzi.server.logs import log

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from paohuzi.server.room_options import RoomOptions

__all__ = ["Claims", "LocalClaims", "RedisClaims", "hold_each", "same_room"]

WARNING = 30
CLAIM_MS = 3_000  # a claim left by a crashed process expires after this long (its holder renews it)
CLAIM_WAIT = 15.0  # default seconds a request waits for the player's other seating request (Settings.seat_wait)

# KEYS[1] the claim key, ARGV[1] the holder's token: only the holder deletes it.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
# KEYS[1] the claim key, ARGV[1] the holder's token, ARGV[2] milliseconds: only the holder renews it.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""


# The claims this flow of work holds already: a claim is re-entrant (queue_join holds its player's claim
# while the queue seats that player at a table, which holds the claims of all the table's players).
_HELD: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar("seating_claims", default=frozenset())


@contextlib.asynccontextmanager
async def _marked(player: int) -> AsyncIterator[None]:
    token = _HELD.set(_HELD.get() | {player})
    try:
        yield
    finally:
        _HELD.reset(token)


class Claims(Protocol):
    """The port: hold the player's seating claim for the duration of a ``with`` block."""

    def hold(self, player: int) -> contextlib.AbstractAsyncContextManager[None]: ...


def _busy() -> RoomError:
    return RoomError("busy", "another request of yours is seating you right now; try again in a moment", 409)


class LocalClaims:
    """One process: a lock per player (see the module's docstring for why that is enough there)."""

    def __init__(self, wait: float = CLAIM_WAIT) -> None:
        self.wait = wait  # seconds a request waits for the player's other seating request to end
        self._locks: dict[int, asyncio.Lock] = {}
        self._users: dict[int, int] = {}

    @contextlib.asynccontextmanager
    async def hold(self, player: int) -> AsyncIterator[None]:
        if player in _HELD.get():
            yield
            return
        lock = self._locks.setdefault(player, asyncio.Lock())
        self._users[player] = self._users.get(player, 0) + 1
        try:
            try:
                await asyncio.wait_for(lock.acquire(), self.wait)
            except TimeoutError:
                raise _busy() from None
            try:
                async with _marked(player):
                    yield
            finally:
                lock.release()
        finally:
            self._users[player] -= 1
            if not self._users[player]:  # nobody waits: forget the lock (no growth with the players seen)
                del self._users[player], self._locks[player]


class RedisClaims:
    """The shared mode: the process's lock, then the player's claim in Redis, released once ``settle``
    (the seat directory's writes so far) is done."""

    def __init__(
        self, redis: Redis, prefix: str, settle: Callable[[], Awaitable[None]], wait: float = CLAIM_WAIT
    ) -> None:
        self.redis = redis
        self.prefix = prefix
        self.settle = settle
        self.local = LocalClaims(wait)
        self._release = redis.register_script(_RELEASE)
        self._renew = redis.register_script(_RENEW)

    def key(self, player: int) -> str:
        return f"{self.prefix}:claim:{player}"

    @contextlib.asynccontextmanager
    async def hold(self, player: int) -> AsyncIterator[None]:
        if player in _HELD.get():
            yield
            return
        async with self.local.hold(player):
            key, token = self.key(player), secrets.token_hex(8)
            loop = asyncio.get_running_loop()
            deadline, pause = loop.time() + self.local.wait, 0.005
            while not await self._take(key, token):
                if loop.time() > deadline:
                    raise _busy()
                await asyncio.sleep(pause)  # the other holder is in another process: ask again shortly
                pause = min(pause * 2, 0.05)
            renewal = asyncio.create_task(self._keep(key, token))
            try:
                async with _marked(player):
                    yield
            finally:
                renewal.cancel()
                try:
                    await self.settle()
                    await self._release(keys=[key], args=[token])
                except Exception as exc:  # noqa: BLE001 — Redis away: the claim expires by itself (CLAIM_MS)
                    log(WARNING, "seating claim not released", player=player, error=repr(exc))

    async def _keep(self, key: str, token: str) -> None:
        """Renew the claim while it is held (a slow database must not let it expire under its holder)."""
        while True:
            await asyncio.sleep(CLAIM_MS / 3000)
            try:
                await self._renew(keys=[key], args=[token, CLAIM_MS])
            except Exception as exc:  # noqa: BLE001 — Redis away: try again at the next renewal
                log(WARNING, "seating claim not renewed", key=key, error=repr(exc))

    async def _take(self, key: str, token: str) -> bool:
        try:
            return bool(await self.redis.set(key, token, nx=True, px=CLAIM_MS))
        except Exception as exc:  # noqa: BLE001 — Redis away: nobody can be seated safely now
            name = exc.__class__.__name__
            raise RoomError("unavailable", f"the seat directory does not answer ({name})", 503) from None


@contextlib.asynccontextmanager
async def hold_each(claims: Claims, players: Iterable[int]) -> AsyncIterator[set[int]]:
    """Hold several players' claims (a public table), taken in id order so that two tables never wait on
    each other: the players whose claim was had (one still busy after the claims' wait is left out)."""
    held: set[int] = set()
    async with contextlib.AsyncExitStack() as stack:
        for player in sorted(set(players)):
            try:
                await stack.enter_async_context(claims.hold(player))
            except RoomError as exc:
                if exc.code != "busy":
                    raise
                continue
            held.add(player)
        yield held


def _plain(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value))  # as stored and relayed: tuples are lists


def same_room(state: RoomState | None, player: int, kind: str, options: RoomOptions) -> bool:
    """Whether the room the player sits in (``state``) is what a repeated request asks for: a quick play
    of the same options whose match is on (not finished), or a private room of the same options that the player owns
    and whose match has not begun."""
    if state is None or state["kind"] != kind or _plain(state["options"]) != _plain(options.to_dict()):
        return False
    if kind == "quick":  # a finished match is not repeated: the next quick play is a new table
        return state["match"] is not None and not state["match"].get("finished")
    return kind == "private" and state["owner"] == player and state["match"] is None
