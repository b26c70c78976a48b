"""Fixtures for the browser tests (issue #6): a real ``paohuzi serve`` on a free port with a temporary SQLite
database (tests/support/server.py ``running_web``), and Debian's Chromium driven by Python Playwright. No mocks
(docs/DEVELOPING.md).

The tests fail — never skip — when Chromium or Playwright is missing: ``.ci/run`` installs Chromium.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..support.server import ServerProcess, running_web
from .contexts import Contexts

# Debian's headless shell (package chromium-headless-shell: the same engine without the desktop browser, about a
# fifth less CPU for these tests: docs/DEVELOPING.md), else the full browser; PAOHUZI_CHROMIUM names another.
# .ci/need-chromium chooses (and installs) the same way.
CHROMIUM = os.environ.get("PAOHUZI_CHROMIUM") or next(
    (p for p in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if Path(p).is_file()), "/usr/bin/chromium"
)
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_web(tmp_path_factory.mktemp("web-server")) as srv:
        yield srv


# Seed 1 (``Match(find_preset("qq"), 1, players=3, owner=0)``): seat 0 deals the first hand and its first
# decision is a discard, before anyone could be offered 胡 (no 天胡, R6.4).
PLAYER_DEALS_SEED = 1


@pytest.fixture(scope="session")
def player_deals(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server in testing mode (docs/server.md, never in production) that deals every match from
    :data:`PLAYER_DEALS_SEED`: the player — quick play's seat 0, a created room's owner — deals the first
    hand, so a test's first decision is a discard and the hand cannot end before it (a random deal may: a
    dealt 天胡, or a computer's 碰 closing the player's 吃 window). For tests that need that; the others use
    ``server`` (random deals)."""
    env = {"PAOHUZI_TESTING": "1", "PAOHUZI_TEST_MATCH_SEED": str(PLAYER_DEALS_SEED)}
    with running_web(tmp_path_factory.mktemp("web-player-deals"), env) as srv:
        yield srv


@pytest.fixture(scope="package")
def browser() -> Iterator[Contexts]:
    """One Chromium for the browser tests a worker runs, as its :class:`Contexts` (each ``Person`` borrows a
    clean context of it and gives it back cleared: tests/web/contexts.py), closed when they are done:
    Playwright's event loop, open while it runs, would refuse the ``asyncio.run()`` of the tests that come
    after on the worker (the root conftest.py runs tests/web first)."""
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        pytest.fail(
            f"Chromium is needed for the browser tests and was not found at {CHROMIUM} "
            "(apt-get install chromium-headless-shell; .ci/run does it)"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - the dev extra installs it
        pytest.fail(f"Python Playwright is needed for the browser tests: {exc}")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
        )
        contexts = Contexts(chromium)
        try:
            yield contexts
        finally:
            contexts.close()
            chromium.close()


@pytest.fixture()
def artifacts(request: pytest.FixtureRequest) -> Path:
    """The test's screenshot folder: test-artifacts/web/<test name>/."""
    folder = ARTIFACTS / request.node.name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
