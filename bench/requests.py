"""Benchmark of the issue-15 analysis goals: whole requests, as programs send them (R6, R7).

Three figures, each the median over ``--reps`` passes (CPU time of this process, so neighbours on a shared
machine disturb it less than wall time):

- ``evaluate``  µs per request: ``scoring.evaluate`` under ``qq`` on a fixed, seeded corpus of 8,000 requests
  with a card (the case generators of ``tests/analysis/cases.py``: complete hands, near misses, random deals
  and mid-game hands, every source, table groups), complete or not. The analysis memo and scoring's shared
  scores are cleared before each pass (``scoring.clear_cache``). Goal ≤ 2.0 µs.
- ``waits20``   µs per hand: ``scoring.scored_waits`` (every kind tried, each win scored) of a random dealt
  20-card hand, 1,000 hands, memo and shared scores cleared before each pass. Goal ≤ 15 µs.
- ``batch``     CPU seconds of ``paohuzi analyze --json --batch`` (a child process: start-up, parsing, analysis,
  JSON) on 20,000 mixed requests (every preset, table groups, cards from every source, waits, 海底, 天胡;
  the generator of ``tests/golden/make_golden.py`` with another seed). Goal ≤ 0.5 s.

Run ``python bench/requests.py`` (``--quick`` for a smaller, faster run). The header says whether the compiled
accelerator ran (``PAOHUZI_PURE=1`` measures the pure-Python path; the batch's child process inherits it).

``--presets qq,changde,changde_qmt,shihuka`` (issue 29) times ``evaluate`` and ``waits20`` under each rule set in
turn, interleaved pass by pass so that the machine's load falls on all alike, and prints each one's ratio to the
first (the goal: the R9 families within 1.5× of ``qq``). A rule set is a preset name, optionally with options:
``changde_qmt:hanghangxi=on;tuanyuan=on;huangfan=on``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import paohuzi
from paohuzi import analysis, scoring
from paohuzi.analysis import Source
from paohuzi.cards import format_cards
from paohuzi.rules import RuleSet, find_preset, parse_rules

ROOT = Path(__file__).resolve().parent.parent
GOALS = {"evaluate": 2.0, "waits20": 15.0, "batch": 0.5}
PRESETS = ("qq", "hunan", "hengyang", "huayang")


def _load_cases():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("paohuzi_bench_cases", ROOT / "tests" / "analysis" / "cases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


cases = _load_cases()


def evaluate_corpus(n: int, seed: int = 15):  # type: ignore[no-untyped-def]
    """``n`` requests with a card: (hand, table, card, source)."""
    out = []
    chunk = 0
    while len(out) < n:
        for c in cases.generate(seed * 1000 + chunk, 1000):
            if c.card is not None and len(out) < n:
                out.append((c.hand, c.table, c.card, Source(c.source)))
        chunk += 1
    return out


def waits_corpus(n: int, seed: int = 15):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    return [cases.random_deal(rng).hand[:20] for _ in range(n)]


def batch_lines(n: int, seed: int = 15) -> str:
    """``n`` mixed ``analyze --json`` requests, as ``tests/golden/make_golden.py`` writes them."""
    rng = random.Random(seed)
    lines = []
    for case in cases.generate(seed, n):
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
        lines.append(json.dumps(req, ensure_ascii=False) + "\n")
    return "".join(lines)


def _clear() -> None:
    """Forget the analysis memo and scoring's shared scores (an older checkout, for A/B runs, has only the memo)."""
    clear = getattr(scoring, "clear_cache", None)
    (clear or analysis.clear_cache)()


def time_evaluate(reqs, reps: int) -> list[float]:  # type: ignore[no-untyped-def]
    qq = find_preset("qq")
    evaluate = scoring.evaluate
    out = []
    for _ in range(reps):
        _clear()
        t0 = time.process_time()
        for hand, table, card, source in reqs:
            evaluate(hand, table, card, source, qq)
        out.append((time.process_time() - t0) / len(reqs) * 1e6)
    return out


def time_waits(hands, reps: int) -> list[float]:  # type: ignore[no-untyped-def]
    qq = find_preset("qq")
    scored_waits = scoring.scored_waits
    out = []
    for _ in range(reps):
        _clear()
        t0 = time.process_time()
        for hand in hands:
            scored_waits(hand, (), qq)
        out.append((time.process_time() - t0) / len(hands) * 1e6)
    return out


def parse_rule_sets(text: str) -> list[tuple[str, RuleSet]]:
    """``"qq,changde_qmt:hanghangxi=on;tuanyuan=on"`` → [(label, rule set)]: presets, each with options."""
    out = []
    for spec in text.split(","):
        name, _, opts = spec.strip().partition(":")
        out.append((spec.strip(), parse_rules(name, [o for o in opts.split(";") if o])))
    return out


