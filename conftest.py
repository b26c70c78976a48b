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
# first and the workers end together on the short ones: the browser tests (tests/web) first, longest first, then
# the rest, longest first. The seconds are each module's test time (setup + call + teardown) in one
# `pytest -n 4 -m "not soak" --durations=0` of 2026-12-06 04:05-04:20 UTC on a machine shared with other
# sessions (load 10-20: about three times a quiet run's; only their order counts). The browser tests stay
# together at the start of each worker's run, so that the one Chromium a worker launches (tests/web/conftest.py,
# for the package) is closed before the other tests run: Playwright's event loop, open while it runs, would
# refuse their asyncio.run(). A module missing here runs after these (tests/web's before the others); the list
# orders, it selects nothing.
LONGEST = (
    "tests/web/test_browser.py",  # 186
    "tests/web/test_families.py",  # 106
    "tests/web/test_dissolve.py",  # 82
    "tests/web/test_rooms.py",  # 78
    "tests/web/test_clubs.py",  # 76
    "tests/web/test_layout.py",  # 67
    "tests/web/test_liuhuqiang.py",  # 52
    "tests/web/test_fair.py",  # 49
    "tests/web/test_economy.py",  # 47
    "tests/web/test_account.py",  # 42
    "tests/web/test_public.py",  # 41
    "tests/web/test_review.py",  # 25
    "tests/web/test_hints.py",  # 19
    "tests/web/test_replay_codes.py",  # 18
    "tests/web/test_double_card.py",  # 18
    # the soak runs (make test only: make test-fast deselects them), the engine's ~170 s, the env's ~60 s
    "tests/engine/test_random_play.py",
    "tests/server/test_shared.py",
    "tests/server/test_leak.py",
    "tests/env/test_random_play.py",
    "tests/env/test_doc_commands.py",  # ~40 (docs/env.md's $ commands: training runs)
    "tests/server/test_ledger.py",
    # make test-fast's longest after the browser tests
    "tests/server/test_clubs.py",  # 162
    "tests/server/test_wallet_concurrency.py",  # 151
    "tests/test_compiled.py",  # 121 (its digest comparison's child processes: CPU)
    "tests/server/test_one_room.py",  # 100
    "tests/server/test_public.py",  # 97
    "tests/server/test_review.py",  # 86
    "tests/analysis/test_agreement.py",  # 81
    "tests/analysis/test_properties.py",  # 69 (hypothesis: CPU, so the most inflated by the load)
    "tests/server/test_security.py",  # 63
    "tests/server/test_accounts.py",  # 62
    "tests/engine/test_r4_r6_1_oracle_crosscheck.py",  # 57
    "tests/env/test_state.py",  # 57 (round trips at every position of random hands)
    "tests/server/test_recovery.py",  # 55
    "tests/server/test_play.py",  # 51
    "tests/bots/test_legality.py",  # 44
    "tests/bots/test_r9_legality.py",  # 43
    "tests/server/test_outsider.py",  # 42
    "tests/server/test_dissolve.py",  # 37
    "tests/analysis/test_accel.py",  # 35
    "tests/server/test_public_presets.py",  # 34
    "tests/bots/test_evaluation_accel.py",  # 33
    "tests/server/test_fair_deal.py",  # 32
    "tests/test_lint.py",  # 8 with mypy's cache (.mypy_cache), ~25 without (a fresh checkout; 116 at load 15)
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
