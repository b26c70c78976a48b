"""The server process's garbage collector, tuned once it is set up (issue 33, server/gc_tuning.py): what was made
so far frozen, the young threshold raised — and left as Python sets it with ``PAOHUZI_GC_DEFAULT=1``. Each case
runs in a fresh interpreter: the collector's settings belong to the whole process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import gc
from paohuzi.server import gc_tuning
before = gc.get_threshold()
changed = gc_tuning.tune()
cycle = []
cycle.append(cycle)  # made after the freeze: a cycle the collector still finds
del cycle
print(changed, before, gc.get_threshold(), gc.get_freeze_count() > 1000, gc.collect() >= 1)
"""


@pytest.mark.parametrize(
    ("default", "expected"),
    [
        ("", "True (700, 10, 10) (20000, 10, 10) True True"),
        ("1", "False (700, 10, 10) (700, 10, 10) False True"),
    ],
)
def test_tune_freezes_start_up_and_raises_the_young_threshold(default: str, expected: str) -> None:
    env = {**os.environ, "PAOHUZI_GC_DEFAULT": default}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == expected
