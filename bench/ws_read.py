"""Issue 33: what reading one client frame costs the server, and the faster read paths tried.

Adopted since (2026-12-06 evening): ``DirectRead``'s design as ``paohuzi.server.ws_protocol.GameWebSocketProtocol``
(variant ``game``), which the server gives uvicorn; in bench/load.py's concurrent pairs it gave −0.02 to −0.05 ms
an action (docs/PERFORMANCE.md). The classes below stay as the measured variants.

The game server reads a websocket frame through uvicorn's ``websockets-sansio`` protocol: websockets' sans-I/O
parser (generator-based), a ``websocket.receive`` dict put on an ``asyncio.Queue``, reading paused until the app
takes it, Starlette's ``WebSocket.receive``. Two cheaper paths under the same uvicorn protocol, as subclasses
that uvicorn takes as ``ws=`` (its HTTP upgrade, handshake, keepalive pings and closing handshake unchanged):

- :class:`FastParse` (``fast``): whole, unfragmented, masked text/binary/ping/pong frames parsed here
  (``websockets.speedups.apply_mask`` unmasks), the rest of the ASGI path kept. At the first frame it does not
  take — a close, a fragment, an oversize or unmasked frame, a reserved bit or opcode, invalid UTF-8 — it hands
  the stream to websockets' parser for the rest of the connection, so those are failed exactly as before;
- :class:`DirectRead` (``read``): the same parser, and the app reads with ``await protocol.read()`` (the text or
  bytes, None once the connection ended) — a future of its own instead of the ASGI queue and Starlette, reading
  paused only while frames wait unread.

This script measures each: ``--conns`` real sockets (socket pairs) into a uvloop server process, a client
process writing act-sized masked text frames at ``--rate`` frames a second, one frame a write (a frame a wake-up,
as at people's pace); the server's CPU seconds over the frames read. ``null`` is the floor: a bare protocol that
only counts the bytes (uvloop's wake-up, the ``recv``). ``stock`` reads as the game server does today.

    .venv/bin/python bench/ws_read.py                    # null, stock, fast, read, game; one line each
    .venv/bin/python bench/ws_read.py --check            # 14 edge cases: the same bytes back as stock

Figures (2026-12-06 14:40–15:10 UTC, the defaults: 50 sockets, 5,000 frames/s, 50,000 frames; a shared 2-core
machine, load average 2–5), µs of server CPU a frame, one run each (runs 1–4 with this script's first draft):

| run | null | stock | fast | read |
|---|---:|---:|---:|---:|
| 1 (load 4–5) | — | 35.3 | 29.3 | 19.3 |
| 2 | — | 37.8 | 28.1 | 18.9 |
| 3 (load 3–5) | 10.3 | 45.7 | 30.5 | 20.1 |
| 4 | 8.9 | 32.7 | 25.7 | 21.1 |
| 5 (load 2.2) | 9.6 | 38.3 | 31.7 | 21.1 |

So the read path can give back ~15–20 µs a frame — ~0.02 ms an action (one ``act`` frame each, and a pong every
20 s a socket) — a quarter of issue 33's 0.08 ms bar, and under what bench/load.py resolves here: 300 tables,
15 s, ``read`` wired into the game server (ws.py reading with ``read()``) against main, counterbalanced (base,
read, read, base, base, read; load 2–4): 0.967, 0.944, 1.054 against 0.967, 1.073, 0.931 ms an action (event
loop 0.753, 0.733, 0.836 against 0.735, 0.828, 0.717); the same source run five times spread 0.72–1.11. (A
first A/B with main always run first, load 5–8, had given 0.894, 0.935, 0.873 against 0.750, 0.735, 0.816: not
borne out.) Not adopted. In bench/ws_floor.py's stand-in the read paths gave (ms a action, three runs each, load 2–4):
``asgi-raw`` 0.200, 0.175, 0.224; ``asgi-fast`` 0.176 (0.17, 0.17 earlier); ``asgi-read`` 0.180, 0.134, 0.158;
``asgi-callback`` 0.109, 0.114, 0.148 — the rest of the gap to picows (0.108–0.128) is the task an ``act`` is
handled on, which the game needs (an ``act`` awaits its commit; starting it inside ``data_received`` needs
Python 3.12's eager tasks).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import time
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.speedups import apply_mask

from paohuzi.server.ws_protocol import GameWebSocketProtocol

_TEXT, _BINARY, _PING, _PONG = 0x81, 0x82, 0x89, 0x8A  # FIN, no reserved bits, and the opcode


class FastParse(WebSocketsSansIOProtocol):
    """uvicorn's protocol with its own parser for the frames clients send (see the module's docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending = b""  # the start of a frame not wholly received yet
        self._handed_over = False  # websockets' parser reads the rest of the connection
        self._request_seen = False

    def data_received(self, data: bytes) -> None:
        if not self._request_seen:  # uvicorn's HTTP protocol hands over the upgrade request alone, first
            self._request_seen = True
            super().data_received(data)
            return
        if self._handed_over or not self.handshake_complete or self.close_sent or self.conn.state is not State.OPEN:
            self._hand_over(data)
            return
        buf = self._pending + data if self._pending else data
        limits = [n for n in (self.conn.max_message_size, self.conn.max_fragment_size) if n is not None]
        size, at, max_size = len(buf), 0, min(limits, default=0)
        while size - at >= 2:
            head, second = buf[at], buf[at + 1]
            n, start = second & 0x7F, at + 6
            if n == 126:
                if size - at < 4:
                    break
                n, start = (buf[at + 2] << 8) | buf[at + 3], at + 8
            if (
                not second & 0x80  # unmasked: websockets fails it (1002)
                or n == 127
                or (max_size and n > max_size)  # websockets fails it (1009)
                or not (head == _TEXT or head == _BINARY or (n < 126 and (head == _PING or head == _PONG)))
            ):
                self._hand_over(buf[at:])
                return
            end = start + n
            if end > size:
                break
            payload = apply_mask(buf[start:end], buf[start - 4 : start])
            if head == _TEXT:
                try:
                    self._deliver(payload.decode())
                except UnicodeDecodeError:  # uvicorn closes with 1007: let it
                    self._hand_over(buf[at:])
                    return
            elif head == _BINARY:
                self._deliver(payload)
            elif head == _PING:
                self.transport.write(bytes((_PONG, n)) + payload)  # what websockets answers, byte for byte
            else:
                self.handle_pong(Frame(Opcode.PONG, payload))
            at = end
        self._pending = buf[at:] if at < size else b""

    def _deliver(self, data: str | bytes) -> None:
        if self.close_sent:
            return
        message: Any = {"type": "websocket.receive", "text" if isinstance(data, str) else "bytes": data}
        self.queue.put_nowait(message)
        if not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()

    def _hand_over(self, data: bytes) -> None:
        self._pending = b""
        self._handed_over = True
        super().data_received(data)


