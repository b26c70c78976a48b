"""One player's websocket: an outgoing queue drained by its own task (a slow client never holds up a
table), a token-bucket rate limit, and strike counting for bad frames (docs/protocol.md §3.3).

The queue is bounded in bytes (``Settings.send_queue_bytes``): a client that does not read what it is sent
(a slow link or a deliberate non-reader) is disconnected at once — its queue is dropped and its socket
aborted — so the server's memory stays bounded however many such clients connect (issue 14).

A frame is encoded once, as UTF-8 JSON bytes (:func:`encode`), and while nothing waits in the queue and the
socket takes more (uvicorn's websocket is not paused for back-pressure) it goes straight to the socket as one
websocket text frame: one ``transport.write`` per frame, without the queue's task switch, Starlette's and
uvicorn's send layers or a second encoding (issue 33). Otherwise — a client that reads slowly, or a socket
other than uvicorn's — it waits in the queue as before, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from typing import Any

from starlette.websockets import WebSocket, WebSocketState

try:
    import orjson
except ImportError:  # pragma: no cover — a plain install without the server extra's orjson
    orjson = None  # type: ignore[assignment]

try:
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    from websockets.protocol import State
except ImportError:  # pragma: no cover — served by something else: every frame goes through the queue
    WebSocketsSansIOProtocol = None  # type: ignore[assignment,misc]
    State = None  # type: ignore[assignment,misc]

from paohuzi.server.config import Settings
from paohuzi.server.logs import log
from paohuzi.server.ws_frames import text_frame

__all__ = ["RAW_SEND", "Connection", "TokenBucket", "dumps", "encode"]

_QUEUE_LIMIT = 512  # frames waiting for a slow client before it is dropped (besides the byte limit)
RAW_SEND = "paohuzi.raw_send"  # the scope key where :class:`paohuzi.server.ws.RawSend` keeps the server's send


def encode(message: dict[str, Any]) -> bytes:
    """The UTF-8 JSON of a server frame (compact, non-ASCII kept; orjson when installed, ~10× faster). A string
    that UTF-8 cannot encode (a lone surrogate) is written as a ``\\u`` escape instead of failing.

    >>> encode({"type": "pong", "text": "七"}).decode()
    '{"type":"pong","text":"七"}'
    >>> encode({"type": "pong", "id": "\\ud800"})
    b'{"type":"pong","id":"\\\\ud800"}'
    """
    if orjson is not None:
        try:
            return orjson.dumps(message)
        except TypeError:  # orjson.JSONEncodeError: a lone surrogate (or a type orjson does not know)
            pass
    try:
        return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def dumps(message: dict[str, Any]) -> str:
    """:func:`encode` as text.

    >>> dumps({"type": "pong", "text": "七"})
    '{"type":"pong","text":"七"}'
    """
    return encode(message).decode("utf-8")


def _protocol(websocket: WebSocket) -> Any:
    """uvicorn's websocket protocol object under a Starlette websocket (its send kept in the scope by
    :class:`paohuzi.server.ws.RawSend`), or None: then frames take the queue and Starlette's send."""
    send = websocket.scope.get(RAW_SEND)
    proto = getattr(send, "__self__", None)
    if WebSocketsSansIOProtocol is None or not isinstance(proto, WebSocketsSansIOProtocol):
        return None
    return proto


def _transport(websocket: WebSocket) -> Any:
    """The asyncio transport under a Starlette websocket served by uvicorn, or None. Used only to abort
    a connection whose peer stopped reading: an orderly close would wait for a buffer that never drains."""
    proto = _protocol(websocket)
    if proto is not None:
        return proto.transport
    send = getattr(websocket, "_send", None)
    return getattr(getattr(send, "__self__", None), "transport", None)


