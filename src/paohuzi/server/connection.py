"""One player's websocket: an outgoing queue drained by its own task (a slow client never holds up a
table), a token-bucket rate limit, and strike counting for bad frames (docs/protocol.md §3.3).
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

_QUEUE_LIMIT = 512  # frames waiting for a slow client before it is dropped


def dumps(message: dict[str, Any]) -> str:
    """The JSON text of a server frame (compact, UTF-8 kept; orjson when installed, ~10× faster).

    >>> dumps({"type": "pong", "text": "七"})
    '{"type":"pong","text":"七"}'
    """
    if orjson is not None:
        return orjson.dumps(message).decode()
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


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

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class Connection:
    """A player's open websocket after ``hello``."""

    def __init__(self, websocket: WebSocket, settings: Settings, conn_id: int) -> None:
        self.websocket = websocket
        self.id = conn_id
        self.player_id: int | None = None
        self.bucket = TokenBucket(settings.rate, settings.burst)
        self.dropped = 0
        self.strikes = 0
        self.closed = False
        self._last_limit_error = 0.0
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._writer = asyncio.get_running_loop().create_task(self._write())

    def send(self, message: dict[str, Any]) -> None:
        """Queue a frame (never blocks). A client that lets too many frames pile up is disconnected."""
        self.send_text(dumps(message))

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        if self._queue.qsize() >= _QUEUE_LIMIT:
            log(30, "slow client dropped", conn=self.id, player=self.player_id)
            self.close(1008, "too slow: frames piled up")
            return
        self._queue.put_nowait(text)

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
                text = await self._queue.get()
                if text is None:
                    code, reason = self._close
                    if ws.application_state == WebSocketState.CONNECTED:
                        await ws.close(code=code, reason=reason)
                    return
                await ws.send_text(text)
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
