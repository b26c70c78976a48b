"""The R9 families on the compiled engine (mypyc) and the Python path: the same hands, event for event, the
same records and outcomes (囤, 醒, the 醒 card, 黄番's count), under random family options."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from paohuzi import _compiled

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import hashlib, json, random, sys
import paohuzi._compiled as c
from paohuzi.engine import Match
from paohuzi.rules import family_options, find_preset
digest = hashlib.sha256()
for preset in ("changde", "changde_qmt", "shihuka"):
    base = find_preset(preset)
    for seed in range(int(sys.argv[1])):
        rng = random.Random(seed)
        opts = {k: rng.choice(v) for k, v in family_options(base).items()
                if k not in ("stake", "rounds", "four_players", "first_dealer") and rng.random() < 0.5}
        rules = base.with_options(**opts)
        match = Match(rules, seed=seed, hands=3)
        while not match.over:
            if match.hand.over:
                match.next_hand()
                continue
            s = match.deciding[0]
            acts = match.legal_actions(s)
            match.apply(s, rng.choice(acts))
            digest.update(json.dumps(match.observation(s), sort_keys=True).encode())
        for r in match.results:
            digest.update(json.dumps(r.record, sort_keys=True).encode())
        digest.update(json.dumps([e.to_dict() for e in match.hand.events], sort_keys=True).encode())
print("compiled" if c.ACTIVE else "python", digest.hexdigest())
"""


def _run(hands: int, **env: str) -> list[str]:
    environ = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **env}
    if "PAOHUZI_PURE" not in env:
        environ.pop("PAOHUZI_PURE", None)
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(hands)], env=environ, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.skipif(not _compiled.MANIFEST.exists(), reason="the compiled engine is not built")
def test_r9_compiled_and_python_paths_agree() -> None:
    compiled, python = _run(8), _run(8, PAOHUZI_PURE="1")
    assert compiled[0] == "compiled" and python[0] == "python"
    assert compiled[1] == python[1]
