"""A test hook for crash tests (issue 13 acceptance: "kill -9 during settlement"): :func:`crash_point` kills
the server process with SIGKILL — no clean-up, no commit, exactly ``kill -9`` — at a named point, when and
only when the environment variable ``PAOHUZI_TEST_CRASH_AT`` names that point **and** the server is in
testing mode (``PAOHUZI_TESTING=1``, as for ``PAOHUZI_TEST_MATCH_SEED``). Never set them in production.

Points: ``settle_begin`` (the hand marked settled, its ledger rows not yet written, nothing committed),
``settle_end`` (every row written, not committed), ``settled`` (committed, nothing sent to the players).
"""

from __future__ import annotations

import os
import signal

__all__ = ["crash_point", "CRASH_ENV"]

CRASH_ENV = "PAOHUZI_TEST_CRASH_AT"


def crash_point(name: str) -> None:
    """Die here with SIGKILL if ``PAOHUZI_TEST_CRASH_AT`` is ``name`` in testing mode (test hook)."""
    if os.environ.get(CRASH_ENV) == name and os.environ.get("PAOHUZI_TESTING") == "1":
        os.kill(os.getpid(), signal.SIGKILL)
