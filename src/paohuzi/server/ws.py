"""The game websocket (transport layer, docs/protocol.md §3): Origin check, ``hello`` within a time limit,
frame size and rate limits, strikes for bad frames, and errors as frames — never a stack trace.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from paohuzi.server import frames
from paohuzi.server.config import Settings
from paohuzi.server.connection import RAW_SEND, Connection
from paohuzi.server.hub import Hub
from paohuzi.server.logs import log
from paohuzi.server.metrics import Metrics
from paohuzi.server.protocol import Act, ClientMessage, Hello, ProtocolError, parse_client_frame
from paohuzi.server.room import RoomError
from paohuzi.server.ws_protocol import GameWebSocketProtocol

__all__ = ["RawSend", "websocket_endpoint", "origin_allowed"]

Read = Callable[[], Awaitable[str | bytes | None]]  # the next frame's text or bytes; None once the socket ended

WARNING, ERROR, INFO = 30, 40, 20


_WEB_SCHEMES = {"http": "http", "https": "https", "ws": "http", "wss": "https"}
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _site(scheme: str, netloc: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of a web origin, the default port filled in and the host in lower case; None
    for anything that is not an http(s) origin.

    >>> _site("https", "Play.Example"), _site("ws", "127.0.0.1:8000"), _site("ftp", "x"), _site("http", "")
    (('https', 'play.example', 443), ('http', '127.0.0.1', 8000), None, None)
    """
    web = _WEB_SCHEMES.get(scheme.lower())
    if web is None:
        return None
    try:
        parts = urlsplit(f"{web}://{netloc}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or parts.path or parts.query or parts.fragment or parts.username is not None:
        return None
    return web, parts.hostname, port if port is not None else _DEFAULT_PORTS[web]


def _origin_site(origin: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(origin.strip())
    except ValueError:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    return _site(parts.scheme, parts.netloc)


def origin_allowed(origin: str | None, host: str | None, scheme: str, settings: Settings) -> bool:
    """A browser may connect only from the server's own origin or one in ``allow_origins``; clients that
    send no Origin (not browsers) are let in — they are held to the token like everyone.

    Origins are compared by scheme, host and port (the default port filled in). The server's own origin
    is the request's ``Host`` with its scheme, ``scheme`` (``ws``/``wss``, or ``http``/``https``): behind a
    trusted proxy (``forwarded_allow_ips``) uvicorn has set it from ``X-Forwarded-Proto``, so a TLS proxy's
    ``https`` page is the server's own and a plain-http page of the same host is not.

    >>> s = Settings(allow_origins=("https://play.example",))
    >>> origins = (None, "http://127.0.0.1:8000", "https://play.example:443", "https://evil.example")
    >>> [origin_allowed(o, "127.0.0.1:8000", "ws", s) for o in origins]
    [True, True, True, False]
    >>> [origin_allowed(o, "127.0.0.1:8000", "ws", s) for o in ("https://127.0.0.1:8000", "http://127.0.0.1")]
    [False, False]
    >>> [origin_allowed(o, "play.example", "wss", Settings()) for o in ("https://play.example", "http://play.example")]
    [True, False]
    """
    if origin is None:
        return True
    if "*" in settings.allow_origins:
        return True
    site = _origin_site(origin)
    if site is None:
        return False
    if any(_origin_site(allowed) == site for allowed in settings.allow_origins):
        return True
    return bool(host) and _site(scheme, host or "") == site


class RawSend:
    """Pure ASGI middleware, the outermost of the app's own: keeps a websocket's ``send`` as the server gave it
    in the scope (``RAW_SEND``), before any middleware wraps it, so that a :class:`Connection` can write its
    frames to uvicorn's websocket directly (issue 33). HTTP passes untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            scope[RAW_SEND] = send
        await self.app(scope, receive, send)


def _reader(websocket: WebSocket) -> Read:
    """How the endpoint reads the accepted ``websocket``: straight from the game's own uvicorn protocol
    (:class:`~paohuzi.server.ws_protocol.GameWebSocketProtocol`, issue 33) when it serves it, else through
    Starlette's ``receive``."""
    proto = getattr(websocket.scope.get(RAW_SEND), "__self__", None)
    if isinstance(proto, GameWebSocketProtocol):
        proto.direct()
        return proto.read

    async def receive() -> str | bytes | None:
        return _text(await websocket.receive())

    return receive


def _text(message: Mapping[str, Any]) -> str | bytes | None:
    if message.get("type") != "websocket.receive":
        return None
    text = message.get("text")
    if text is not None:
        return str(text)
    data = message.get("bytes")
    return bytes(data) if data is not None else ""


def _encodable(text: str) -> bool:
    """Whether ``text`` can go out in a frame: JSON ``\\ud800`` escapes decode to lone surrogates, which
    UTF-8 cannot encode.

    >>> _encodable("七 ok"), _encodable("\\ud800")
    (True, False)
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_text(msg: Any, text: str | bytes) -> None:
    """Refuse a parsed frame holding a string that is not valid Unicode text (issue 14: such an ``id``
    echoed back used to fail the encoder and close the sender with 1011). Only a ``\\u`` escape in the
    frame's ``text`` can make one — a websocket text frame is valid UTF-8, and so is a binary frame that JSON
    decoded —, so a frame without one is not searched (issue 33: most frames).

    :raises ProtocolError: ``bad_message``, without the id (it is the unencodable part).
    """
    if b"\\u" not in text if isinstance(text, bytes) else "\\u" not in text:
        return
    for name, value in msg:
        if isinstance(value, str) and not _encodable(value):
            msg_id = msg.id if not isinstance(msg.id, str) or _encodable(msg.id) else None
            raise ProtocolError("bad_message", f"{name}: not valid Unicode text (lone surrogate)", msg_id)


def _error(conn: Connection, code: str, message: str, msg_id: Any = None) -> None:
    if isinstance(msg_id, str) and not _encodable(msg_id):
        msg_id = None  # it could not go out
    conn.send(dict(frames.error(code, message, msg_id)))


async def websocket_endpoint(websocket: WebSocket) -> None:
    hub: Hub = websocket.app.state.hub
    settings = hub.settings
    origin = websocket.headers.get("origin")
    if not origin_allowed(origin, websocket.headers.get("host"), websocket.url.scheme, settings):
        log(WARNING, "websocket origin refused", origin=origin[:100] if origin else None)
        await websocket.close(code=1008, reason="origin not allowed")
        return
    await websocket.accept()
    metrics: Metrics = websocket.app.state.metrics
    conn = Connection(websocket, settings, hub.next_conn_id())
    try:
        await _serve(_reader(websocket), conn, hub, settings, metrics)
    except WebSocketDisconnect:
        pass
    except Exception:  # noqa: BLE001 — never a stack trace to the client
        log(ERROR, "websocket failed", conn=conn.id, player=conn.player_id, exc_info=True)
        conn.close(1011, "server error")
    finally:
        hub.detach(conn)
        await conn.finish()
        if conn.too_slow:
            metrics.slow_disconnects.inc()


async def _serve(read: Read, conn: Connection, hub: Hub, settings: Settings, metrics: Metrics) -> None:
    """``hello`` first, then one frame at a time until the connection is closed."""
    if await _hello(read, conn, hub, settings, metrics):
        while not conn.closed:
            text = await read()
            if text is None:
                return
            admitted = _admit(conn, text, settings)
            if admitted is False:
                return
            msg = _parse(conn, text, settings, metrics) if admitted else None
            if msg is not None:
                await _handle(conn, msg, text if isinstance(text, str) else text.decode(), hub, metrics)


async def _hello(read: Read, conn: Connection, hub: Hub, settings: Settings, metrics: Metrics) -> bool:
    """Read the first frame within ``hello_timeout``; True once it was a good ``hello`` (the connection is
    attached), False when the connection was closed (with a reason) or went away."""
    try:
        text = await asyncio.wait_for(read(), settings.hello_timeout)
    except TimeoutError:
        conn.close(4002, "hello timeout")
        return False
    if text is None:
        return False
    if len(text) > settings.max_frame:
        conn.close(1009, "frame too big")
        return False
    try:
        msg = parse_client_frame(text)
        _check_text(msg, text)
    except ProtocolError as exc:
        metrics.bad_frames.labels(code=exc.code).inc()
        _error(conn, exc.code, exc.message, exc.msg_id)
        conn.close(4001, "expected hello")
        return False
    if not isinstance(msg, Hello):
        _error(conn, "not_authenticated", "the first frame must be hello with your token", msg.id)
        conn.close(4001, "expected hello")
        return False
    player = await hub.authenticate(msg.token)
    if player is None:
        _error(conn, "unauthorized", "unknown token", msg.id)
        conn.close(4001, "unauthorized")
        return False
    hub.attach(conn, player, msg.token)
    return True


def _admit(conn: Connection, text: str | bytes, settings: Settings) -> bool | None:
    """The rate and size limits: True to read the frame, None to drop it (over the rate: counted in
    ``conn.dropped``), False when the connection was closed for it."""
    if not conn.bucket.take():
        conn.dropped += 1
        if conn.dropped > settings.max_dropped:
            log(WARNING, "connection closed for flooding", conn=conn.id, player=conn.player_id)
            conn.close(1008, "rate limit exceeded")
            return False
        if conn.should_report_limit():
            _error(conn, "rate_limited", f"too many frames (limit {settings.rate:g}/s); frames were dropped")
        return None
    if len(text) > settings.max_frame:
        conn.close(1009, "frame too big")
        return False
    return True


def _parse(conn: Connection, text: str | bytes, settings: Settings, metrics: Metrics) -> ClientMessage | None:
    """The frame's message, or None when it was refused at the wire edge (a strike and an error frame; the
    connection is closed at ``max_strikes``)."""
    try:
        msg = parse_client_frame(text)
        _check_text(msg, text)
    except ProtocolError as exc:
        metrics.bad_frames.labels(code=exc.code).inc()
        conn.strikes += 1
        _error(conn, exc.code, exc.message, exc.msg_id)
        if conn.strikes >= settings.max_strikes:
            log(WARNING, "connection closed for bad frames", conn=conn.id, player=conn.player_id)
            conn.close(1008, "too many invalid frames")
        return None
    return msg


async def _handle(conn: Connection, msg: ClientMessage, text: str, hub: Hub, metrics: Metrics) -> None:
    """Hand a message (and its ``text``, relayed as it is in the shared mode) to the hub; a refusal or a
    failure becomes an error frame. ``act`` is timed."""
    started = time.perf_counter()
    result = "ok"
    try:
        await hub.handle(conn, msg, text)
    except RoomError as exc:
        result = "refused"
        _error(conn, exc.code, exc.message, msg.id)
    except Exception:  # noqa: BLE001 — logged here, a plain error to the client
        log(ERROR, "frame failed", conn=conn.id, player=conn.player_id, type=msg.type, exc_info=True)
        result = "failed"
        _error(conn, "internal", "the server failed on this frame; nothing changed", msg.id)
    if isinstance(msg, Act):
        metrics.observe_act(result, time.perf_counter() - started)
