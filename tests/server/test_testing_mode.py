"""The test-only fixed deal (docs/server.md): ``PAOHUZI_TEST_MATCH_SEED`` without ``PAOHUZI_TESTING=1`` is
refused — the server does not start — so a stray variable cannot make a production server deal the same
cards every time. (tests/web/test_rooms.py plays a fixed deal with both set.) The same for the test servers'
cheap password hashes (``PAOHUZI_TEST_CHEAP_PASSWORDS``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from paohuzi.server.config import Settings


def test_a_fixed_seed_without_testing_mode_stops_the_server(tmp_path: Path) -> None:
    env = dict(os.environ, PAOHUZI_TEST_MATCH_SEED="5149")
    env.pop("PAOHUZI_TESTING", None)
    cmd = [sys.executable, "-m", "paohuzi.cli", "serve", "--port", "0", "--database-url", f"sqlite:///{tmp_path}/x.db"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2
    assert "PAOHUZI_TEST_MATCH_SEED" in done.stdout and "PAOHUZI_TESTING=1" in done.stdout, done.stdout


def test_cheap_password_hashes_without_testing_mode_are_refused() -> None:
    with pytest.raises(ValueError, match="PAOHUZI_TEST_CHEAP_PASSWORDS .* needs PAOHUZI_TESTING=1"):
        Settings.from_env({"PAOHUZI_TEST_CHEAP_PASSWORDS": "1"})
    assert Settings.from_env({"PAOHUZI_TEST_CHEAP_PASSWORDS": "1", "PAOHUZI_TESTING": "1"}).test_cheap_passwords
