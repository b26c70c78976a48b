"""``paohuzi migrate [--check] [--database-url URL]``: bring the database's schema to the newest revision.

Runs the migrations shipped inside the package (``paohuzi/server/migrations``), so it works wherever the
package is installed — a source checkout or ``/srv/paohuzi/venv`` — and prints what it did::

    $ paohuzi migrate --database-url postgresql://paohuzi:***@127.0.0.1/paohuzi
    database: postgresql+psycopg://paohuzi:***@127.0.0.1/paohuzi
    was at 0010 (of 0011)
    applied 0011 可验证发牌 (issue 32): …
    now at 0011 (newest)

``--check`` changes nothing: exit status 0 when the schema is at the newest revision, 1 when migrations are
waiting (each named). The URL is ``--database-url``, else ``PAOHUZI_DATABASE_URL``, else the SQLite file under
``./data/`` (as ``paohuzi serve``). The server also migrates at start-up; this is the step to run by hand
before an upgrade (docs/server.md "Upgrades"). Exit status 2: the database could not be reached or read.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "migrate",
        help="bring the database schema to the newest revision (the packaged migrations)",
        description="Run the server's packaged database migrations (alembic) and print what was done.",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy database URL (default $PAOHUZI_DATABASE_URL or sqlite:///data/paohuzi.sqlite3)",
    )
    parser.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 when migrations are waiting, 0 when none"
    )
    parser.set_defaults(run=run)
    return parser


def _title(script: Any) -> str:
    """A revision's first docstring line, cut short."""
    doc = (script.doc or "").strip().splitlines()
    first = doc[0] if doc else ""
    return first if len(first) <= 90 else first[:89] + "…"


def _current(engine: Any) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def _pending(scripts: Any, current: str | None) -> list[Any]:
    """The revisions above ``current``, oldest first."""
    return list(reversed(list(scripts.iterate_revisions("heads", current or "base"))))


def run(args: argparse.Namespace) -> int:
    from alembic.script import ScriptDirectory
    from sqlalchemy.engine import make_url

    from paohuzi.server.config import DEFAULT_DATABASE_URL
    from paohuzi.server.db import make_engine
    from paohuzi.server.schema import alembic_config, migrate

    url = args.database_url or os.environ.get("PAOHUZI_DATABASE_URL") or DEFAULT_DATABASE_URL
    try:
        engine = make_engine(url)
    except Exception as exc:  # noqa: BLE001 — a bad URL is the user's, said in one line
        print(f"paohuzi migrate: bad database URL {url!r}: {exc}")
        return 2
    shown = make_url(engine.url).render_as_string(hide_password=True)
    scripts = ScriptDirectory.from_config(alembic_config())
    newest = scripts.get_current_head()
    print(f"database: {shown}")
    try:
        current = _current(engine)
        pending = _pending(scripts, current)
        print(f"was at {current or 'nothing (an empty database)'} (of {newest})")
        if args.check:
            for script in pending:
                print(f"waiting: {script.revision} {_title(script)}")
            print("up to date" if not pending else f"{len(pending)} migration(s) waiting: run `paohuzi migrate`")
            return 1 if pending else 0
        migrate(engine)
        if not pending:
            print("nothing to apply")
        for script in pending:
            print(f"applied {script.revision} {_title(script)}")
        now = _current(engine)
    except Exception as exc:  # noqa: BLE001 — the database's refusal, said in one line
        print(f"paohuzi migrate: {type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc) else ''}")
        return 2
    finally:
        engine.dispose()
    print(f"now at {now} (newest)" if now == newest else f"now at {now} (newest is {newest})")
    return 0 if now == newest else 2
