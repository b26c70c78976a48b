"""Write the golden corpora that prove refactors change no behaviour (issue #10, #15 acceptance).

- ``analyze_requests.jsonl``: 5,000 seeded ``paohuzi analyze --json`` requests (all presets, tables, cards from
  every source, waits, 海底, 天胡) and ``analyze_answers.jsonl``: the answers of the code at the time it was
  written. tests/test_golden.py checks that ``analyze --json --batch`` still answers byte-identical.
- ``simulate_*.json``: ``paohuzi simulate --json`` results for fixed seeds, and the records of those hands.

Regenerate only when a rule change is *meant* to change answers, and say so in the commit.
Run: ``python -m tests.golden.make_golden`` (from the repository root: ``tests`` is a package).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from paohuzi.cards import format_cards

from ..analysis.cases import generate

HERE = Path(__file__).resolve().parent

PRESETS = ("qq", "hunan", "hengyang", "huayang")


def requests(seed: int = 20261201, n: int = 5000) -> list[dict[str, object]]:
    rng = random.Random(seed)
    out: list[dict[str, object]] = []
    for case in generate(seed, n):
        req: dict[str, object] = {"rules": rng.choice(PRESETS), "hand": format_cards(case.hand)}
        if case.table:
            req["table"] = [{"kind": g.kind.name.lower(), "cards": format_cards(g.cards)} for g in case.table]
        if case.card is not None:
            req["card"] = str(case.card)
            req["source"] = case.source if case.source != "none" else "self"
        r = rng.random()
        if r < 0.05:
            req["last_card"] = True
        elif r < 0.08 and not case.table:
            req["tianhu"] = True
        out.append(req)
    return out


def main() -> None:
    reqs = requests()
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in reqs)
    (HERE / "analyze_requests.jsonl").write_text(text, encoding="utf-8")
    res = subprocess.run(
        [sys.executable, "-m", "paohuzi.cli", "analyze", "--json", "--batch", "-"],
        input=text.encode(),
        capture_output=True,
        check=False,
    )
    (HERE / "analyze_answers.jsonl").write_bytes(res.stdout)
    for name, bots, rules, hands in (
        ("simulate_qq.json", "greedy,random,random", "qq", 20),
        ("simulate_hunan.json", "random,random,random", "hunan", 30),
    ):
        rec = HERE / (name.removesuffix(".json") + "_records")
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "paohuzi.cli",
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
                str(rec),
                "--hands-out",
                str(HERE / name.replace(".json", "_hands.jsonl")),
            ],
            capture_output=True,
            check=True,
        )
        (HERE / name).write_bytes(out.stdout)


if __name__ == "__main__":
    main()
