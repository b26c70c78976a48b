"""The relay's own Redis connection (resp.py, issue 33), on a real Redis: opened with the settings of a redis-py
client (its database), replies in order, pushed messages handed over as read, on uvloop (the server's loop) as
on asyncio's; and the bus listening again after its subscription's connection was killed."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Coroutine
from typing import Any

import hiredis
import pytest
import uvloop
from redis.asyncio import Redis

from paohuzi.server.relay import Bus
from paohuzi.server.relay_messages import Close
from paohuzi.server.resp import Link, LinkError

from ..support.databases import redis_url


def _url() -> str:
    url = redis_url()
    if url is None:
        pytest.skip("no Redis")
    return url


def _run(loop: str, main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    if loop == "uvloop":
        uvloop.run(main())
    else:
        asyncio.run(main())


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_link_answers_in_order_on_the_client_s_database_and_hands_messages_over(loop: str) -> None:
    url = _url().rsplit("/", 1)[0] + "/3"  # another database than the default: the link selects it too

    async def main() -> None:
        redis = Redis.from_url(url)
        key, channel = f"link-test-{uuid.uuid4().hex[:8]}", f"link-test-{uuid.uuid4().hex[:8]}"
        got: list[bytes] = []
        two = asyncio.Event()

        def on_message(data: bytes) -> None:
            got.append(data)
            if len(got) == 2:
                two.set()

        link = await Link.open(redis, "link-test-commands")
        listener = await Link.open(redis, "link-test-listener", on_message)
        try:
            await listener.subscribe(channel)
            replies = await link.execute([("SET", key, b"\x00\xff"), ("GET", key), ("NOSUCHCOMMAND",), ("INCR", key)])
            assert replies[:2] == [b"OK", b"\x00\xff"]
            assert isinstance(replies[2], hiredis.ReplyError) and isinstance(replies[3], hiredis.ReplyError)
            assert await redis.get(key) == b"\x00\xff"  # the client's database: the link's too
            assert await link.execute([("PUBLISH", channel, b"one"), ("PUBLISH", channel, b"two\r\n")]) == [1, 1]
            await asyncio.wait_for(two.wait(), 5)
            assert got == [b"one", b"two\r\n"]
            assert await link.execute([]) == []
        finally:
            await redis.delete(key)
            link.close()
            listener.close()
            await redis.aclose()
        await asyncio.wait_for(link.closed, 5)
        with pytest.raises(LinkError):
            await link.execute([("PING",)])

    _run(loop, main)


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_the_bus_listens_again_when_its_subscription_s_connection_is_killed(loop: str) -> None:
    url = _url()

    async def main() -> None:
        redis = Redis.from_url(url)
        prefix = f"bus-test-{uuid.uuid4().hex[:8]}"
        bus = Bus(redis, prefix, "a")
        try:
            assert await bus.start()
            bus.send("a", Close(1))
            assert await asyncio.wait_for(bus.received(), 5) == Close(1)
            clients = await redis.client_list()
            listening = [c["id"] for c in clients if c["name"] == f"{prefix}:relay:a:listen"]
            assert len(listening) == 1
            await redis.client_kill_filter(_id=listening[0])
            for _ in range(500):  # listening again within a second (it waits 0.5 s before it subscribes again)
                clients = await redis.client_list()
                if [c for c in clients if c["name"] == f"{prefix}:relay:a:listen" and c["sub"] == "2"]:
                    break
                await asyncio.sleep(0.01)
            bus.send("a", Close(2))
            assert await asyncio.wait_for(bus.received(), 5) == Close(2)
        finally:
            await bus.stop()
            await redis.aclose()

    _run(loop, main)
