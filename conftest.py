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

# The order in which the modules run. pyproject.toml distributes whole modules (--dist loadfile: a module's
# server starts once, on one worker) in the order collected (--no-loadscope-reorder), so that the longest start
# first and the two workers end together on the short ones: the browser tests (tests/web) first, longest
# first, then the rest, longest first (seconds of test time under pytest -n 2, measured 2026-12-05 with
# --durations=0). The browser tests stay together at the start of each worker's run, so that the one Chromium a
# worker launches (tests/web/conftest.py, for the package) is closed before the other tests run: Playwright's
# event loop, open while it runs, would refuse their asyncio.run(). A module missing here runs after these
# (tests/web's before the others); the list orders, it selects nothing.
LONGEST = (
    "tests/web/test_browser.py",  # 154
    "tests/web/test_public.py",  # 74
    "tests/web/test_dissolve.py",  # 72
    "tests/web/test_rooms.py",  # 69
    "tests/web/test_families.py",  # 80 measured at load 14 without the accelerator (issue 29); less when quiet
    "tests/web/test_economy.py",  # 62
    "tests/web/test_account.py",  # 43
    "tests/web/test_layout.py",  # 35
    "tests/web/test_liuhuqiang.py",  # 23 (four browsers, one hand) at load 16
    "tests/web/test_double_card.py",  # 25
    "tests/web/test_hints.py",  # 17
    # the soak runs (make test only: make test-fast deselects them), the engine's ~170 s, the env's ~60 s
    "tests/engine/test_random_play.py",
    "tests/server/test_shared.py",
    "tests/server/test_leak.py",
    "tests/env/test_random_play.py",
    "tests/env/test_doc_commands.py",  # ~40 (docs/env.md's $ commands: training runs)
    "tests/server/test_ledger.py",
    # make test-fast's longest after the browser tests
    "tests/server/test_one_room.py",  # 69
    "tests/server/test_public.py",  # 40
    "tests/test_lint.py",  # 25 (mypy without its cache)
    "tests/server/test_play.py",  # 21
    "tests/env/test_state.py",  # 20 (round trips at every position of random hands)
    "tests/server/test_accounts.py",  # 21
    "tests/server/test_security.py",  # 18
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
    """tests/web first, then the rest; in each, the modules of :data:`LONGEST` in its order, then the others as
    collected (a stable sort: the tests of a module keep their order)."""
    last = len(LONGEST)

    def rank(item: pytest.Item) -> tuple[bool, int]:
        try:
            path = item.path.resolve().relative_to(ROOT).as_posix()
        except ValueError:
            return True, last
        return not path.startswith("tests/web/"), _RANK.get(path, last)

    items.sort(key=rank)
