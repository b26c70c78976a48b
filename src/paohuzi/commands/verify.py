"""``paohuzi verify RECORD | --code REPLAY_CODE [--url URL]``: check a verifiable deal (可验证发牌, issue 32).

Recomputes each hand's deck from its revealed server seed and client seeds (rng_version 2,
``docs/engine.md`` §8) and the commitment SHA-256(server seed), and prints ✓ or exactly what differs: the
server seed (it does not match the commitment), a client seed (the seeds deal another deck), cards swapped in
the recorded deal (which two, where). RECORD is a hand record (JSON), a match record (every hand in turn), or
the answer of ``GET /api/replays/…``; ``-`` reads stdin. ``--code`` fetches the hand from a server.

    paohuzi verify hand.json
    paohuzi verify --code 1ABCDEF --url https://paohuzi.example
    paohuzi verify hand.json --commitment 3f5a…   # also: the commitment you were sent before the deal

Exit status: 0 every hand verified; 1 a hand's deal differs; 2 no record could be read; 3 a hand dealt
before verifiable deals (rng_version 1) — nothing to verify.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from paohuzi.engine import verify_record

__all__ = ["add_parser", "run"]

DEFAULT_URL = "http://127.0.0.1:8000"


def _records(data: Any) -> list[dict[str, Any]]:
    """The hand records in a file's JSON: a hand's, a match's hands, or a replay answer's ``record``."""
    if isinstance(data, dict) and isinstance(data.get("record"), dict):
        data = data["record"]
    if isinstance(data, dict) and data.get("kind") == "match" and isinstance(data.get("records"), list):
        return [r for r in data["records"] if isinstance(r, dict)]
    if isinstance(data, dict):
        return [data]
    raise ValueError(f"a record is a JSON object, got {type(data).__name__}")


def _fetch(code: str, url: str) -> Any:
    address = f"{url.rstrip('/')}/api/replays/code/{urllib.parse.quote(code)}?steps=false"
    try:
        with urllib.request.urlopen(address, timeout=20) as answer:  # noqa: S310 (the user's own URL)
            return json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        raise ValueError(f"{address}: HTTP {exc.code} (no finished hand has replay code {code!r}?)") from None
    except (urllib.error.URLError, OSError) as exc:
        raise ValueError(f"{address}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    try:
        if args.code is not None:
            data = _fetch(args.code, args.url)
        elif args.file in (None, "-"):
            data = json.loads(sys.stdin.read())
        else:
            with open(args.file, encoding="utf-8") as f:
                data = json.load(f)
        records = _records(data)
    except (OSError, ValueError) as exc:  # json.JSONDecodeError is a ValueError
        print(f"paohuzi verify: {exc}", file=sys.stderr)
        return 2
    status = 0
    for n, record in enumerate(records, 1):
        label = f"hand {n}: " if len(records) > 1 else ""
        verdict = verify_record(record, args.commitment)
        if verdict.ok:
            fair = record["fair"]
            print(
                f"{label}✓ verified (rng_version 2): commitment {fair['commitment']}, server seed "
                f"{fair['server_seed']}, client seeds {fair['client_seeds']}"
            )
        elif not verdict.verifiable:
            print(f"{label}– {verdict.problems[0]}")
            status = status or 3
        else:
            print(f"{label}✗ not verified:")
            for problem in verdict.problems:
                print(f"  - {problem}")
            status = 1
    return status


def add_parser(subparsers: Any) -> None:
    """Register ``paohuzi verify``."""
    parser = subparsers.add_parser(
        "verify",
        help="check that a hand's deal came from its revealed seeds (可验证发牌, rng_version 2)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog="examples:\n  paohuzi verify hand.json\n  paohuzi verify --code 1ABCDEF --url http://127.0.0.1:8000",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", nargs="?", help="a hand or match record (JSON), or a replay answer; - for stdin")
    parser.add_argument("--code", help="a replay code: fetch the hand from the server at --url")
    parser.add_argument("--url", default=DEFAULT_URL, help=f"the server (default {DEFAULT_URL})")
    parser.add_argument("--commitment", help="the commitment you were sent before the deal (hex)")
    parser.set_defaults(run=run)
