"""匹配 (docs/protocol.md §3.8): a player whose websocket comes up while its queue entry is being written waits
online — it is not taken for offline and dropped after ``offline_grace`` (found by the economy browser test under
load: the scripted players' ``hello`` landed during their entry's write, and the table never filled).

The write is held by a real SQLite write lock taken by the test, on a server on a thread of the test
(:class:`ThreadServer`), so the order is certain: the entry's write starts with the player offline, the hello
is answered during it, and then the write ends."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

from paohuzi.server.config import Settings
from paohuzi.server.hub import Hub

from ..support.clients import Client
from ..support.thread_server import ThreadServer


def test_a_websocket_up_while_the_queue_entry_is_written_waits_online(tmp_path: Path) -> None:
    path = tmp_path / "paohuzi.sqlite3"
    settings = Settings(
        database_url=f"sqlite:///{path}",
        offline_grace=1.0,
        match_fill_seconds=600.0,
        http_rate=1000.0,
        http_burst=1000,
    )
    server = ThreadServer(tmp_path, settings).start()
    try:
        me = Client(server)
        me.api("GET", "/api/me")  # the session is known to the hub: the hello below needs no database
        joined: list[asyncio.Task[list[list[int]]]] = []

        async def join(hub: Hub) -> None:  # the queue's entry is written on the database thread …
            joined.append(asyncio.get_running_loop().create_task(hub.queue.join(me.id, ("junior", "qq"))))

        holder = sqlite3.connect(path, isolation_level=None, timeout=30)
        holder.execute("BEGIN IMMEDIATE")  # … which waits for this lock
        try:
            server.on_loop(join)
            me.connect()  # hello answered while the entry waits to be written (welcome, then the room list …)

            async def waiting(hub: Hub) -> bool:
                return not joined[0].done()

            assert server.on_loop(waiting), "the queue entry was written before the hello"
        finally:
            holder.execute("ROLLBACK")
            holder.close()

        async def entry(hub: Hub) -> tuple[bool, float | None]:
            await joined[0]
            found = hub.queue.of(me.id)
            return found is not None, None if found is None else found.offline_since

        assert server.on_loop(entry) == (True, None)  # waits online
        place = me.expect("queue", where=lambda f: f["queue"] is not None and f["queue"]["online"])["queue"]
        assert (place["tier"], place["preset"], place["drop_ms"]) == ("junior", "qq", None)
        time.sleep(settings.offline_grace + 1.5)  # past the grace an offline entry would have had

        async def still(hub: Hub) -> bool:
            await hub.queue.tick()
            return hub.queue.of(me.id) is not None

        assert server.on_loop(still)
        me.close()
    finally:
        server.stop()
