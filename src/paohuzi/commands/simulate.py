"""``paohuzi simulate``: duplicate matches between bots (issue #4).

    paohuzi simulate --bots search,greedy,random --hands 1000 --rules qq --seed 1 --jobs 2

Every deal is played once with each distinct seating of the bots, so the luck of the cards cancels out
(see :mod:`paohuzi.bots.tournament`). ``--hands`` is the number of **deals**; the hands played are deals ×
seatings (6 for three different bots, 3 for two alike, 1 for three alike). While it runs a progress line
shows hands done, hands/s and the time left; at the end a table per bot gives the mean points per hand with
a 95 % confidence interval, win rate, 荒庄 rate, mean 胡息 of wins and mean decision time, then the paired
difference of every two bots. ``--json`` prints the same as JSON; ``--record DIR`` saves every hand's
record (``paohuzi replay`` reads them).

Bot specs: ``random``, ``greedy``, ``search``, with options in brackets (``search[worlds=16,time=0.5]``),
or ``module.path:ClassName`` for a bot class of your own.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import time
from typing import Any, TextIO

from paohuzi.commands.options import add_rules_arguments, describe_options, option_changes, rules_from_args

__all__ = ["add_parser", "run"]


def _bots_epilog() -> str:
    """The bots ``--bots`` takes: every registered name, the difficulty levels (the server's bots) with what
    each plays, options in brackets, an outside class. A ``time`` budget makes a bot's play depend on the
    machine, so a seed no longer reproduces it."""
    from paohuzi.bots import bot_names  # noqa: PLC0415 (the help text only)
    from paohuzi.bots.levels import LEVELS  # noqa: PLC0415

    levels = "\n".join(f"  {lv.key} ({lv.zh}, {lv.en}): {lv.spec}" for lv in LEVELS)
    return (
        f"bots: {', '.join(bot_names())}, or module.path:ClassName[key=value,...]\n"
        f"levels (as the server's bots play them):\n{levels}\n"
        "options in brackets: search[worlds=N,time=S,candidates=K,z=Z], noisy[eps=P] …; a time budget (time=S) "
        "makes a bot's\nplay depend on the machine's speed: the seed then no longer reproduces it"
    )


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "simulate",
        help="duplicate matches between bots",
        description=textwrap.fill(
            "Duplicate matches between bots: every deal is played once with each seating of the bots, "
            "so the luck of the cards cancels out. Prints points per hand (95% CI), win and 荒庄 rates, 胡息 per "
            "win and decision times per bot, and the paired difference of every two bots.", 100),
        epilog=_bots_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--bots", default=None,
                        help="comma-separated bot specs, one per seat (default: greedy, then random at every other "
                        "seat: greedy,random,random; four with 4 seats)")
    parser.add_argument("--hands", type=int, default=100, metavar="N",
                        help="number of deals; each is played with every seating (default: 100)")
    add_rules_arguments(parser)
    parser.add_argument("--seed", type=int, default=0, help="match seed (default: 0)")
    parser.add_argument("--jobs", type=int, default=1, metavar="K", help="worker processes (default: 1)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--record", metavar="DIR", help="save every hand's record in DIR")
    parser.add_argument("--hands-out", metavar="FILE",
                        help="also write every hand's result to FILE as JSON lines, as the deals finish")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.set_defaults(run=run)
    return parser


class _Progress:
    """hands done / total, hands/s, ETA — one line, redrawn in place on a terminal, else every 30 s."""

    def __init__(self, out: TextIO, enabled: bool) -> None:
        self.out = out
        self.enabled = enabled
        self.start = time.monotonic()
        self.last = 0.0
        self.tty = out.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done < total and now - self.last < (0.5 if self.tty else 30.0):
            return
        self.last = now
        elapsed = now - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else float("inf")
        width = 30
        filled = int(width * done / total) if total else width
        bar = "#" * filled + "." * (width - filled)
        line = f"[{bar}] {done}/{total} hands  {rate:.2f} hands/s  ETA {_duration(eta)}"
        if self.tty:
            self.out.write("\r" + line + ("\n" if done >= total else ""))
        else:
            self.out.write(line + "\n")
        self.out.flush()


def _duration(seconds: float) -> str:
    if seconds == float("inf"):
        return "?"
    seconds = int(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def run(args: argparse.Namespace) -> int:
    from paohuzi.bots import BotError, split_specs
    from paohuzi.bots.tournament import run_match, summarize
    from paohuzi.rules import RuleSetError

    try:
        rules = rules_from_args(args)
    except RuleSetError as exc:
        print(f"paohuzi simulate: {exc}", file=sys.stderr)
        return 2
    # one bot per seat at the table: 3, or 4 (守醒, R2; 衡阳六胡抢, R9.3)
    specs = split_specs(args.bots or ",".join(["greedy"] + ["random"] * (rules.players_at_table - 1)))
    if args.hands < 1 or args.jobs < 1:
        print("paohuzi simulate: --hands and --jobs must be at least 1", file=sys.stderr)
        return 2
    progress = _Progress(sys.stderr, not args.quiet)
    start = time.monotonic()
    out = open(args.hands_out, "w", encoding="utf-8") if args.hands_out else None

    def write(batch: list[Any]) -> None:
        if out is not None:
            for r in batch:
                out.write(json.dumps(r.to_dict()) + "\n")
            out.flush()

    try:
        results = run_match(
            specs, rules, deals=args.hands, seed=args.seed, jobs=args.jobs, record_dir=args.record,
            progress=progress, on_deal=write,
        )
    except (BotError, ValueError) as exc:
        print(f"paohuzi simulate: {exc}", file=sys.stderr)
        return 2
    finally:
        if out is not None:
            out.close()
    elapsed = time.monotonic() - start
    summary = summarize(results, specs)
    if args.json:
        data = summary.to_dict()
        data.update({"rules": rules.name, "seed": args.seed, "jobs": args.jobs, "elapsed_s": round(elapsed, 3)})
        changed = option_changes(rules)
        if changed:
            data["options"] = changed  # R8.1: what differs from the preset (records hold every option)
        print(json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False))
    else:
        options = describe_options(rules)
        shown = f"{rules.name} ({options})" if options else rules.name
        print(f"{summary.deals} deals, {summary.hands} hands, rules {shown}, seed {args.seed}, "
              f"{elapsed:.1f} s ({summary.hands / elapsed if elapsed else 0:.2f} hands/s)")
        print(summary.table())
    return 0
