"""``paohuzi dataset``: hand records → transitions for offline RL, as one ``.npz`` (issue 36 part 4b).

    paohuzi simulate --bots greedy,random,random --hands 100 --record games/
    paohuzi dataset games/ --out games.npz
    paohuzi dataset --database sqlite:///data/paohuzi.db --out played.npz   # the server's finished hands

Inputs are record files and folders (:func:`paohuzi.env.data.read_records`: ``simulate --record``'s files, JSON
Lines, ``GET /api/replays/{id}`` answers) or the server's database (``--database URL``: every finished hand's
stored record, oldest first; ``--limit N`` the first N). Every record is replayed and checked; the arrays are
those of :class:`paohuzi.env.data.Transitions` (``numpy.load`` reads them by name). A bad record is named and
nothing is written (exit status 2).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ["add_parser", "run", "database_records"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "dataset",
        help="hand records → transitions (.npz) for offline RL",
        description="Replay hand records and write every decision as a transition (the acting seat's observation "
        "tensor, action mask, action ID, reward, done, seat, episode) to one compressed .npz.",
    )
    parser.add_argument("records", nargs="*", metavar="PATH",
                        help="record files (.json, .jsonl) or folders of them (paohuzi simulate --record DIR)")
    parser.add_argument("--database", metavar="URL",
                        help="read the finished hands stored by a server (sqlite:///… or postgresql://…)")
    parser.add_argument("--limit", type=int, metavar="N", help="with --database: the first N finished hands")
    parser.add_argument("--out", required=True, metavar="FILE", help="the .npz to write")
    parser.add_argument("--obs-type", choices=("snapshot", "info_state"), default="snapshot",
                        help="the observation tensor (default) or the information state (perfect recall, 68 kB "
                        "a transition in the classic presets)")
    parser.set_defaults(run=run)
    return parser


def database_records(url: str, limit: int | None = None) -> Iterator[dict[str, Any]]:
    """The stored records of the finished hands in a server's database, oldest first."""
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from paohuzi.server.db import make_engine
    from paohuzi.server.models import HandRow

    engine = make_engine(url)
    try:
        query = (select(HandRow.record).where(HandRow.status == "finished", HandRow.record.is_not(None))
                 .order_by(HandRow.id))
        if limit is not None:
            query = query.limit(limit)
        with Session(engine) as session:
            records = [r for r in session.scalars(query) if r is not None]
    finally:
        engine.dispose()
    yield from records


def run(args: argparse.Namespace) -> int:
    try:
        from paohuzi.env.data import DataError, read_records, transitions
    except ImportError as exc:
        print(f"paohuzi dataset: needs numpy (pip install 'paohuzi[env]'): {exc}", file=sys.stderr)
        return 2
    if bool(args.records) == bool(args.database):
        print("paohuzi dataset: give record files or folders, or --database URL (one of them)", file=sys.stderr)
        return 2
    if args.limit is not None and (args.limit < 1 or not args.database):
        print("paohuzi dataset: --limit N needs --database and N ≥ 1", file=sys.stderr)
        return 2
    errors: tuple[type[Exception], ...] = (DataError, OSError)
    if args.database:
        from sqlalchemy.exc import SQLAlchemyError

        errors += (SQLAlchemyError,)
    try:
        missing = _missing_sqlite(args.database) if args.database else None
        if missing:
            raise DataError(f"no database file {missing!r}")
        source = database_records(args.database, args.limit) if args.database else read_records(args.records)
        data = transitions(source, args.obs_type)
        data.save(args.out)
    except errors as exc:
        print(f"paohuzi dataset: {exc}", file=sys.stderr)
        return 2
    episodes = len(set(data.episodes.tolist()))
    print(f"{len(data)} transitions from {episodes} hands ({data.observations.shape[1]} values per observation, "
          f"{data.masks.shape[1]} actions) written to {args.out}")
    return 0


def _missing_sqlite(url: str) -> str | None:
    """The file of a SQLite URL that does not exist (reading must not create an empty database), else None."""
    from pathlib import Path

    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        return None if Path(parsed.database).exists() else parsed.database
    return None
