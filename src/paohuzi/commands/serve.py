"""``paohuzi serve``: run the online play server (docs/server.md).

Settings come from ``PAOHUZI_*`` environment variables (see :class:`paohuzi.server.config.Settings`);
the options below override them.
"""

from __future__ import annotations

import argparse
import logging
import signal
import socket
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import uvicorn
    from fastapi import FastAPI

    from paohuzi.server.config import Settings

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "serve",
        help="run the game server (lobby HTTP API, game websocket, web client)",
        description="Run the paohuzi game server. SQLite under ./data/ by default; PostgreSQL with "
        "--database-url postgresql+psycopg://user@host/db (or PAOHUZI_DATABASE_URL).",
    )
    parser.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help="port to listen on (default 8000)")
    parser.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy database URL (default $PAOHUZI_DATABASE_URL or sqlite:///data/paohuzi.sqlite3)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=None,
        metavar="ORIGIN",
        help="a browser origin allowed on the websocket besides the server's own (repeatable)",
    )
    parser.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="ADDRS",
        help="comma-separated proxy addresses or networks whose X-Forwarded-For/-Proto headers are "
        "trusted (e.g. 127.0.0.1 behind a same-host nginx); default $PAOHUZI_FORWARDED_ALLOW_IPS or "
        "nobody: the client address is always the TCP peer's",
    )
    parser.add_argument(
        "--docs", action="store_true", default=None, help="serve the Swagger UI at /docs (loads it from a CDN)"
    )
    parser.add_argument("--log-level", default=None, help="logging level (default INFO)")
    parser.add_argument("--plain-logs", action="store_true", help="human-readable logs instead of JSON lines")
    parser.set_defaults(run=run)
    return parser


def _ips(text: str | None) -> tuple[str, ...] | None:
    """``--forwarded-allow-ips`` as a tuple (None: not given).

    >>> _ips("127.0.0.1, 10.0.0.0/8"), _ips(None)
    (('127.0.0.1', '10.0.0.0/8'), None)
    """
    if text is None:
        return None
    return tuple(part.strip() for part in text.split(",") if part.strip())


def listen_socket(host: str, port: int, recv_buffer: int) -> socket.socket:
    """The listening socket, made here (not by uvicorn) to set ``SO_RCVBUF`` before ``listen``: accepted
    sockets inherit it (see ``Settings.recv_buffer_bytes``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if recv_buffer > 0:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, recv_buffer)
    sock.bind((host, port))
    sock.listen(2048)  # from now on connections wait in the backlog until the app has started
    sock.set_inheritable(True)
    return sock


def uvicorn_config(app: FastAPI, settings: Settings, log_config: dict[str, object] | None) -> uvicorn.Config:
    """How uvicorn serves the app (``paohuzi serve``, and the tests' servers in a thread): the game's websocket
    protocol, its limits and keepalive, the trusted proxies."""
    import uvicorn

    from paohuzi.server.ws_protocol import GameWebSocketProtocol

    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        ws=GameWebSocketProtocol,  # uvicorn's websockets-sansio, with the game's read path (issue 33)
        ws_max_size=settings.max_frame,
        ws_per_message_deflate=False,  # frames are small; compressing each costs more CPU than it saves
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        log_config=log_config,
        server_header=False,
        # Trusted proxies are explicit (issue 14): uvicorn would otherwise believe X-Forwarded-For from
        # 127.0.0.1, so anything that can reach the port through a same-host proxy picks its own address.
        proxy_headers=bool(settings.forwarded_allow_ips),
        forwarded_allow_ips=list(settings.forwarded_allow_ips),
        lifespan="on",
    )


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from paohuzi.server.app import create_app
    from paohuzi.server.config import Settings
    from paohuzi.server.logs import configure

    try:
        settings = Settings.from_env(
            host=args.host,
            port=args.port,
            database_url=args.database_url,
            allow_origins=tuple(args.allow_origin) if args.allow_origin else None,
            log_level=args.log_level,
            forwarded_allow_ips=_ips(args.forwarded_allow_ips),
            docs=args.docs,
            log_json=False if args.plain_logs else None,
        )
    except ValueError as exc:
        print(f"paohuzi serve: {exc}")
        return 2
    log_config = configure(settings.log_level, settings.log_json, settings.access_log)
    app = create_app(settings)
    config = uvicorn_config(app, settings, log_config)
    server = uvicorn.Server(config)

    def stop() -> None:  # what SIGTERM does, without the signal (uvicorn re-raises it once stopped)
        server.should_exit = True

    app.state.stop = stop
    try:
        sock = listen_socket(settings.host, settings.port, settings.recv_buffer_bytes)
    except OSError as exc:
        print(f"paohuzi serve: cannot listen on {settings.host}:{settings.port}: {exc}")
        return 1
    port = sock.getsockname()[1]
    host = f"[{settings.host}]" if ":" in settings.host else settings.host

    def started() -> None:  # uvicorn says this itself only when it makes the socket
        logging.getLogger("uvicorn.error").info("Uvicorn running on http://%s:%d (Press CTRL+C to quit)", host, port)

    app.state.on_started = started

    def terminated(_sig: int, _frame: FrameType | None) -> None:
        # uvicorn handles SIGTERM while it runs (a clean shutdown: the hand-over, docs/server.md) and then
        # raises it again to the handler it found — this one, so that a clean stop exits with status 0
        # rather than dying of the signal (-15). Before uvicorn took over it stops the start-up the same way.
        server.should_exit = True

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)
    if app.state.fenced:
        print("paohuzi serve: stopped: another server process took the database over (writer fence)")
        return 3
    return 0
