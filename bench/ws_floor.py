"""The floor under issue 33's "≤ 0.5 ms of server CPU per action": what the websocket edge alone costs.

A stand-in server does nothing but what every action asks of the edge — read one small ``act`` text frame, parse
its JSON, and write one ~1.5 KB text frame (an ``update``'s median size in tests/golden/) to each of the table's
three sockets — with no game, database, metrics or middleware. The clients behave as bench/load.py's: 300
tables of three websockets, one ``act`` a table per ``--think`` seconds, every frame read. What the server
process spends per ``act`` is the least any server built on that edge can spend; the game server's own figure
(bench/load.py's ``server_cpu_ms_per_action``) is that plus the game.

Edges (``--edge``):

- ``asgi``: uvicorn as the game server runs it (uvloop, the ``websockets-sansio`` protocol, no per-message
  deflate) under a bare ASGI app — no Starlette, no middleware — that sends with ASGI's ``websocket.send``
  (each frame a task of its own, as a broadcast to other sockets needs without waiting on each);
- ``asgi-raw``: the same, writing each frame to the transport itself as the game server does
  (``paohuzi.server.ws_frames.text_frame``);
- ``picows``: picows (Cython websockets on asyncio, uvloop), the same work — not a dependency of the project:
  ``.venv/bin/pip install picows==2.3.1`` first;
- issue 33's faster reads under uvicorn (bench/ws_read.py: the classes, the per-frame figures), each writing as
  ``asgi-raw``: ``asgi-fast``, frames parsed by the game's ``GameWebSocketProtocol`` (the ASGI queue kept);
  ``asgi-read``, read with its ``read()`` (no ASGI queue, no Starlette: what the server does since the evening
  of 2026-12-06); ``asgi-callback``, each frame handled in the protocol's ``data_received`` itself (no task a
  frame: picows' model, which a game ``act`` cannot use — it awaits its commit).

    .venv/bin/python bench/ws_floor.py --edge asgi-raw          # one JSON line per run
    for e in asgi asgi-raw picows asgi-raw; do .venv/bin/python bench/ws_floor.py --edge $e; done
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ws_read import DirectRead, FastParse  # bench/ws_read.py (the script's folder is on sys.path)

FRAME = json.dumps({"type": "update", "pad": "x" * 1500}, separators=(",", ":")).encode()
TICKS = os.sysconf("SC_CLK_TCK")


# ---- the servers ------------------------------------------------------------------------------------------


class _Tables:
    """Which writers each table has; ``acts`` counts the frames read."""

    def __init__(self) -> None:
        self.tables: dict[int, list[Any]] = {}
        self.acts = 0

    def join(self, table: int, writer: Any) -> None:
        self.tables.setdefault(table, []).append(writer)

    def leave(self, table: int, writer: Any) -> None:
        seats = self.tables.get(table, [])
        if writer in seats:
            seats.remove(writer)


def _serve_asgi(port: int, raw: bool, ws: Any = "websockets-sansio") -> None:
    import orjson
    import uvicorn

    from paohuzi.server.ws_frames import text_frame

    tables = _Tables()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                else:
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] == "http":  # the acts count, for the parent
            body = str(tables.acts).encode()
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        proto = send.__self__  # uvicorn's protocol: its transport, for the raw writes

        def write(payload: bytes) -> None:
            if raw:
                proto.transport.write(text_frame(payload))
            else:
                asyncio.ensure_future(send({"type": "websocket.send", "text": payload.decode()}))

        async def read() -> Any:
            if isinstance(proto, DirectRead):
                return await proto.read()
            message = await receive()
            return message["text"] if message["type"] == "websocket.receive" else None

        if isinstance(proto, DirectRead):
            proto.direct()
        if isinstance(proto, _Callback):
            await proto.serve(tables, write)
            return
        table = orjson.loads(await read())["table"]
        tables.join(table, write)
        try:
            while True:
                text = await read()
                if text is None:
                    return
                orjson.loads(text)
                tables.acts += 1
                for writer in tables.tables[table]:
                    writer(FRAME)
        finally:
            tables.leave(table, write)

    uvicorn.run(app, host="127.0.0.1", port=port, loop="uvloop", ws=ws, ws_per_message_deflate=False,
                log_level="warning", lifespan="on")


class _Callback(FastParse):
    """Each frame handled in ``data_received`` (``asgi-callback``); the app's task only waits for the end."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.handle: Any = None
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def serve(self, tables: _Tables, write: Any) -> None:
        import orjson

        table: list[int] = []

        def handle(text: str | bytes) -> None:
            data = orjson.loads(text)
            if not table:
                table.append(data["table"])
                tables.join(data["table"], write)
                return
            tables.acts += 1
            for writer in tables.tables[table[0]]:
                writer(FRAME)

        self.handle = handle
        try:
            await self.ended
        finally:
            if table:
                tables.leave(table[0], write)

    def _deliver(self, data: str | bytes) -> None:
        if self.handle is None:
            super()._deliver(data)
        else:
            self.handle(data)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if not self.ended.done():
            self.ended.set_result(None)