_SEE_QUEUE: Any = object()  # what wakes a waiting read() at a hand-over


class DirectRead(FastParse):
    """:class:`FastParse`, and ``await read()`` instead of the ASGI queue once the app called :meth:`direct`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._direct = False
        self._unread: collections.deque[str | bytes] = collections.deque()
        self._waiter: asyncio.Future[str | bytes | None] | None = None

    def direct(self) -> None:
        self._direct = True

    def _deliver(self, data: str | bytes) -> None:
        if not self._direct:
            super()._deliver(data)
            return
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(data)
            return
        self._unread.append(data)
        if not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()

    async def read(self) -> str | bytes | None:
        """The next frame's text or bytes; None once the connection ended. Once the stream was handed over to
        websockets, what it parsed comes from the ASGI queue, as does the end (uvicorn's disconnect)."""
        while True:
            if self._unread:  # frames parsed here come before any the hand-over queued
                data = self._unread.popleft()
                if not self._unread and self.read_paused:
                    self.read_paused = False
                    self.transport.resume_reading()
                return data
            if self._handed_over or not self.queue.empty():
                message = await self.receive()
                return message.get("text", message.get("bytes")) if message["type"] == "websocket.receive" else None
            self._waiter = self.loop.create_future()
            data = await self._waiter
            if data is not _SEE_QUEUE:
                return data

    def _hand_over(self, data: bytes) -> None:
        super()._hand_over(data)
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():  # a read() waiting here: the queue has what comes next
            waiter.set_result(_SEE_QUEUE)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)


