"""Alembic environment for the paohuzi server.

The server passes its open connection in ``config.attributes["connection"]``; run by hand, the URL comes
from ``PAOHUZI_DATABASE_URL`` (default: the SQLite file under ``./data/``).
"""

from __future__ import annotations

import os

from alembic import context

from paohuzi.server.config import DEFAULT_DATABASE_URL
from paohuzi.server.db import make_engine
from paohuzi.server.models import Base

target_metadata = Base.metadata
config = getattr(context, "config", None)  # None when imported outside alembic (doctest collection)


def run_migrations_offline() -> None:
    url = os.environ.get("PAOHUZI_DATABASE_URL", DEFAULT_DATABASE_URL)
    context.configure(url=url, target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    assert config is not None
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(os.environ.get("PAOHUZI_DATABASE_URL", DEFAULT_DATABASE_URL))
    with engine.begin() as conn:
        context.configure(connection=conn, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if config is not None:
    if context.is_offline_mode():
        run_migrations_offline()
    else:
        run_migrations_online()
