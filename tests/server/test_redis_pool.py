"""The shared mode's Redis client under load (issue 14): more commands at once than the pool has
connections wait for one — the default pool raised MaxConnectionsError at ~450 websockets a process."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from paohuzi.server.app import redis_client
from paohuzi.server.config import Settings

from ..support.databases import redis_url


def test_more_commands_at_once_than_connections_all_succeed() -> None:
    url = redis_url()
    if url is None:
        pytest.skip("no Redis on 127.0.0.1:6379 and redis-server could not be installed or started")
    key = "test-pool-" + uuid.uuid4().hex

    async def main() -> int:
        # the shared mode runs on PostgreSQL (a SQLite URL with Redis is refused); no database is opened here
        settings = Settings(redis_url=url, redis_connections=4, database_url="postgresql://unused@127.0.0.1/none")
        client = redis_client(settings)
        try:
            # 400 commands, each holding its connection across a round trip, with only 4 connections
            async def one() -> None:
                async with client.pipeline(transaction=True) as pipe:
                    await pipe.incr(key).expire(key, 60).execute()

            await asyncio.gather(*(one() for _ in range(400)))
            return int(await client.get(key))
        finally:
            await client.delete(key)
            await client.aclose()

    assert asyncio.run(main()) == 400
