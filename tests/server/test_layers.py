"""The server's layers (docs/server.md): transport → application → persistence → domain, imports going
down only, checked with ``ast`` like tests/test_architecture.py does for the core."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[2] / "src" / "paohuzi" / "server"

# module -> the server modules it may import
ALLOWED = {
    "config": set(),
    "logs": set(),
    "protocol": set(),
    "models": set(),
    "store": {"models"},
    "db": {"logs", "models"},
    "bots": set(),
    "metrics": set(),  # reads the hub it is handed, imports none of it
    "connection": {"config", "logs"},
    "room": {"store", "bots", "connection", "logs", "hub"},  # hub: for type checking only
    "hub": {"protocol", "store", "config", "connection", "db", "logs", "room"},
    "ws": {"config", "connection", "hub", "logs", "metrics", "protocol", "room"},
    "api": {"protocol", "store", "connection", "hub", "room"},
    "app": {"api", "config", "connection", "db", "hub", "logs", "metrics", "room", "ws"},
}


def _server_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("paohuzi.server"):
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


def test_every_server_module_is_placed() -> None:
    modules = {p.stem for p in SERVER.glob("*.py")} - {"__init__"}
    assert modules == set(ALLOWED)


def test_the_core_never_imports_the_server() -> None:
    src = SERVER.parent
    for path in src.rglob("*.py"):
        if path.is_relative_to(SERVER) or path.is_relative_to(src / "commands"):
            continue
        assert "paohuzi.server" not in path.read_text(encoding="utf-8"), path
