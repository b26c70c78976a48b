"""Imports go one way (STYLE 1): cards → groups → rules → analysis → scoring → engine → {bots, env, server}.

Each module may import only the layers below it; the engine stays pure (no I/O, no clock, no global random).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "paohuzi"

# layer -> the paohuzi layers it may import
ALLOWED = {
    "cards": set(),
    "groups": {"cards"},
    "rules": {"cards"},
    "analysis": {"cards", "groups", "rules"},
    "scoring": {"cards", "groups", "rules", "analysis"},
    "engine": {"cards", "groups", "rules", "analysis", "scoring"},
    "bots": {"cards", "groups", "rules", "analysis", "scoring", "engine", "stats"},
    "stats": set(),
    "env": {"cards", "groups", "rules", "analysis", "scoring", "engine", "bots"},
}
# Modules the pure core must never import (R2 decision: a hand is reproducible from rules, seed, actions).
IMPURE = {"time", "datetime", "socket", "asyncio", "os", "subprocess", "threading", "sqlalchemy", "fastapi"}
PURE_LAYERS = {"cards", "groups", "rules", "analysis", "scoring", "engine"}


def _layer(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0].removesuffix(".py")


def _imports(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            continue
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
    return found


FILES = sorted(p for p in SRC.rglob("*.py") if _layer(p) in ALLOWED)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_imports_go_one_way(path: Path) -> None:
    layer = _layer(path)
    for name, line in _imports(path):
        parts = name.split(".")
        if parts[0] == "paohuzi" and len(parts) > 1:
            target = parts[1]
            assert target == layer or target in ALLOWED[layer], f"{path.name}:{line} ({layer}) imports {name}"
        if layer in PURE_LAYERS:
            assert parts[0] not in IMPURE, f"{path.name}:{line}: the pure core imports {name}"
        if layer in PURE_LAYERS and parts[0] == "random":
            # Only seeded generators: `random.Random(seed)`; checked below for module-level calls.
            pass


@pytest.mark.parametrize("path", [p for p in FILES if _layer(p) in PURE_LAYERS], ids=lambda p: str(p.relative_to(SRC)))
def test_core_uses_no_global_random(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
            and node.attr not in ("Random",)
        ):
            raise AssertionError(f"{path.name}:{node.lineno}: random.{node.attr} uses the global random state")
