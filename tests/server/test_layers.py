"""The server's layers (docs/server.md): transport → application → persistence → domain, imports going
down only, checked with ``ast`` like tests/test_architecture.py does for the core."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[2] / "src" / "paohuzi" / "server"

# module -> the server modules it may import (at any depth, type-only imports too)
ALLOWED = {
    "config": set(),
    "logs": set(),
    "gc_tuning": set(),  # the process's garbage collector, tuned at start-up (issue 33)
    "protocol": set(),
    "frames": set(),
    "models": set(),
    "statements": {"models"},  # per-hand Core statements run by sqlite3 on SQLite (issue 33)
    "rows": {"frames", "models", "room_options"},  # a stored room's options are read back as RoomOptions
    "names": {"models"},  # what a computer seat is called (电脑2·高手)
    "store": {"models", "names", "room_options", "rows", "statements"},
    "accounts": set(),
    "account_store": {"db", "economy", "ledger_store", "models", "rows", "store", "wallet"},
    "economy": set(),
    "crash": set(),  # the kill -9 test hook (PAOHUZI_TEST_CRASH_AT)
    "double_cards": {"db", "models", "statements", "store", "wallet"},  # 双倍积分卡 (issue 13 §3)
    "ledger_store": {"crash", "db", "double_cards", "economy", "models", "statements", "store", "wallet"},
    "wallet": {"models", "statements"},  # a wallet change under concurrency: row locks, increments (issue 27)
    "profile_store": {"economy", "models", "store"},
    "db_appends": {"models", "rows"},  # the appends-only batch in sqlite3's and psycopg's terms (issue 33)
    "schema": set(),  # the packaged alembic migrations, run at start-up or by `paohuzi migrate`
    "db_worker": {"logs", "rows"},  # a connection and its thread: group commit, a bad job alone (issue 33)
    "db_engine": set(),  # the engine: its URL and each connection's settings
    "db_pg_loop": {"db_appends", "db_worker", "logs"},  # PostgreSQL's appends sent from the event loop (issue 33)
    "db": {"db_appends", "db_engine", "db_pg_loop", "db_worker", "logs", "models", "rows", "schema", "statements"},
    "process_pool": set(),  # worker processes that end with the server (bots, reviews)
    "bots": {"process_pool"},
    "metrics": set(),  # reads the hub it is handed, imports none of it
    "connection": {"config", "logs", "ws_frames"},
    "registry": {"connection", "frames", "rows"},
    "services": {"bots", "config", "db", "frames", "logs"},
    "turns": {"bots", "frames"},
    # 可验证发牌 (issue 32): a deal's commitment and client seeds, for the room and its game
    "fair_deal": {"config", "frames", "services", "turns"},
    "game": {
        *("crash", "double_cards", "frames", "ledger_store", "logs", "names", "room_options", "services", "store"),
        *("fair_deal", "sent", "turns"),
    },
    "sent": set(),  # what each seat was sent (seq), counted again from a hand's actions after a take-over
    "room": {"dissolve", "fair_deal", "frames", "game", "logs", "room_options", "services", "store", "turns"},
    "dissolve": {"frames", "game", "logs", "rows", "services", "store", "turns"},  # R8.2: the vote the room holds
    "hints": {"frames", "room"},  # 提示 (issue #16): the room is only read (type-only import)
    "queue_store": {"models", "store"},
    "matchmaking": {"config", "db", "economy", "frames", "logs", "queue_store"},  # 匹配 (issue 13 §4)
    "public": {  # 匹配's tables: a collaborator of the hub holding the ports it needs
        *("config", "db", "frames", "logs", "matchmaking", "ports", "protocol", "room", "room_options"),
        *("seating", "services", "store"),
    },
    # 亲友圈 (issue 31): the statistics (pure), the store, the tables, the clubs (a collaborator of the hub)
    "club_stats": set(),
    "club_store": {"models", "store"},
    "club_records": {"club_stats", "models", "names", "store"},
    "club_tables": {
        *("club_records", "club_store", "db", "frames", "logs", "ports", "room", "room_options", "services"),
        "store",
    },
    "clubs": {
        *("club_records", "club_stats", "club_store", "club_tables", "config", "db", "frames", "logs", "ports"),
        *("protocol", "room_options", "services"),
    },
    "club_api": {
        *("account_store", "api", "club_records", "club_stats", "club_store", "clubs", "frames", "hub", "limits"),
        *("protocol", "room", "rows"),
    },
    "room_options": {"config", "economy", "frames", "protocol"},  # a lobby request's room options (R8)
    "seating": {"frames", "logs", "room_options"},  # one room per player (issue 27): the claims
    "directory": {"room"},  # rooms by code, players' seats, the seat mirror port (one process, or Redis)
    # the hub's ports (Protocols) and their one-process implementations
    "ports": {"directory", "frames", "matchmaking", "protocol", "registry", "room", "seating", "services"},
    "hub": {
        *("bots", "config", "connection", "db", "frames", "logs"),
        *("protocol", "registry", "room", "services", "store", "accounts", "account_store", "hints"),
        *("economy", "ledger_store", "ports", "public", "room_options", "seating", "clubs"),
    },
    "lease": {"logs"},  # the shared mode (issue 14): room leases in Redis
    "limits": {"connection", "logs"},  # rate limits: in memory, or in Redis in the shared mode
    "relay_messages": set(),  # the shared mode: the typed messages between processes, to and from the wire
    "resp": {"logs"},  # the relay's own Redis connections, RESP2 spoken directly (issue 33)
    "relay": {"connection", "directory", "frames", "logs", "registry", "relay_messages", "resp"},  # Redis pub/sub
    "shared_queue": {"config", "frames", "logs", "matchmaking", "relay", "relay_messages"},  # the Redis 匹配 queue
    "edge": {  # the shared mode: rooms of other processes, for the websockets here
        *("db", "directory", "frames", "lease", "protocol", "relay", "relay_messages", "services", "store"),
    },
    "shared": {  # the shared mode: leased rooms, adoption, the relay's listener
        *("config", "db", "directory", "edge", "frames", "hub", "lease", "logs", "ports", "protocol"),
        *("relay", "relay_messages", "room", "services", "store"),
    },
    "wiring": {  # the composition root: the hub and its ports for each deployment
        *("config", "db", "directory", "edge", "hub", "lease", "logs", "matchmaking", "ports", "registry"),
        *("relay", "room", "seating", "services", "shared", "shared_queue", "store"),
    },
    "account_api": {
        *("account_store", "accounts", "double_cards", "economy", "hub", "ledger_store", "limits", "room"),
        *("api", "frames"),  # AS_JSON, the answers' types
    },
    "ws": {"config", "connection", "frames", "hub", "logs", "metrics", "protocol", "room", "ws_protocol"},
    "ws_protocol": {"ws_frames"},  # uvicorn's websocket protocol with the game's read path (issue 33)
    "ws_frames": set(),  # the game websocket's framing, compiled where built (issue 33)
    "api": {"economy", "frames", "profile_store", "protocol", "rows", "store", "hub", "limits", "room"},
    "profile_api": {"account_api", "api", "economy", "frames", "hub", "profile_store", "room", "rows", "store"},
    # 复盘 (issue 34): the routes, their worker processes and the hand_reviews jobs
    "review_api": {"api", "hub", "limits", "models", "process_pool", "room", "store"},
    "app": {
        *("account_api", "api", "profile_api", "config", "connection", "db", "hub", "logs", "metrics", "room"),
        *("limits", "wiring", "ws", "club_api", "review_api", "watchdog", "gc_tuning"),
    },
    "watchdog": set(),  # sd_notify: READY=1, WATCHDOG=1, STOPPING=1 to systemd (issue 35)
}
# What a room works with: none of these may reach the hub, not even at run time through an object.
BELOW_HUB = ("room", "dissolve", "game", "turns", "services", "registry", "frames")


def _server_imports(path: Path) -> set[str]:
    """The server modules ``path`` imports: ``import paohuzi.server.x``, ``from paohuzi.server.x import …``
    and ``from paohuzi.server import x``, anywhere in the file (inside functions and ``if TYPE_CHECKING:``
    too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[:2] == ["paohuzi", "server"] and len(parts) > 2:
                    found.add(parts[2])
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("paohuzi.server"):
            parts = node.module.split(".")
            if len(parts) > 2:
                found.add(parts[2])
            else:
                found.update(a.name for a in node.names)
    return found


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_server_imports_go_down(name: str) -> None:
    extra = _server_imports(SERVER / f"{name}.py") - ALLOWED[name] - {name}
    assert not extra, f"server/{name}.py imports {sorted(extra)}"


def test_the_import_finder_sees_nested_and_plain_imports(tmp_path: Path) -> None:
    code = (
        "import paohuzi.server.hub\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from paohuzi.server.db import Database\ndef f():\n    from paohuzi.server import ws\n"
    )
    path = tmp_path / "x.py"
    path.write_text(code, encoding="utf-8")
    assert _server_imports(path) == {"hub", "db", "ws"}


def _hub_references(path: Path) -> list[str]:
    """Names, attributes, arguments and strings in ``path`` that could reach the hub at run time."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name) and "hub" in node.id.lower():
            found.append(f"{node.lineno}: name {node.id}")
        elif isinstance(node, ast.Attribute) and "hub" in node.attr.lower():
            found.append(f"{node.lineno}: attribute .{node.attr}")
        elif isinstance(node, ast.arg) and "hub" in node.arg.lower():
            found.append(f"{node.lineno}: argument {node.arg}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "server.hub" in node.value:
            found.append(f"{node.lineno}: string {node.value[:40]!r}")
    return found


@pytest.mark.parametrize("name", BELOW_HUB)
def test_a_room_never_reaches_the_hub(name: str) -> None:
    """Issue #10: the room used to import the hub for its types and use ``self.hub`` at run time (a cycle
    through an object). A room gets :class:`RoomServices` — ports, not the hub."""
    assert "hub" not in _server_imports(SERVER / f"{name}.py")
    assert _hub_references(SERVER / f"{name}.py") == []


def test_the_hub_finder_sees_runtime_use(tmp_path: Path) -> None:
    path = tmp_path / "x.py"
    path.write_text("def f(hub):\n    self.hub.conns\n    importlib.import_module('paohuzi.server.hub')\n")
    assert sorted(r.split(":")[0] for r in _hub_references(path)) == ["1", "2", "3"]


def test_every_server_module_is_placed() -> None:
    modules = {p.stem for p in SERVER.glob("*.py")} - {"__init__"}
    assert modules == set(ALLOWED)


def test_the_core_never_imports_the_server() -> None:
    src = SERVER.parent
    for path in src.rglob("*.py"):
        if path.is_relative_to(SERVER) or path.is_relative_to(src / "commands"):
            continue
        assert "paohuzi.server" not in path.read_text(encoding="utf-8"), path
