"""What ``make test-fast`` runs smaller than ``make test`` (docs/DEVELOPING.md, "the fast loop"): the largest
hypothesis properties' example counts. ``make test-fast`` sets ``PAOHUZI_TEST_FAST=1``; ``make test`` and a
plain ``pytest`` run the full counts."""

from __future__ import annotations

import os

FAST = os.environ.get("PAOHUZI_TEST_FAST") == "1"


def examples(full: int) -> int:
    """A property's ``max_examples``: ``full`` in ``make test``, a quarter of it (at least 25) in ``make
    test-fast`` — the same strategies and checks, fewer cases; derandomized properties run the first of the
    same cases."""
    return max(25, full // 4) if FAST else full
