"""Fixtures for the browser tests (issue #6): a real ``paohuzi serve`` on a free port with a temporary SQLite
database, and Debian's Chromium driven by Python Playwright. No mocks (docs/DEVELOPING.md).

The tests fail — never skip — when Chromium or Playwright is missing: ``.ci/run`` installs Chromium.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("PAOHUZI_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"

# Fast computers and short pauses so that a whole hand takes seconds; people (the tests) get the normal time.
SERVER_ENV = {
    "PAOHUZI_BOT_DELAY": "0.03",
    "PAOHUZI_BETWEEN_HANDS": "0.3",
    "PAOHUZI_TURN_SECONDS": "60",
    "PAOHUZI_CLAIM_SECONDS": "60",
    "PAOHUZI_QUICK_HANDS": "2",
    "PAOHUZI_LOG_LEVEL": "WARNING",
}


class Server:
    """``paohuzi serve`` as a subprocess (``--port 0``; the port is read from its log)."""

    def __init__(self, workdir: Path, env: dict[str, str] | None = None) -> None:
        self.workdir = workdir
        self.env = dict(SERVER_ENV, **(env or {}))
        self.log_path = workdir / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> Server:
        env = dict(os.environ, **self.env)
        db = f"sqlite:///{self.workdir / 'paohuzi.sqlite3'}"
        cmd = [
            sys.executable,
            "-m",
            "paohuzi.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--database-url",
            db,
            "--plain-logs",
            "--log-level",
            "INFO",
        ]
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=self.workdir)
        pattern = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
            found = pattern.search(text)
            if found:
                self.port = int(found.group(1))
                return self
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{text[-3000:]}")
            time.sleep(0.05)
        raise RuntimeError("server did not start:\n" + self.log_path.read_text(errors="replace")[-3000:])

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("web-server")).start()
    try:
        yield srv
    finally:
        srv.stop()


# Seed 1 (``Match(find_preset("qq"), 1, players=3, owner=0)``): seat 0 deals the first hand and its first
# decision is a discard, before anyone could be offered 胡 (no 天胡, R6.4).
PLAYER_DEALS_SEED = 1


@pytest.fixture(scope="session")
def player_deals(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server in testing mode (docs/server.md, never in production) that deals every match from
    :data:`PLAYER_DEALS_SEED`: the player — quick play's seat 0, a created room's owner — deals the first
    hand, so a test's first decision is a discard and the hand cannot end before it (a random deal may: a
    dealt 天胡, or a computer's 碰 closing the player's 吃 window). For tests that need that; the others use
    ``server`` (random deals)."""
    env = {"PAOHUZI_TESTING": "1", "PAOHUZI_TEST_MATCH_SEED": str(PLAYER_DEALS_SEED)}
    srv = Server(tmp_path_factory.mktemp("web-player-deals"), env).start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        pytest.fail(
            f"Chromium is needed for the browser tests and was not found at {CHROMIUM} "
            "(apt-get install chromium; .ci/run does it)"
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
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture()
def artifacts(request: pytest.FixtureRequest) -> Path:
    """The test's screenshot folder: test-artifacts/web/<test name>/."""
    folder = ARTIFACTS / request.node.name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
