"""A Redis connection spoken directly, for the relay's hot path (issue 33): :class:`Link`.

The relay (:class:`~paohuzi.server.relay.Bus`) publishes a packet per receiving process and loop turn and reads
the other processes' packets from a subscription. Through redis-py's asyncio client each publish + receipt cost
the two processes ~190 µs of CPU (bench/redis_pubsub.py: its retry wrapper, connection-pool checks, timeouts and
observability hooks around every command, and with RESP3 a debug log line whose text — the whole packet's
``repr`` — is built for every pushed message even though nothing logs it); spoken here, RESP2 commands packed by
hiredis and replies parsed by its reader straight from the transport's ``data_received``, ~35 µs.

A link is opened with the settings of a redis-py client's pool (address or socket path, TLS, user, password,
database), so the relay reaches the same Redis the rest of the shared mode does. It is either a command link
(:meth:`Link.execute`: commands written at once, their replies in order) or, after :meth:`Link.subscribe`, a
subscriber handing each message's data to ``on_message`` from the reading callback itself. A lost connection
fails what waits for a reply and resolves :attr:`Link.closed`; the caller opens a new link.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from paohuzi.server.logs import log

if TYPE_CHECKING:
    import hiredis
    from redis.asyncio import Redis

__all__ = ["Link", "LinkError"]

ERROR = 40

Arg = str | bytes | int
Reply = object  # what hiredis's reader makes of a reply: bytes, int, list, None, or a ReplyError


class LinkError(ConnectionError):
    """The link to Redis is closed, or Redis refused a command of its set-up."""


class Link(asyncio.Protocol):
    """One connection to Redis (RESP2). ``on_message``: for a subscriber, called with each message's data."""

    def __init__(self, on_message: Callable[[bytes], None] | None = None) -> None:
        import hiredis  # the server extra's C reply parser (redis-py uses it too)

        self._reader: hiredis.Reader = hiredis.Reader()
        self._pack = cast("Callable[[tuple[Arg, ...]], bytes]", hiredis.pack_command)  # its stub says one argument
        self._on_message = on_message
        self._transport: asyncio.Transport | None = None
        # each batch of commands waiting for its replies: its future, how many replies it wants, those read
        self._waiting: collections.deque[tuple[asyncio.Future[list[Reply]], int, list[Reply]]] = collections.deque()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    @classmethod
    async def open(cls, redis: Redis, name: str, on_message: Callable[[bytes], None] | None = None) -> Link:
        """A link to the Redis of ``redis``'s pool, authenticated, on its database, and named ``name`` (what
        ``CLIENT LIST`` shows). :raises OSError, LinkError, TimeoutError: Redis cannot be reached or refused
        the set-up."""
        from redis.asyncio.connection import SSLConnection, UnixDomainSocketConnection

        pool = redis.connection_pool
        kwargs = pool.connection_kwargs
        loop = asyncio.get_running_loop()
        link = cls(on_message)
        timeout = kwargs.get("socket_connect_timeout") or 5.0
        if issubclass(pool.connection_class, UnixDomainSocketConnection):
            connecting = loop.create_unix_connection(lambda: link, kwargs["path"])
        else:
            host, port = kwargs.get("host", "localhost"), int(kwargs.get("port", 6379))
            tls = None
            if issubclass(pool.connection_class, SSLConnection):
                made = SSLConnection(**kwargs)  # only for the TLS context its settings make
                tls = made.ssl_context.get()
            connecting = loop.create_connection(lambda: link, host, port, ssl=tls)
        await asyncio.wait_for(connecting, timeout)
        setup: list[tuple[Arg, ...]] = []
        password, username = kwargs.get("password"), kwargs.get("username")
        if password:
            setup.append(("AUTH", username, password) if username else ("AUTH", password))
        if int(kwargs.get("db") or 0):
            setup.append(("SELECT", int(kwargs["db"])))
        setup.append(("CLIENT", "SETNAME", name))
        try:
            for reply in await asyncio.wait_for(link.execute(setup), timeout):
                if isinstance(reply, Exception):
                    raise LinkError(f"Redis refused the relay's connection: {reply}")
        except BaseException:
            link.close()
            raise
        return link

    # ---- commands ------------------------------------------------------------------------------------

    def execute(self, commands: Sequence[tuple[Arg, ...]]) -> asyncio.Future[list[Reply]]:
        """Write the commands at once; the future gets their replies in order (an error reply as its
        ``hiredis.ReplyError``), or fails with :class:`LinkError` if the connection is lost first."""
        future: asyncio.Future[list[Reply]] = asyncio.get_running_loop().create_future()
        if self._transport is None or self._transport.is_closing():
            future.set_exception(LinkError("the link to Redis is closed"))
            return future
        if not commands:
            future.set_result([])
            return future
        self._waiting.append((future, len(commands), []))
        pack = self._pack
        self._transport.write(b"".join([pack(command) for command in commands]))
        return future

    async def subscribe(self, *channels: str) -> None:
        """Subscribe to the channels (from here on ``on_message`` gets their messages)."""
        future: asyncio.Future[list[Reply]] = asyncio.get_running_loop().create_future()
        if self._transport is None or self._transport.is_closing():
            raise LinkError("the link to Redis is closed")
        self._waiting.append((future, len(channels), []))  # one confirmation per channel
        self._transport.write(self._pack(("SUBSCRIBE", *channels)))
        await future

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    # ---- asyncio.Protocol ----------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast("asyncio.Transport", transport)  # uvloop's are not asyncio's classes

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        reader.feed(data)
        on_message = self._on_message
        try:
            while (reply := reader.gets()) is not False:
                if on_message is not None and isinstance(reply, list) and reply and reply[0] == b"message":
                    on_message(reply[2])  # [b"message", channel, data]
                    continue
                if not self._waiting:
                    continue  # nobody asked (a subscriber's confirmations are awaited; nothing else comes)
                future, wanted, replies = self._waiting[0]
                replies.append(reply)
                if len(replies) == wanted:
                    self._waiting.popleft()
                    if not future.done():
                        future.set_result(replies)
        except Exception:  # noqa: BLE001 — a reply hiredis cannot parse: this connection is unusable
            log(ERROR, "relay link failed", exc_info=True)
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        while self._waiting:
            future, _, _ = self._waiting.popleft()
            if not future.done():
                future.set_exception(LinkError(f"the link to Redis was lost ({exc!r})"))
        if not self.closed.done():
            self.closed.set_result(None)
