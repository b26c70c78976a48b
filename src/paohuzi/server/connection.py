"""One player's websocket: an outgoing queue drained by its own task (a slow client never holds up a
table), a token-bucket rate limit, and strike counting for bad frames (docs/protocol.md §3.3).

The queue is bounded in bytes (``Settings.send_queue_bytes``): a client that does not read what it is sent
(a slow link or a deliberate non-reader) is disconnected at once — its queue is dropped and its socket
aborted — so the server's memory stays bounded however many such clients connect (issue 14).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from starlette.websockets import WebSocket, WebSocketState

try:
    import orjson
except ImportError:  # pragma: no cover — a plain install without the server extra's orjson
    orjson = None  # type: ignore[assignment]

from paohuzi.server.config import Settings
from paohuzi.server.logs import log

__all__ = ["Connection", "TokenBucket", "dumps"]

_QUEUE_LIMIT = 512  # frames waiting for a slow client before it is dropped (besides the byte limit)


def dumps(message: dict[str, Any]) -> str:
    """The JSON text of a server frame (compact, UTF-8 kept; orjson when installed, ~10× faster). A string
    that UTF-8 cannot encode (a lone surrogate) is written as a ``\\u`` escape instead of failing.

    >>> dumps({"type": "pong", "text": "七"})
    '{"type":"pong","text":"七"}'
    >>> dumps({"type": "pong", "id": "\\ud800"})
    '{"type":"pong","id":"\\\\ud800"}'
    """
    if orjson is not None:
        try:
            return orjson.dumps(message).decode()
        except TypeError:  # orjson.JSONEncodeError: a lone surrogate (or a type orjson does not know)
            pass
    try:
        return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8").decode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(message, ensure_ascii=True, separators=(",", ":"))


def text_size(text: str) -> int:
    """The UTF-8 size of a frame in bytes (O(1) for ASCII text, the usual case).

    >>> text_size('{"a":1}'), text_size("七")
    (7, 3)
    """
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _transport(websocket: WebSocket) -> Any:
    """The asyncio transport under a Starlette websocket served by uvicorn, or None. Used only to abort
    a connection whose peer stopped reading: an orderly close would wait for a buffer that never drains."""
    send = getattr(websocket, "_send", None)
    return getattr(getattr(send, "__self__", None), "transport", None)


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
        self._queue: asyncio.Queue[tuple[str, int] | None] = asyncio.Queue()
        self._writer = asyncio.get_running_loop().create_task(self._write())

    def send(self, message: dict[str, Any]) -> None:
        """Queue a frame (never blocks). A client that lets too many frames pile up is disconnected."""
        self.send_text(dumps(message))

    def send_text(self, text: str) -> None:
        """Queue a frame's text. A client with more than ``send_queue_bytes`` (or 512 frames) still
        unsent is too slow: it is aborted and what it had queued is dropped."""
        if self.closed:
            return
        size = text_size(text)
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
        self._queue.put_nowait((text, size))

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
                await ws.send_text(item[0])
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