# ---- the measurement --------------------------------------------------------------------------------------

_PAYLOAD = json.dumps({"type": "act", "action": "d3", "id": 12345, "seq": 77}).encode()
_MASK = b"\x01\x02\x03\x04"
_FRAME = bytes((_TEXT, 0x80 | len(_PAYLOAD))) + _MASK + apply_mask(_PAYLOAD, _MASK)
_REQUEST = (
    b"GET /ws HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\n"
    b"sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n"
)


def _client(socks: list[socket.socket], per_socket: int, rate: float) -> None:
    os.nice(10)
    for s in socks:
        s.setblocking(True)
        s.recv(4096)  # the 101
    started, sent = time.monotonic(), 0
    while sent < per_socket:
        for s in socks:
            s.sendall(_FRAME)
        sent += 1
        delay = started + sent * len(socks) / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    for s in socks:
        s.close()


def _measure(variant: str, conns: int, frames: int, rate: float) -> float:
    import orjson
    import uvloop
    from starlette.websockets import WebSocket
    from uvicorn.config import Config
    from uvicorn.server import ServerState

    count = [0]

    class Null(asyncio.Protocol):
        def connection_made(self, transport: Any) -> None:
            transport.write(b"HTTP/1.1 101 Switching Protocols\r\n\r\n")

        def data_received(self, data: bytes) -> None:
            count[0] += len(data) // len(_FRAME)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        websocket = WebSocket(scope, receive, send)
        await websocket.accept()
        protocol = send.__self__
        if isinstance(protocol, (DirectRead, GameWebSocketProtocol)):
            protocol.direct()
            while (data := await protocol.read()) is not None:
                orjson.loads(data)
                count[0] += 1
            return
        while (message := await websocket.receive())["type"] == "websocket.receive":
            orjson.loads(message["text"])
            count[0] += 1

    classes = {"stock": WebSocketsSansIOProtocol, "fast": FastParse, "read": DirectRead, "game": GameWebSocketProtocol}
    pairs = [socket.socketpair() for _ in range(conns)]
    per_socket = frames // conns
    client = multiprocessing.Process(target=_client, args=([b for _, b in pairs], per_socket, rate))

    async def run() -> float:
        config = Config(app, ws_per_message_deflate=False, ws_ping_interval=None, log_level="critical", lifespan="off")
        config.load()
        state = ServerState()
        loop = asyncio.get_running_loop()
        for a, _ in pairs:
            if variant == "null":
                await loop.create_unix_connection(Null, sock=a)
            else:
                _, protocol = await loop.create_unix_connection(lambda: classes[variant](config, state, {}), sock=a)
                protocol.data_received(_REQUEST)
        client.start()
        cpu0, read0 = time.process_time(), count[0]
        while count[0] < per_socket * conns and client.is_alive():
            await asyncio.sleep(0.2)
        await asyncio.sleep(0.3)
        return (time.process_time() - cpu0) / max(count[0] - read0, 1)

    try:
        return uvloop.run(run())
    finally:
        client.join()


# ---- the check: the same bytes back as uvicorn's own protocol --------------------------------------------


def _frame(opcode: int, payload: bytes, fin: bool = True, rsv: int = 0, mask: bytes = _MASK) -> bytes:
    head = (0x80 if fin else 0) | rsv | opcode
    n = len(payload)
    header = bytes((head, 0x80 | n)) if n < 126 else bytes((head, 0x80 | 126)) + n.to_bytes(2, "big")
    return header + mask + apply_mask(payload, mask)


