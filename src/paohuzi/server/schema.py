"""The schema's migrations: the packaged alembic scripts, brought to their newest revision (docs/server.md §9).

Apart from :mod:`paohuzi.server.db` (the game's database thread and its jobs): a migration runs once at a
process's start (:meth:`paohuzi.server.db.Database.migrate`) or by hand (``paohuzi migrate``), on its own
connection and with its own limits.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, text

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = ["alembic_config", "migrate"]

_MIGRATION_LOCK = 0x70616F68  # "paoh": the advisory lock that one migration at a time holds on PostgreSQL
_MIGRATION_IDLE_MS = 120_000  # a migration's idle-in-transaction limit (make_engine's 5 s is for the game's jobs)


def alembic_config() -> Config:
    """The alembic configuration of the packaged migrations (``paohuzi/server/migrations``), wherever the
    package is installed: a source checkout or a venv's site-packages (``paohuzi migrate``)."""
    from alembic.config import Config

    here = Path(__file__).parent
    config = Config(str(here / "alembic.ini"))
    config.set_main_option("script_location", str(here / "migrations"))
    return config


def migrate(engine: Engine) -> None:
    """Bring the schema up to the newest alembic revision. On PostgreSQL under an advisory lock held to
    the migration's commit: processes started together on a fresh database (the shared mode) migrate one
    after the other — the first creates the schema, the others find it at head — instead of racing to
    create the same tables.

    The migration's transaction waits on Python between its statements (alembic loads the scripts after the
    lock is taken): on a loaded machine one such wait passed ``make_engine``'s 5 s idle-in-transaction limit
    and PostgreSQL ended the session (``paohuzi migrate`` exit 2). The limit is raised for this transaction
    only — still finite, so a frozen migrator lets the next one through."""
    from alembic import command

    config = alembic_config()
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text(f"SET LOCAL idle_in_transaction_session_timeout = {_MIGRATION_IDLE_MS}"))
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