def _bound_send_buffer(transport: Any, limit: int) -> None:
    """Hold the socket's kernel send buffer to ``limit`` bytes (``SO_SNDBUF``; the system's default grows to
    megabytes). Frames go straight to the socket, so the kernel's buffer is where a peer that stops reading
    piles them up first; bounded like the queue, such a peer reaches the queue's limit — and is dropped —
    after a few hundred KiB, however fast the server writes."""
    sock = transport.get_extra_info("socket")
    with contextlib.suppress(AttributeError, OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, limit)


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; each frame takes one.

    >>> bucket = TokenBucket(rate=1.0, burst=2, now=0.0)
    >>> [bucket.take(now=0.0), bucket.take(now=0.0), bucket.take(now=0.0), bucket.take(now=1.0)]
    [True, True, False, True]
    """

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: int, now: float | None = None) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic() if now is None else now

    def peek(self, now: float | None = None) -> bool:
        """Whether a token is there (none is taken).

        >>> bucket = TokenBucket(rate=1.0, burst=1, now=0.0)
        >>> [bucket.peek(now=0.0), bucket.take(now=0.0), bucket.peek(now=0.5), bucket.peek(now=1.0)]
        [True, True, False, True]
        """
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return self.tokens >= 1.0

    def take(self, now: float | None = None) -> bool:
        if self.peek(now):
            self.tokens -= 1.0
            return True
        return False


class Connection:
    """A player's open websocket after ``hello``."""

    def __init__(self, websocket: WebSocket, settings: Settings, conn_id: int) -> None:
        self.websocket = websocket
        self.id = conn_id
        self.limit_bytes = settings.send_queue_bytes
        self.queued_bytes = 0
        self.too_slow = False
        self.player_id: int | None = None
        self.bucket = TokenBucket(settings.rate, settings.burst)
        self.dropped = 0
        self.strikes = 0
        self.closed = False
        self._last_limit_error = 0.0
        self._queue: asyncio.Queue[tuple[bytes, int] | None] = asyncio.Queue()
        self._sending = False  # the writer task is sending a frame it took from the queue
        self._proto = _protocol(websocket)
        if self._proto is not None:
            _bound_send_buffer(self._proto.transport, self.limit_bytes)
        self._writer = asyncio.get_running_loop().create_task(self._write())

    def send(self, message: dict[str, Any]) -> None:
        """Queue a frame (never blocks). A client that lets too many frames pile up is disconnected."""
        self.send_bytes(encode(message))

    def send_text(self, text: str) -> None:
        """Queue a frame's text (see :meth:`send_bytes`)."""
        self.send_bytes(text.encode("utf-8"))

    def _direct(self) -> Any:
        """The transport to write a frame to now, or None when the frame must wait in the queue: something is
        queued or being sent, the socket is paused for back-pressure, or it is not an open uvicorn websocket."""
        proto = self._proto
        if proto is None or self._sending or self._queue.qsize():
            return None
        transport = proto.transport
        if (
            proto.close_sent
            or proto.disconnected
            or not proto.handshake_complete
            or not proto.writable.is_set()
            or proto.conn.state is not State.OPEN
            or proto.conn.extensions
            or transport.is_closing()
        ):
            return None
        return transport

    def send_bytes(self, payload: bytes) -> None:
        """Send a frame's UTF-8 JSON: straight to the socket when it takes it, else queued. A client with more
        than ``send_queue_bytes`` (or 512 frames) still queued is too slow: it is aborted and what it had
        queued is dropped."""
        if self.closed:
            return
        transport = self._direct()
        if transport is not None:
            transport.write(text_frame(payload))
            return
        size = len(payload)
        if self.queued_bytes + size > self.limit_bytes or self._queue.qsize() >= _QUEUE_LIMIT:
            log(
                30,
                "slow client dropped",
                conn=self.id,
                player=self.player_id,
                queued_bytes=self.queued_bytes,
                queued_frames=self._queue.qsize(),
            )
            self.abort()
            return
        self.queued_bytes += size
        self._queue.put_nowait((payload, size))

    @property
    def queued_frames(self) -> int:
        return self._queue.qsize()

    def abort(self) -> None:
        """Drop the connection now: forget the queued frames, stop the writer, abort the socket (no close
        handshake: the peer is not reading)."""
        self.too_slow = True
        self.closed = True
        self._close = (1008, "too slow: frames piled up")
        while not self._queue.empty():
            self._queue.get_nowait()
        self.queued_bytes = 0
        self._writer.cancel()
        transport = _transport(self.websocket)
        if transport is not None and hasattr(transport, "abort"):
            transport.abort()

    def should_report_limit(self) -> bool:
        """True at most once a second: rate-limit errors are themselves rate limited."""
        now = time.monotonic()
        if now - self._last_limit_error >= 1.0:
            self._last_limit_error = now
            return True
        return False

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Send what is queued, then close with ``code`` and ``reason``."""
        if self.closed:
            return
        self.closed = True
        self._close = (code, reason)
        self._queue.put_nowait(None)

    async def _write(self) -> None:
        ws = self.websocket
        try:
            while True:
                item = await self._queue.get()
                if item is None:
                    code, reason = self._close
                    if ws.application_state == WebSocketState.CONNECTED:
                        await ws.close(code=code, reason=reason)
                    return
                self._sending = True
                await ws.send_text(item[0].decode("utf-8"))
                self._sending = False
                self.queued_bytes -= item[1]
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 — the peer went away; the reader sees the disconnect
            self.closed = True

    async def finish(self, grace: float = 2.0) -> None:
        """Let the writer send what is queued (and the close frame) for up to ``grace`` seconds, then stop
        it. Called once the reader is done with the socket."""
        if not self.closed:
            self.close(1000, "")
        try:
            await asyncio.wait_for(asyncio.shield(self._writer), grace)
        except (TimeoutError, asyncio.CancelledError, Exception):  # noqa: BLE001
            pass
        if not self._writer.done():
            self._writer.cancel()
            try:
                await self._writer
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