def _serve_picows(port: int) -> None:
    import orjson
    import uvloop

    try:
        from picows import WSFrame, WSListener, WSMsgType, WSTransport, ws_create_server
    except ImportError:
        sys.exit("bench/ws_floor.py --edge picows: picows is not installed (.venv/bin/pip install picows==2.3.1)")

    tables = _Tables()

    class Listener(WSListener):
        table: int | None = None
        transport: WSTransport

        def on_ws_connected(self, transport: WSTransport) -> None:
            self.transport = transport

        def write(self, payload: bytes) -> None:
            self.transport.send(WSMsgType.TEXT, payload)

        def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
            if frame.msg_type == WSMsgType.CLOSE:
                transport.send_close(frame.get_close_code())
                transport.disconnect()
                return
            if frame.msg_type == WSMsgType.PING:
                transport.send_pong(frame.get_payload_as_bytes())
                return
            data = orjson.loads(frame.get_payload_as_memoryview())
            if self.table is None:
                self.table = data["table"]
                tables.join(self.table, self.write)
                return
            tables.acts += 1
            for writer in tables.tables[self.table]:
                writer(FRAME)

        def on_ws_disconnected(self, transport: WSTransport) -> None:
            if self.table is not None:
                tables.leave(self.table, self.write)

    async def main() -> None:
        server = await ws_create_server(lambda _request: Listener(), "127.0.0.1", port)
        counter = await asyncio.start_server(_count_handler(tables), "127.0.0.1", port + 1)
        async with server, counter:
            await asyncio.Event().wait()

    uvloop.run(main())


EDGES: dict[str, Any] = {
    "asgi": "websockets-sansio",
    "asgi-raw": "websockets-sansio",
    "asgi-fast": FastParse,
    "asgi-read": DirectRead,
    "asgi-callback": _Callback,
}


def _count_handler(tables: _Tables) -> Any:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(100)
        body = str(tables.acts).encode()
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\nconnection: close\r\n\r\n" % len(body) + body)
        await writer.drain()
        writer.close()

    return handle


# ---- the clients ------------------------------------------------------------------------------------------


def _clients(port: int, tables: range, think: float, seconds: float, nice: int) -> None:
    os.nice(nice)
    import uvloop
    import websockets

    async def table(t: int) -> None:
        socks = [await websockets.connect(f"ws://127.0.0.1:{port}/ws", compression=None, max_size=None)
                 for _ in range(3)]
        for s in socks:
            await s.send(json.dumps({"table": t}))

        async def drain(s: Any) -> None:
            async for _ in s:
                pass

        readers = [asyncio.ensure_future(drain(s)) for s in socks]
        end = time.monotonic() + seconds
        await asyncio.sleep(random.uniform(0, think))
        n = 0
        while time.monotonic() < end:
            await socks[n % 3].send(json.dumps({"type": "act", "action": "d3", "id": n}))
            n += 1
            await asyncio.sleep(think * random.uniform(0.8, 1.2))
        for s in socks:
            await s.close()
        for r in readers:
            r.cancel()

    async def main() -> None:
        await asyncio.gather(*(table(t) for t in tables))

    uvloop.run(main())


# ---- the measurement --------------------------------------------------------------------------------------


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _acts(port: int) -> int:
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(4096):
            data += chunk
    return int(data.split(b"\r\n\r\n", 1)[1])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--edge", choices=[*EDGES, "picows"], default="asgi-raw")
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--think", type=float, default=1.0, help="seconds between a table's acts")
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--procs", type=int, default=2, help="client processes")
    parser.add_argument("--client-nice", type=int, default=10)
    parser.add_argument("--serve", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        if args.serve == "picows":
            _serve_picows(args.port)
        else:
            _serve_asgi(args.port, raw=args.serve != "asgi", ws=EDGES[args.serve])
        return
    port = _free_port()
    count_port = port + 1 if args.edge == "picows" else port
    server = subprocess.Popen([sys.executable, __file__, "--serve", args.edge, "--port", str(port)])
    try:
        for _ in range(100):
            try:
                _acts(count_port)
                break
            except OSError:
                time.sleep(0.1)
        total = args.warmup + args.duration + 5
        share = -(-args.tables // args.procs)
        procs = [
            multiprocessing.Process(
                target=_clients,
                args=(port, range(i * share, min(args.tables, (i + 1) * share)), args.think, total, args.client_nice),
            )
            for i in range(args.procs)
        ]
        for p in procs:
            p.start()
        time.sleep(args.warmup + args.think)
        cpu0, acts0, t0 = _cpu(server.pid), _acts(count_port), time.monotonic()
        time.sleep(args.duration)
        cpu1, acts1, t1 = _cpu(server.pid), _acts(count_port), time.monotonic()
        for p in procs:
            p.join()
    finally:
        server.terminate()
        server.wait()
    acts = acts1 - acts0
    print(json.dumps({
        "edge": args.edge,
        "tables": args.tables,
        "acts_per_s": round(acts / (t1 - t0), 1),
        "server_cpu": round((cpu1 - cpu0) / (t1 - t0), 3),
        "server_cpu_ms_per_act": round(1000 * (cpu1 - cpu0) / max(acts, 1), 3),
        "loadavg": os.getloadavg(),
    }))


if __name__ == "__main__":
    main()
