"""The game websocket's read path (issue 33): uvicorn's own websocket protocol, reading the frames clients send
with less work, for the server to give uvicorn as ``ws=`` (``paohuzi serve``).

uvicorn's ``websockets-sansio`` protocol reads a frame through websockets' sans-I/O parser (generators and a
``Frame`` object a frame), puts a ``websocket.receive`` dict on an ``asyncio.Queue`` and pauses reading until
the app takes it through Starlette's ``WebSocket.receive``. :class:`GameWebSocketProtocol` keeps uvicorn's
protocol — the HTTP upgrade and handshake, sending, the closing handshake — and changes three things:

- the frames clients send — whole, unfragmented, masked text, binary, ping and pong frames within the size
  limit — are parsed here (:func:`paohuzi.server.ws_frames.scan`, compiled where the package was built with
  Cython; a ping is answered with the same pong websockets writes), and queued as uvicorn queues them until
  the endpoint calls :meth:`~GameWebSocketProtocol.direct`;
- from then on the endpoint reads with ``await protocol.read()`` (the text or bytes, None once the connection
  ended): a future of its own instead of the ASGI queue and Starlette, reading paused only while frames wait
  unread;
- its keepalive pings only a client that was silent for the whole ping interval
  (:meth:`~GameWebSocketProtocol.send_keepalive_ping`).

At the first frame it does not take — a close, a fragment, an oversize or unmasked frame, a reserved bit or
opcode, invalid UTF-8 — and after the server began to close, it hands the stream to websockets' parser for the
rest of the connection, so those are answered exactly as uvicorn answers them (tests/server/test_ws_protocol.py
compares the bytes). What uvicorn puts on its queue from then on (the frames
websockets parsed, the end of the connection) is what :meth:`~GameWebSocketProtocol.read` returns next.

Measured (``bench/ws_read.py``): ~14–18 µs of the server's CPU a frame against ~21–29 µs (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any, cast

from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from paohuzi.server.ws_frames import BINARY, PING, PONG, TEXT, scan

__all__ = ["GameWebSocketProtocol"]

_ENDED = None  # in the unread frames: the connection ended (a disconnect taken off uvicorn's queue)


class _Queue(asyncio.Queue[Any]):
    """uvicorn's queue of ASGI messages, which also wakes a direct :meth:`GameWebSocketProtocol.read` waiting:
    whatever uvicorn puts there (a frame websockets parsed, a disconnect: the peer's close, the server's own
    close or shutdown, a lost connection) is what that read returns next."""

    def __init__(self, protocol: GameWebSocketProtocol) -> None:
        super().__init__()
        self.protocol = protocol

    def put_nowait(self, item: Any) -> None:
        super().put_nowait(item)
        self.protocol._queued()  # noqa: SLF001 — the two halves of one read path


class GameWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websocket protocol with the game's read path (the module's docstring)."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, object],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.queue = _Queue(self)
        self._pending = b""  # the start of a frame not wholly received yet
        self._handed_over = False  # websockets' parser reads the rest of the connection
        self._request_seen = False
        self._direct = False  # read() takes the frames (the endpoint called direct())
        self._unread: collections.deque[str | bytes | None] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self._ended = False  # read() returned the end
        self._heard_at = 0.0  # the loop's time when the client last sent anything (the keepalive's idle time)
        self._max_size: int | None = None  # the largest payload the fast path takes (0: no limit)

    # ---- the endpoint's side -------------------------------------------------------------------------

    def direct(self) -> None:
        """From now on the frames are read with :meth:`read`, not the ASGI ``receive`` (call it once the
        websocket is accepted: what uvicorn queued before is read first)."""
        if self._direct:
            return
        self._direct = True
        while not self.queue.empty():  # frames (or the end) queued before: older than any parsed from now on
            message = self.queue.get_nowait()
            self._unread.append(_data(message))

    async def read(self) -> str | bytes | None:
        """The next frame's text (a text frame) or bytes (a binary frame); None once the connection ended."""
        while not self._ended:
            if self._unread:
                data = self._unread.popleft()
            elif not self.queue.empty():  # what uvicorn queued after the hand-over, or the end
                data = _data(await self.receive())
            else:
                self._resume()  # nothing unread: never wait with reading paused
                self._waiter = self.loop.create_future()
                try:
                    await self._waiter
                finally:
                    self._waiter = None
                continue
            if data is _ENDED:
                self._ended = True
            elif not self._unread and self.queue.empty():
                self._resume()  # as uvicorn: reading goes on once everything read was taken
            return data
        return _ENDED

    def _resume(self) -> None:
        if self.read_paused and not self.transport.is_closing():
            self.read_paused = False
            self.transport.resume_reading()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _queued(self) -> None:
        if self._direct:
            self._wake()

    # ---- the transport's side ------------------------------------------------------------------------

    def send_keepalive_ping(self) -> None:
        """uvicorn's keepalive ping, sent only to a client idle for the whole interval: one that sent anything
        within it (a frame, a pong; the web client pings the game every 15 s) is alive, and its check moves to
        the interval's end after what it sent. A client gone silent is pinged ``ws_ping_interval`` after its
        last byte and closed ``ws_ping_timeout`` later without an answer, as before; a busy server no longer
        writes a ping and reads a pong every 20 s on each of thousands of sockets that are talking anyway."""
        interval = self.ping_interval
        if interval and not self.close_sent and not self.transport.is_closing():
            idle = self.loop.time() - self._heard_at
            if idle < interval:
                self.ping_timer = self.loop.call_later(interval - idle, self.send_keepalive_ping)
                return
        super().send_keepalive_ping()

    def data_received(self, data: bytes) -> None:
        self._heard_at = self.loop.time()
        if not self._request_seen:  # uvicorn's HTTP protocol hands over the upgrade request alone, first
            self._request_seen = True
            super().data_received(data)
            return
        if self._handed_over or not self.handshake_complete or self.close_sent or self.conn.state is not State.OPEN:
            self._hand_over(data)
            return
        buf = self._pending + data if self._pending else data
        max_size = self._max_size
        if max_size is None:  # websockets' limits, fixed for the connection
            limits = [n for n in (self.conn.max_message_size, self.conn.max_fragment_size) if n is not None]
            max_size = self._max_size = min(limits, default=0)
        frames, at, refused = scan(buf, max_size)
        for head, payload in frames:
            if head == TEXT or head == BINARY:
                self._deliver(payload)
            elif head == PING:
                pong = cast("bytes", payload)
                self.transport.write(bytes((PONG, len(pong))) + pong)  # what websockets answers, byte for byte
            else:
                self.handle_pong(Frame(Opcode.PONG, cast("bytes", payload)))
        if refused:
            self._hand_over(buf[at:])
            return
        self._pending = buf[at:] if at < len(buf) else b""

    def _deliver(self, data: str | bytes) -> None:
        if self.close_sent:  # as uvicorn: past the server's close, frames are dropped
            return
        if self._direct:
            self._unread.append(data)
            self._wake()
        else:
            message: Any = {"type": "websocket.receive", "text" if isinstance(data, str) else "bytes": data}
            self.queue.put_nowait(message)
        if not self.read_paused and (not self._direct or len(self._unread) > 1 or self._waiter is None):
            self.read_paused = True  # as uvicorn: no more is read until the endpoint took this
            self.transport.pause_reading()

    def _hand_over(self, data: bytes) -> None:
        self._pending = b""
        self._handed_over = True
        super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)  # queues the disconnect, which wakes a read waiting
        self._wake()


def _data(message: Any) -> str | bytes | None:
    """A frame's text or bytes of an ASGI message uvicorn queued; None for the end (a disconnect)."""
    if message.get("type") != "websocket.receive":
        return _ENDED
    text = message.get("text")
    data: str | bytes = text if text is not None else message.get("bytes", b"")
    return data
