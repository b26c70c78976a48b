"""``paohuzi review RECORD --seat N``: 复盘 — each decision of one seat in a finished hand, judged from that
seat's own view (R5) by 大师's sampled worlds and rollouts (:mod:`paohuzi.bots.review`, docs/AI.md §10).

RECORD holds a hand's record as ``paohuzi simulate --record`` writes it, or the server's replay answer
(``{"hand": …, "record": …}``), or JSON Lines of records (``--line``), or a match record (``--hand``). ``-``
reads stdin.

    paohuzi review game.json --seat 0                # one line per decision, ✗ on the mistakes
    paohuzi review game.json --seat 0 --json         # the review as JSON (Review.to_dict)
    paohuzi review match.json --hand 3 --seat 1 --seed 7 --worlds 32

The same record, seat, seed and settings always give the same review. Exit status 2 with a message naming
what is wrong for a bad record, seat or option, or a family without a 大师 (R9).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from paohuzi.bots.review import Review, ReviewError, ReviewSettings, review_families, review_record
from paohuzi.cards import PaohuziError
from paohuzi.commands.replay import load_records
from paohuzi.engine import HandRecord, replay_match

__all__ = ["add_parser", "run", "render"]

_PHASE = {"discard": "出牌", "claim": "吃碰", "self_hu": "自摸", "liangzhang": "亮张"}


def render(review: Review) -> list[str]:
    """The review as text: a header, one line per judged decision (✗ marks a mistake), the hand's figures."""
    lines = [
        f"复盘 seat {review.seat} · {review.preset} · seed {review.seed} · {review.worlds} worlds a decision · "
        f"threshold {review.threshold:g} points"
    ]
    for d in review.decisions:
        played = next(c for c in d.choices if c.action == d.played)
        best = d.choices[0]
        mark = " ✗" if d.marked else ""
        lines.append(
            f"#{d.index:<3} {_PHASE.get(d.phase, d.phase)}  played {d.played!r} {played.mean:+.2f}  "
            f"best {d.best!r} {best.mean:+.2f}  loss {d.loss:.2f} ± {d.loss_se:.2f}{mark}"
        )
    lines.append(
        f"准确率 {review.accuracy:.1%} ({review.judged - review.marked}/{review.judged} decisions) · "
        f"points lost {review.points_lost:.2f} · marked {review.marked} · hand result {review.points:+d}"
    )
    return lines


def _pick(args: argparse.Namespace, text: str) -> dict[str, Any]:
    records = load_records(text, args.line)
    if len(records) > 1:
        raise ReviewError(f"the file has {len(records)} records: choose one with --line")
    record = records[0]
    if isinstance(record, dict) and record.get("kind") == "match":
        match = replay_match(record)
        if args.hand is None or not 1 <= args.hand <= len(match.results):
            raise ReviewError(f"a match record with {len(match.results)} finished hands: choose one with --hand "
                              f"1…{len(match.results)}")
        chosen = match.results[args.hand - 1].record
        return chosen.to_dict() if isinstance(chosen, HandRecord) else dict(chosen)
    if args.hand is not None:
        raise ReviewError("--hand is for a match record; this is one hand's record")
    if not isinstance(record, dict):
        raise ReviewError(f"a record is a JSON object, got {type(record).__name__}")
    found: dict[str, Any] = record
    return found


def run(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
        settings = ReviewSettings(worlds=args.worlds, threshold=args.threshold, z=args.z)
        review = review_record(_pick(args, text), args.seat, seed=args.seed, settings=settings)
    except (OSError, PaohuziError) as exc:
        print(f"paohuzi review: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(review.to_dict(), ensure_ascii=False))
    else:
        print("\n".join(render(review)))
    return 0


def add_parser(subparsers: Any) -> None:
    """Register ``paohuzi review``."""
    parser = subparsers.add_parser(
        "review",
        help="复盘: judge one seat's decisions in a finished hand (expected points, mistakes marked)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog=(
            "examples:\n  paohuzi review game.json --seat 0\n  paohuzi review game.json --seat 0 --json\n"
            f"families reviewed (those with a 大师): {', '.join(review_families())}"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    defaults = ReviewSettings()
    parser.add_argument("file", metavar="RECORD", help="a hand record (JSON), JSON Lines of them, a match record; "
                        "- for stdin")
    parser.add_argument("--seat", type=int, required=True, help="the seat whose decisions are judged")
    parser.add_argument("--seed", type=int, default=0, help="seeds the sampled worlds (default: 0)")
    parser.add_argument("--worlds", type=int, default=defaults.worlds,
                        help=f"sampled worlds a decision (default: {defaults.worlds})")
    parser.add_argument("--threshold", type=float, default=defaults.threshold,
                        help=f"points a move may lose before it is marked (default: {defaults.threshold:g})")
    parser.add_argument("--z", type=float, default=defaults.z,
                        help=f"standard errors a loss must exceed to be marked (default: {defaults.z:g})")
    parser.add_argument("--line", type=int, default=None, help="with JSON Lines: this record (from 1)")
    parser.add_argument("--hand", type=int, default=None, help="with a match record: this hand (from 1)")
    parser.add_argument("--json", action="store_true", help="print the review as JSON")
    parser.set_defaults(run=run)
