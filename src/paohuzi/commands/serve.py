"""``paohuzi serve``: run the online play server (docs/server.md).

Settings come from ``PAOHUZI_*`` environment variables (see :class:`paohuzi.server.config.Settings`);
the options below override them.
"""

from __future__ import annotations

import argparse

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
    parser.add_argument("--log-level", default=None, help="logging level (default INFO)")
    parser.add_argument("--plain-logs", action="store_true", help="human-readable logs instead of JSON lines")
    parser.set_defaults(run=run)
    return parser


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
            log_json=False if args.plain_logs else None,
        )
    except ValueError as exc:
        print(f"paohuzi serve: {exc}")
        return 2
    log_config = configure(settings.log_level, settings.log_json)
    config = uvicorn.Config(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        ws_max_size=settings.max_frame,
        ws_per_message_deflate=False,  # frames are small; compressing each costs more CPU than it saves
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        log_config=log_config,
        server_header=False,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    server.run()
    return 0
