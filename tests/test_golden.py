"""Refactors change no behaviour: stored answers of ``analyze`` and ``simulate`` (tests/golden/make_golden.py).

- ``paohuzi analyze --json --batch`` answers a stored corpus of 5,000 requests byte-identical.
- ``paohuzi simulate --seed 7`` gives the same per-bot results (timings aside), the same per-hand results and
  records whose old fields are unchanged (new fields may be added).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
TIMING = {"decision_ms", "elapsed_s", "seconds", "jobs"}


def _cli(*args: str, stdin: bytes | None = None) -> bytes:
    res = subprocess.run([sys.executable, "-m", "paohuzi.cli", *args], input=stdin, capture_output=True, check=False)
    assert res.returncode == 0, res.stderr.decode()[-2000:]
    return res.stdout


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def test_analyze_batch_answers_byte_identical() -> None:
    requests = (GOLDEN / "analyze_requests.jsonl").read_bytes()
    expected = (GOLDEN / "analyze_answers.jsonl").read_bytes().splitlines()
    got = _cli("analyze", "--json", "--batch", "-", stdin=requests).splitlines()
    assert len(got) == len(expected) == 5000
    diff = [i for i, (a, b) in enumerate(zip(got, expected, strict=True)) if a != b]
    assert not diff, (
        f"{len(diff)} answers differ, first at line {diff[0] + 1}:\n{got[diff[0]]!r}\n{expected[diff[0]]!r}"
    )


@pytest.mark.parametrize(
    ("name", "bots", "rules", "hands"),
    [("simulate_qq", "greedy,random,random", "qq", 20), ("simulate_hunan", "random,random,random", "hunan", 30)],
)
def test_simulate_results_and_records_identical(tmp_path: Path, name: str, bots: str, rules: str, hands: int) -> None:
    hands_out = tmp_path / "hands.jsonl"
    records = tmp_path / "records"
    out = _cli(
        "simulate",
        "--bots",
        bots,
        "--hands",
        str(hands),
        "--rules",
        rules,
        "--seed",
        "7",
        "--json",
        "--quiet",
        "--record",
        str(records),
        "--hands-out",
        str(hands_out),
    )
    assert _strip(json.loads(out)) == _strip(json.loads((GOLDEN / f"{name}.json").read_text()))
    got_hands = sorted(json.dumps(_strip(json.loads(x)), sort_keys=True) for x in hands_out.read_text().splitlines())
    want_hands = sorted(
        json.dumps(_strip(json.loads(x)), sort_keys=True)
        for x in (GOLDEN / f"{name}_hands.jsonl").read_text().splitlines()
    )
    assert got_hands == want_hands
    stored = sorted((GOLDEN / f"{name}_records").iterdir())
    assert [p.name for p in stored] == sorted(p.name for p in records.iterdir())
    for path in stored:
        old = json.loads(path.read_text())
        new = json.loads((records / path.name).read_text())
        for key, value in old.items():
            if key == "format_version":
                continue
            if key == "rules" and isinstance(value, dict):
                # new rule options may be added; the old ones keep their values
                assert {k: new["rules"].get(k) for k in value} == value, path.name
                continue
            assert new.get(key) == value, f"{path.name}: field {key!r} changed"
