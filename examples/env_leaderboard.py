"""The machine-readable leaderboard of docs/env.md (issue 36): policies over the environment's tensors evaluated
with :func:`paohuzi.env.evaluate` in duplicate deals, written to ``docs/baselines.json``.

Rows: masked random (the environment's random agent), the shipped linear checkpoint
(:mod:`paohuzi.env.linear`, most probable legal ID and sampled) and the shipped learned network
(:mod:`paohuzi.env.learned`, an imitation of ``greedy``). Each plays against ``random`` and against ``greedy``
opponents on the same deals (match seed ``--seed``), so every row also has its paired difference from masked
random.

    PYTHONPATH=src python examples/env_leaderboard.py --out docs/baselines.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from paohuzi.env import evaluate
from paohuzi.env.evaluation import Evaluation
from paohuzi.env.learned import LearnedBot
from paohuzi.env.linear import LinearBot, LinearPolicy
from paohuzi.env.policy import MaskedRandomBot

#: name -> (how it plays, a factory of the policy: a fresh one per evaluation so that sampling rows replay)
POLICIES: dict[str, tuple[str, Callable[[], Any]]] = {
    "masked random": ("paohuzi.env.policy:MaskedRandomBot, seed 0", lambda: MaskedRandomBot(seed=0)),
    "linear checkpoint": ("paohuzi.env.linear:LinearPolicy.load() (weights/linear.npz), most probable legal ID",
                          LinearPolicy.load),
    "linear checkpoint, sampled": ("paohuzi.env.linear:LinearBot[sample=1], seed 0",
                                   lambda: LinearBot(seed=0, sample=1)),
    "learned (imitation of greedy)": ("paohuzi.env.learned:LearnedBot (weights/agent.npz)",
                                      lambda: LearnedBot(seed=0)),
}


def _estimate(e: Any) -> dict[str, float]:
    return {"mean": round(e.mean, 4), "low": round(e.low, 4), "high": round(e.high, 4), "n": e.n}


def run(deals: dict[str, int], seed: int) -> dict[str, Any]:
    rows = []
    for opponents, n in deals.items():
        results: dict[str, Evaluation] = {}
        for name, (how, make) in POLICIES.items():
            start = time.process_time()
            result = results[name] = evaluate(make(), opponents=opponents, deals=n, seed=seed, name=name)
            cpu = time.process_time() - start
            base = results["masked random"]
            rows.append({
                "policy": name, "plays": how, "opponents": opponents, "rules": result.rules, "seed": seed,
                "deals": n, "hands": result.hands, "points": _estimate(result.points),
                "minus_opponent": _estimate(result.differences[opponents]),
                "minus_masked_random": None if name == "masked random" else _estimate(result.minus(base)),
                "win_rate": round(next(r.win_rate for r in result.match.rows if r.bot == name), 4),
                "cpu_s": round(cpu, 1),
            })
            print(f"{name:32s} vs {opponents:7s} {result.points.mean:+.3f} "
                  f"[{result.points.low:+.3f}, {result.points.high:+.3f}]  ({cpu:.0f} CPU s)", file=sys.stderr)
    return {
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "PYTHONPATH=src python examples/env_leaderboard.py --out docs/baselines.json"
                   + "".join(f" --{k} {v}" for k, v in (("deals-random", deals["random"]),
                                                         ("deals-greedy", deals["greedy"]), ("seed", seed))),
        "points": "points per hand (payment ÷ stake, R7.3), mean over deals of each deal's mean over its seatings, "
                  "95 % Student t intervals over deals (paohuzi.stats)",
        "rows": rows,
    }


def table(data: dict[str, Any]) -> str:
    """The markdown table of docs/env.md."""
    def ci(e: dict[str, float] | None) -> str:
        return "—" if e is None else f"{e['mean']:+.2f} [{e['low']:+.2f}, {e['high']:+.2f}]"

    lines = ["| policy | opponents | deals (hands) | points/hand | − opponent | − masked random |",
             "|---|---|---:|---|---|---|"]
    for r in data["rows"]:
        lines.append(f"| {r['policy']} | {r['opponents']} | {r['deals']} ({r['hands']}) | {ci(r['points'])} | "
                     f"{ci(r['minus_opponent'])} | {ci(r['minus_masked_random'])} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals-random", type=int, default=1000)
    parser.add_argument("--deals-greedy", type=int, default=300)
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--out", default=None, help="write the JSON here (docs/baselines.json)")
    args = parser.parse_args(argv)
    data = run({"random": args.deals_random, "greedy": args.deals_greedy}, args.seed)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, indent=1)
            f.write("\n")
    print(table(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