_CASES: dict[str, list[bytes]] = {  # what a client writes, write by write (frames of a 100-byte limit)
    "text": [_frame(1, b'{"a":1}')],
    "two frames in one write": [_frame(1, b"one") + _frame(1, b"two")],
    "a frame in three writes": [_frame(1, b"abcdef")[:1], _frame(1, b"abcdef")[1:4], _frame(1, b"abcdef")[4:]],
    "16-bit length": [_frame(1, b"y" * 100)],
    "binary": [_frame(2, b"\x00\x01")],
    "fragmented": [_frame(1, b"frag", fin=False), _frame(0, b"ment")],
    "ping": [_frame(9, b"pp")],
    "close": [_frame(8, (1000).to_bytes(2, "big") + b"bye")],
    "text then close": [_frame(1, b"last") + _frame(8, (1001).to_bytes(2, "big"))],
    "oversize": [_frame(1, b"x" * 101)],
    "bad UTF-8": [_frame(1, b"\xff\xfe")],
    "bad UTF-8 then text": [_frame(1, b"\xff"), _frame(1, b"later")],
    "unmasked": [bytes((_TEXT, 3)) + b"abc"],
    "reserved bit": [_frame(1, b"abc", rsv=0x40)],
}


def _check() -> int:
    """Each case against a real uvicorn server of each protocol (an app that answers each message with its
    repr); the bytes the client reads back must be the same. Prints the cases, returns the differing count."""
    import threading

    import uvicorn

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        protocol = send.__self__
        direct = isinstance(protocol, (DirectRead, GameWebSocketProtocol))
        if direct:
            protocol.direct()
        while True:
            if direct:
                data = await protocol.read()
            else:
                message = await receive()
                data = message.get("text", message.get("bytes")) if message["type"] == "websocket.receive" else None
            if data is None:
                return
            await send({"type": "websocket.send", "text": f"{type(data).__name__} {data!r}"})

    def ask(port: int, writes: list[bytes]) -> bytes:
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(_REQUEST)
            answer = b""
            while b"\r\n\r\n" not in answer:
                answer += s.recv(4096)
            answer = answer.split(b"\r\n\r\n", 1)[1]
            for data in writes:
                s.sendall(data)
                time.sleep(0.05)
            s.settimeout(0.5)
            try:
                while chunk := s.recv(65536):
                    answer += chunk
                return answer + b" <closed>"
            except TimeoutError:
                return answer + b" <open>"

    answers: dict[str, dict[str, bytes]] = {}
    variants: tuple[tuple[str, Any], ...] = (("stock", "websockets-sansio"), ("fast", FastParse), ("read", DirectRead))
    variants += (("game", GameWebSocketProtocol),)
    for name, ws in variants:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        config = uvicorn.Config(app, host="127.0.0.1", port=port, ws=ws, ws_max_size=100, ws_ping_interval=None,
                                ws_per_message_deflate=False, log_level="critical", lifespan="off")
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        answers[name] = {case: ask(port, writes) for case, writes in _CASES.items()}
        server.should_exit = True
        thread.join()
    differing = 0
    for case in _CASES:
        same = answers["stock"][case] == answers["fast"][case] == answers["read"][case] == answers["game"][case]
        differing += not same
        print("same" if same else "DIFFERENT", case, answers["stock"][case][:60])
    return differing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("variants", nargs="*", default=["null", "stock", "fast", "read", "game"])
    parser.add_argument("--conns", type=int, default=50)
    parser.add_argument("--frames", type=int, default=50_000)
    parser.add_argument("--rate", type=float, default=5000.0, help="frames a second, all sockets together")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--check", action="store_true", help="edge-case frames: the same bytes back as stock?")
    args = parser.parse_args()
    if args.check:
        sys.exit(_check())
    if args.one:
        seconds = _measure(args.variants[0], args.conns, args.frames, args.rate)
        print(json.dumps({"variant": args.variants[0], "us_per_frame": round(seconds * 1e6, 2),
                          "loadavg": [round(x, 2) for x in os.getloadavg()]}), flush=True)
        return
    for variant in args.variants:  # each in a fresh process
        subprocess.run([sys.executable, __file__, variant, "--one", "--conns", str(args.conns), "--frames",
                        str(args.frames), "--rate", str(args.rate)], check=True, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
