"""Root pytest configuration: the doctests of compiled modules (paohuzi/_compiled.py; docs/decisions.md, "The
compiled engine"), and the order in which the modules run (the fast loop, docs/DEVELOPING.md).

With the compiled engine active, a module of ``paohuzi._compiled.MODULES`` is an extension module, and pytest
cannot collect the doctests of its ``.py`` (the imported module is not that file). Those doctests run in
``make test``'s second pass (``PAOHUZI_PURE=1``), on the same source; the first pass runs every other test
against the compiled code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paohuzi import _compiled

ROOT = Path(__file__).resolve().parent

# The longest modules (seconds of test time under pytest -n 2, measured 2026-12-05 with --durations=0), run
# first. pyproject.toml distributes whole modules (--dist loadfile, so that a module's server starts once, on one
# worker) in the order collected (--no-loadscope-reorder): the longest first, and the two workers end together
# on the short ones. A module missing here only runs later; the list orders, it selects nothing.
LONGEST = (
    # the soak runs (make test only: make test-fast deselects them), the engine's ~170 s, the env's ~60 s
    "tests/engine/test_random_play.py",
    "tests/server/test_shared.py",
    "tests/server/test_leak.py",
    "tests/env/test_random_play.py",
    "tests/server/test_ledger.py",
    # make test-fast's longest
    "tests/web/test_browser.py",  # 154
    "tests/web/test_public.py",  # 74
    "tests/web/test_dissolve.py",  # 72
    "tests/web/test_rooms.py",  # 69
    "tests/server/test_one_room.py",  # 69
    "tests/web/test_economy.py",  # 62
    "tests/web/test_account.py",  # 43
    "tests/server/test_public.py",  # 40
    "tests/web/test_layout.py",  # 35
    "tests/test_lint.py",  # 25 (mypy without its cache)
    "tests/web/test_double_card.py",  # 25
    "tests/server/test_play.py",  # 21
    "tests/server/test_accounts.py",  # 21
    "tests/server/test_security.py",  # 18
    "tests/web/test_hints.py",  # 17
    "tests/server/test_recovery.py",  # 17
    "tests/bots/test_legality.py",  # 16
)
_RANK = {path: rank for rank, path in enumerate(LONGEST)}


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    if _compiled.ACTIVE and collection_path.suffix == ".py":
        if collection_path.resolve() in {_compiled.source_path(m) for m in _compiled.MODULES}:
            return True
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules of :data:`LONGEST` first, in its order; the others after them, as collected (a stable sort:
    the tests of a module keep their order)."""
    last = len(LONGEST)

    def rank(item: pytest.Item) -> int:
        try:
            path = item.path.resolve().relative_to(ROOT).as_posix()
        except ValueError:
            return last
        return _RANK.get(path, last)

    items.sort(key=rank)
