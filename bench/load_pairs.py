"""Concurrent A/B pairs of ``bench/load.py`` (issue 33): the one way this shared 2-core machine resolves a change
of a few hundredths of a millisecond an action.

Run one after the other, two load runs of the *same* code differ by 0.1–0.4 ms an action (the machine's own state:
other tenants, caches, frequency). Run at once, the two servers share whatever the machine does, and their
difference is what the code does. Each pair starts both benches half a second apart, the one started first
alternating, and prints both servers' CPU an action (``server_cpu_ms_per_action``), their p99 and B − A; the end
gives the mean and the median of B − A over the pairs, and how many were negative (B cheaper).

A and B are folders put first on ``PYTHONPATH``, each holding a ``paohuzi`` package: a ``git archive`` of each
commit's ``src``. Give both the compiled modules of a build of the same engine sources (the ``*.so`` files and
``_compiled.json`` of ``src/paohuzi`` after ``make venv``), or neither (``PAOHUZI_PURE=1``): a compiled side
against a pure one measures the compiler. Arguments after ``--`` go to both benches (default: 200 tables, one
client process, 25 s measured after 8 s).

    git archive <commit-a> src | tar -x -C /tmp/a --strip-components=1     # and /tmp/b from commit b
    .venv/bin/python bench/load_pairs.py /tmp/a /tmp/b --pairs 4
    .venv/bin/python bench/load_pairs.py /tmp/a /tmp/b --pairs 6 -- --tables 200 --procs 1 --duration 40
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

LOAD = Path(__file__).with_name("load.py")
DEFAULT = ["--tables", "200", "--procs", "1", "--duration", "25", "--warmup", "8", "--client-nice", "10"]


def _start(src: str, load_args: list[str]) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)}
    command = [sys.executable, str(LOAD), *load_args]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def _result(proc: subprocess.Popen[str], side: str) -> tuple[float, float]:
    """(CPU ms an action, p99 ms) from one finished bench: its report is the JSON object its output ends with."""
    out, _ = proc.communicate()
    if proc.returncode != 0 or "{" not in out:
        sys.exit(f"bench/load_pairs.py: the {side} bench failed (exit {proc.returncode}); run it alone to see why")
    report = json.loads(out[out.index("{") :])
    cpu = report["server_cpu_ms_per_action"]
    if cpu is None:
        sys.exit(f"bench/load_pairs.py: the {side} bench measured no action")
    return float(cpu), float(report["latency_ms"]["p99"])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ours, load_args = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, DEFAULT)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", help="folder with the A side's paohuzi package (first on PYTHONPATH)")
    parser.add_argument("b", help="folder with the B side's paohuzi package")
    parser.add_argument("--pairs", type=int, default=4)
    args = parser.parse_args(ours)
    for side in (args.a, args.b):
        if not (Path(side) / "paohuzi" / "__init__.py").is_file():
            parser.error(f"{side} holds no paohuzi package (expected {side}/paohuzi/__init__.py)")
    differences: list[float] = []
    for pair in range(1, args.pairs + 1):
        order = [("A", args.a), ("B", args.b)] if pair % 2 else [("B", args.b), ("A", args.a)]
        procs = {}
        for name, src in order:
            procs[name] = _start(src, load_args)
            time.sleep(0.5)
        (a_cpu, a_p99), (b_cpu, b_p99) = _result(procs["A"], "A"), _result(procs["B"], "B")
        differences.append(b_cpu - a_cpu)
        print(json.dumps({
            "pair": pair, "first": order[0][0], "a_ms": a_cpu, "b_ms": b_cpu, "b_minus_a_ms": round(b_cpu - a_cpu, 3),
            "a_p99_ms": a_p99, "b_p99_ms": b_p99, "loadavg": round(os.getloadavg()[0], 2),
        }), flush=True)
    print(json.dumps({
        "pairs": len(differences),
        "mean_b_minus_a_ms": round(statistics.mean(differences), 3),
        "median_b_minus_a_ms": round(statistics.median(differences), 3),
        "b_cheaper": sum(1 for d in differences if d < 0),
        "load_args": load_args,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
