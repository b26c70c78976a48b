"""The relay's bus and the edge's owners (issue 33), on a real Redis: what one process sends another in one loop
turn is one publish (a packet) that arrives whole and in order, an ``Out``'s frame as the bytes sent; the edge
looks a room's owner up once for its relayed frames and again only when the owner may have changed."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from redis.asyncio import Redis

from paohuzi.server.db import Database
from paohuzi.server.directory import NoMirror, RoomDirectory
from paohuzi.server.edge import Edge
from paohuzi.server.lease import Leases
from paohuzi.server.registry import Connections
from paohuzi.server.relay import Bus, RelayedConnections, Seats
from paohuzi.server.relay_messages import Close, In, Message, Out
from paohuzi.server.services import Tasks

from ..support.databases import redis_url


def _url() -> str:
    url = redis_url()
    if url is None:
        pytest.skip("no Redis")
    return url


async def _published(bus: Bus, packets: int) -> None:
    """Until the bus has published this many packets (its count follows the publish's answer, which may come
    after the receiver got the packet), at most 5 s."""
    for _ in range(500):
        if bus.counts["packets_sent"] >= packets:
            return
        await asyncio.sleep(0.01)


def test_what_is_sent_in_one_loop_turn_arrives_as_one_packet_in_order() -> None:
    url = _url()

    async def main() -> None:
        redis = Redis.from_url(url)
        prefix = f"bus-test-{uuid.uuid4().hex[:8]}"
        a, b = Bus(redis, prefix, "a"), Bus(redis, prefix, "b")
        try:
            assert await a.start() and await b.start()
            frame = b'{"type":"update","text":"\xe4\xb8\x83 \\u4e03"}'
            sent: list[Message] = [In(7, "123456", "a", '{"type":"ping"}'), Out(8, "123456", "update", frame)]
            sent += [Close(n) for n in range(9, 12)]
            for message in sent:  # one loop turn: nothing awaited between them
                a.send("b", message)
            got = [await asyncio.wait_for(b.received(), 5) for _ in sent]
            assert got == sent
            assert isinstance(got[1], Out) and got[1].frame == frame
            await _published(a, 1)
            assert (a.counts["sent"], a.counts["packets_sent"]) == (5, 1)
            assert (b.counts["received"], b.counts["packets_received"]) == (5, 1)
            a.send("b", Close(12))  # a later turn: a packet of its own
            assert await asyncio.wait_for(b.received(), 5) == Close(12)
            await _published(a, 2)
            assert (a.counts["packets_sent"], b.counts["packets_received"]) == (2, 2)
        finally:
            await a.stop()
            await b.stop()
            await redis.aclose()

    asyncio.run(main())


def test_a_message_to_a_process_nobody_listens_for_is_counted_as_lost() -> None:
    url = _url()

    async def main() -> None:
        redis = Redis.from_url(url)
        bus = Bus(redis, f"bus-test-{uuid.uuid4().hex[:8]}", "a")
        counted: list[int] = []
        all_counted = asyncio.Event()

        def count(n: int) -> None:
            counted.append(n)
            if len(counted) == 3:
                all_counted.set()

        try:
            assert await bus.start()
            bus.send("gone", Close(1), count)
            bus.send("gone", Close(2), count)
            bus.send("a", Close(3), count)  # itself: one listener
            assert await asyncio.wait_for(bus.received(), 5) == Close(3)
            await asyncio.wait_for(all_counted.wait(), 5)  # told once the publish has answered
            assert counted == [0, 0, 1]
        finally:
            await bus.stop()
            await redis.aclose()

    asyncio.run(main())


def test_the_edge_looks_a_room_s_owner_up_again_only_when_it_may_have_changed(tmp_path: Path) -> None:
    url = _url()

    async def main() -> None:
        redis = Redis.from_url(url)
        prefix = f"edge-test-{uuid.uuid4().hex[:8]}"
        bus, directory = Bus(redis, prefix, "p1"), RoomDirectory(NoMirror())
        db = Database(f"sqlite:///{tmp_path / 'edge.sqlite3'}")
        conns = RelayedConnections(Connections(), bus, directory)
        leases = Leases(redis, prefix, "p1", 3000)
        edge = Edge("p1", f"{prefix}:presence", redis, bus, leases, Seats(redis, prefix), db, directory, conns, Tasks())
        p2, p3 = Leases(redis, prefix, "p2", 3000), Leases(redis, prefix, "p3", 3000)
        try:
            assert await p2.acquire("ROOM1") is not None
            assert await edge._relay_owner("ROOM1") == "p2"
            await redis.delete(leases.key("ROOM1"))
            assert await p3.acquire("ROOM1") is not None  # unseen: no adopted, no error yet
            assert await edge._relay_owner("ROOM1") == "p2"
            edge.moved("ROOM1", "p4")  # another owner's trouble: not this room's
            assert await edge._relay_owner("ROOM1") == "p2"
            assert await edge._relay_owner("ROOM1", fresh=True) == "p3"
            edge.owned("ROOM1", "p5")  # adopted, as told
            assert await edge._relay_owner("ROOM1") == "p5"
            edge.moved("ROOM1")  # an error came from it, or it is gone
            assert await edge._relay_owner("ROOM1") == "p3"
            await redis.delete(leases.key("ROOM1"))
            edge.moved("ROOM1", "p3")
            assert await edge._relay_owner("ROOM1") is None  # between two owners: nobody to relay to
        finally:
            await redis.delete(f"{prefix}:fence", leases.key("ROOM1"))
            await redis.aclose()
            db.engine.dispose()

    asyncio.run(main())
