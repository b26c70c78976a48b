"""Issue 33: what reading one client frame costs the server — uvicorn's own websocket protocol against the game's
(``paohuzi.server.ws_protocol.GameWebSocketProtocol``, which the server gives uvicorn as ``ws=``).

uvicorn's ``websockets-sansio`` protocol reads a frame through websockets' sans-I/O parser (generator-based), a
``websocket.receive`` dict put on an ``asyncio.Queue``, reading paused until the app takes it, Starlette's
``WebSocket.receive``. The game's protocol parses whole, unfragmented, masked text/binary/ping/pong frames itself
(anything else goes to websockets' parser: tests/server/test_ws_protocol.py compares the bytes answered) and,
once the endpoint calls ``direct()``, is read with ``await protocol.read()``. The variants:

- ``null``: the floor, a bare protocol that only counts the bytes (uvloop's wake-up, the ``recv``);
- ``stock``: uvicorn's protocol, read through Starlette as the game server did before;
- ``fast`` (:class:`FastParse`): the game's parser, still read through the ASGI queue;
- ``read`` (:class:`DirectRead`): the game's read path as the server has it.

Each: ``--conns`` real sockets (socket pairs) into a uvloop server process, a client process writing act-sized
masked text frames at ``--rate`` frames a second, one frame a write (a frame a wake-up, as at people's pace); the
server's CPU seconds over the frames read.

    .venv/bin/python bench/ws_read.py                    # null, stock, fast, read; one line each

Figures (2026-12-06 14:40–15:10 UTC, the defaults: 50 sockets, 5,000 frames/s, 50,000 frames; a shared 2-core
machine, load average 2–5), µs of server CPU a frame, one run each, with this script's first classes (the same
design, since moved into the server):

| run | null | stock | fast | read |
|---|---:|---:|---:|---:|
| 1 (load 4–5) | — | 35.3 | 29.3 | 19.3 |
| 2 | — | 37.8 | 28.1 | 18.9 |
| 3 (load 3–5) | 10.3 | 45.7 | 30.5 | 20.1 |
| 4 | 8.9 | 32.7 | 25.7 | 21.1 |
| 5 (load 2.2) | 9.6 | 38.3 | 31.7 | 21.1 |

So the read path gives back ~10–20 µs a frame. Sequential bench/load.py runs could not resolve it that
afternoon (the same source spread 0.72–1.11 ms an action over five runs); concurrent pairs that evening did:
−0.02 to −0.05 ms an action at 300 tables (docs/PERFORMANCE.md, "Issue 33: the game websocket's read path …"),
and it was adopted. In bench/ws_floor.py's stand-in the read paths gave (ms an action, three runs each, load
2–4): ``asgi-raw`` 0.200, 0.175, 0.224; ``asgi-fast`` 0.176 (0.17, 0.17 earlier); ``asgi-read`` 0.180, 0.134,
0.158; ``asgi-callback`` 0.109, 0.114, 0.148 — the rest of the gap to picows (0.108–0.128) is the task an ``act``
is handled on, which the game needs (an ``act`` awaits its commit; starting it inside ``data_received`` needs
Python 3.12's eager tasks).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import time
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.speedups import apply_mask

from paohuzi.server.ws_protocol import GameWebSocketProtocol

_TEXT = 0x81  # FIN, no reserved bits, text


class FastParse(GameWebSocketProtocol):
    """The game's parser (``paohuzi.server.ws_protocol``) with the frames still read through the ASGI queue and
    Starlette: the endpoint never calls ``direct()``."""


class DirectRead(GameWebSocketProtocol):
    """The game's read path as the server has it: ``direct()``, then ``await protocol.read()``."""


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
        if isinstance(protocol, DirectRead):
            protocol.direct()
            while (data := await protocol.read()) is not None:
                orjson.loads(data)
                count[0] += 1
            return
        while (message := await websocket.receive())["type"] == "websocket.receive":
            orjson.loads(message["text"])
            count[0] += 1

    classes = {"stock": WebSocketsSansIOProtocol, "fast": FastParse, "read": DirectRead}
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("variants", nargs="*", default=["null", "stock", "fast", "read"])
    parser.add_argument("--conns", type=int, default=50)
    parser.add_argument("--frames", type=int, default=50_000)
    parser.add_argument("--rate", type=float, default=5000.0, help="frames a second, all sockets together")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
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