def time_presets(rule_sets: list[tuple[str, RuleSet]], reqs, hands, reps: int) -> None:  # type: ignore[no-untyped-def]
    """``evaluate`` and ``waits20`` under each rule set, the passes interleaved; each median and its ratio to the
    first rule set's."""
    evaluate, scored_waits = scoring.evaluate, scoring.scored_waits
    times: dict[tuple[str, str], list[float]] = {}
    # Under 醒 the engine always names the 醒 card (R9.4): here the card won, as 随醒 does.
    facts = {label: [scoring.PlayFacts(xing_card=card) if rules.xing != "none" else None for _h, _t, card, _s in reqs]
             for label, rules in rule_sets}  # fmt: skip
    for _ in range(reps):
        for label, rules in rule_sets:
            _clear()
            t0 = time.process_time()
            for (hand, table, card, source), fact in zip(reqs, facts[label], strict=True):
                evaluate(hand, table, card, source, rules, facts=fact)
            times.setdefault((label, "evaluate"), []).append((time.process_time() - t0) / len(reqs) * 1e6)
            _clear()
            t0 = time.process_time()
            for hand in hands:
                scored_waits(hand, (), rules)
            times.setdefault((label, "waits20"), []).append((time.process_time() - t0) / len(hands) * 1e6)
    first = rule_sets[0][0]
    for what in ("evaluate", "waits20"):
        base = statistics.median(times[first, what])
        for label, _rules in rule_sets:
            runs = times[label, what]
            med = statistics.median(runs)
            print(f"{what:<9} {med:8.2f} [{min(runs):.2f}–{max(runs):.2f}]  {med / base:5.2f}× {first}  {label}")


def time_batch(path: str, reps: int) -> list[float]:
    out = []
    env = dict(os.environ)
    # The child runs the same paohuzi as this process.
    env["PYTHONPATH"] = str(Path(paohuzi.__file__).resolve().parent.parent) + os.pathsep + env.get("PYTHONPATH", "")
    for _ in range(reps):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(
            [sys.executable, "-m", "paohuzi.cli", "analyze", "--json", "--batch", path],
            check=True, stdout=subprocess.DEVNULL, env=env,
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller corpora, fewer passes")
    parser.add_argument("--reps", type=int, default=None, help="passes per figure (default 7, quick 3)")
    parser.add_argument("--only", choices=sorted(GOALS), action="append", help="run only these figures")
    parser.add_argument(
        "--presets", metavar="RULES", help="time evaluate and waits20 under these rule sets, e.g. qq,shihuka"
    )
    args = parser.parse_args(argv)
    reps = args.reps or (3 if args.quick else 7)
    only = set(args.only or GOALS)
    n_eval, n_waits, n_batch = (2000, 200, 5000) if args.quick else (8000, 1000, 20000)
    print(
        f"# bench/requests.py{' --quick' if args.quick else ''}: {reps} passes each, median [range]; "
        f"python {platform.python_version()} on {platform.machine()}, load average {os.getloadavg()[0]:.1f}, "
        f"compiled accelerator {'on' if getattr(analysis, 'ACCELERATED', False) else 'off'}"
    )
    if args.presets:
        time_presets(parse_rule_sets(args.presets), evaluate_corpus(n_eval), waits_corpus(n_waits), reps)
        return
    results: dict[str, tuple[float, list[float], str]] = {}
    if "evaluate" in only:
        reqs = evaluate_corpus(n_eval)
        r = time_evaluate(reqs, reps)
        results["evaluate"] = (statistics.median(r), r, f"µs per request ({len(reqs)} qq requests with a card)")
    if "waits20" in only:
        hands = waits_corpus(n_waits)
        r = time_waits(hands, reps)
        results["waits20"] = (statistics.median(r), r, f"µs per hand (scored waits, {len(hands)} 20-card hands)")
    if "batch" in only:
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
            f.write(batch_lines(n_batch))
        try:
            r = time_batch(f.name, max(3, reps // 2))
        finally:
            os.unlink(f.name)
        results["batch"] = (statistics.median(r), r, f"CPU s for analyze --json --batch, {n_batch} mixed requests")
        empty = time_batch(os.devnull, 3)
        print(f"# start-up alone (analyze --json --batch {os.devnull}): {statistics.median(empty):.2f} CPU s")
    for name, (med, runs, what) in results.items():
        verdict = "ok" if med <= GOALS[name] or args.quick else "OVER"
        print(f"{name:<9} {med:8.2f} [{min(runs):.2f}–{max(runs):.2f}]  {what}; goal ≤ {GOALS[name]:g}: {verdict}")


if __name__ == "__main__":
    main()
