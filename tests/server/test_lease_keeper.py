"""The lease keeper (issue 33): room leases renewed from a thread of their own, so that a process whose event
loop is slow — stalled for longer than a lease's time to live — keeps its rooms; a loop stuck for good lets
them run out (the rooms fail over); a lease found gone is handed back to the loop. Real Redis, real threads."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from redis.asyncio import Redis

from paohuzi.server.lease import RENEW_CHUNK, STALL_LIMIT, Keeper, Leases

from ..support.databases import redis_url

TTL_MS = 300


def _url() -> str:
    url = redis_url()
    if url is None:
        pytest.skip("no Redis")
    return url


async def _held(url: str, lost: list[str]) -> tuple[Redis, Leases, Keeper, int]:
    redis = Redis.from_url(url)
    leases = Leases(redis, f"keeper-test-{uuid.uuid4().hex[:8]}", "p1", TTL_MS)
    token = await leases.acquire("ROOM1")
    assert token is not None
    keeper = Keeper(leases, url, lost.extend)
    keeper.start()
    return redis, leases, keeper, token


def test_a_loop_stalled_three_times_a_lease_s_time_keeps_its_lease() -> None:
    url = _url()

    async def main() -> None:
        lost: list[str] = []
        redis, leases, keeper, token = await _held(url, lost)
        try:
            time.sleep(3 * TTL_MS / 1000)  # the event loop stalls: nothing on it runs meanwhile
            await asyncio.sleep(0)
            assert await redis.get(leases.key("ROOM1")) == leases.value(token).encode()
            assert lost == [] and leases.held == {"ROOM1": token}
        finally:
            keeper.stop()
            await redis.aclose()

    asyncio.run(main())


def test_a_stuck_loop_lets_its_leases_run_out() -> None:
    url = _url()

    async def main() -> None:
        lost: list[str] = []
        redis, leases, keeper, _ = await _held(url, lost)
        try:
            time.sleep((STALL_LIMIT + 2) * TTL_MS / 1000)  # no heartbeat for longer than the keeper waits
            assert await redis.get(leases.key("ROOM1")) is None  # run out: another process may take the room
        finally:
            keeper.stop()
            await redis.aclose()

    asyncio.run(main())


def test_a_lease_found_gone_is_handed_to_the_loop_once() -> None:
    url = _url()

    async def main() -> None:
        lost: list[str] = []
        redis, leases, keeper, _ = await _held(url, lost)
        try:
            await redis.delete(leases.key("ROOM1"))  # as if it ran out and another process took the room
            for _ in range(200):  # wait on the state (bounded): the keeper's next round finds it gone
                keeper.beat()
                if lost:
                    break
                await asyncio.sleep(TTL_MS / 3000)
            assert lost == ["ROOM1"] and leases.held == {}
        finally:
            keeper.stop()
            await redis.aclose()

    asyncio.run(main())


def test_many_leases_are_renewed_in_chunks_and_only_those_gone_are_handed_back() -> None:
    url = _url()
    codes = [f"R{i:03d}" for i in range(2 * RENEW_CHUNK + 50)]  # three script calls
    gone = {codes[0], codes[RENEW_CHUNK + 7], codes[-1]}  # in the first, second and last chunk

    async def main() -> None:
        lost: list[str] = []
        redis = Redis.from_url(url)
        ttl = 4 * TTL_MS  # 450 leases take a while to acquire on a loaded machine: renewed meanwhile
        leases = Leases(redis, f"keeper-test-{uuid.uuid4().hex[:8]}", "p1", ttl)
        keeper = Keeper(leases, url, lost.extend)
        keeper.start()
        try:
            for code in codes:
                keeper.beat()
                assert await leases.acquire(code) is not None
            await redis.delete(*[leases.key(code) for code in gone])
            for _ in range(200):  # wait on the state (bounded): the keeper's first round finds them
                keeper.beat()
                if lost:
                    break
                await asyncio.sleep(ttl / 3000)
            time.sleep(2 * ttl / 1000)  # a stalled loop: the others are still renewed meanwhile
            await asyncio.sleep(0)
            assert sorted(lost) == sorted(gone) and set(leases.held) == set(codes) - gone
            values = await redis.mget([leases.key(code) for code in codes])
            kept = [code for code, value in zip(codes, values, strict=True) if value is not None]
            assert kept == [code for code in codes if code not in gone]
        finally:
            keeper.stop()
            await redis.delete(*[leases.key(code) for code in codes], f"{leases.prefix}:fence")
            await redis.aclose()

    asyncio.run(main())
