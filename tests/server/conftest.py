"""Fixtures for the server tests: a real ``paohuzi serve`` process per module on a free port, SQLite in a
temporary folder (PostgreSQL where a test asks for it); ``servers``, the module's pool of servers shared by
its tests, one per configuration (:class:`~tests.support.server.ServerPool`)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..support.databases import postgres_available, postgres_schema, redis_url
from ..support.server import ServerPool, ServerProcess, running


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir: Path = tmp_path_factory.mktemp("server")
    with running(workdir) as proc:
        yield proc


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerPool]:
    """The module's shared servers: ``servers.get("postgresql", {"PAOHUZI_X": "1"})`` is one server of that
    configuration for every test of the module that asks for it (started by the first). The tests that share
    one keep to players and rooms of their own; a test that restarts, kills or otherwise changes a whole server
    starts its own (:func:`~tests.support.server.running`)."""
    pool = ServerPool(lambda: tmp_path_factory.mktemp("server"))
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    """Each database kind in turn, for ``servers.get(database, …)``: the test runs on SQLite and on the local
    PostgreSQL (skipped there without one) against the module's shared server of that kind."""
    return str(request.param)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database for one test, on SQLite and on the local PostgreSQL (a schema of its own)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'paohuzi.sqlite3'}"
        return
    if not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    with postgres_schema() as url:
        yield url


@pytest.fixture
def shared_deployment() -> Iterator[dict[str, str]]:
    """One shared deployment (issue 14): ``database_url``, a fresh PostgreSQL schema, and the environment of
    Redis with a prefix of its own. Skipped without PostgreSQL or Redis."""
    if not postgres_available():
        pytest.skip("the shared mode runs on PostgreSQL, and none answers on 127.0.0.1:5432")
    url = redis_url()
    if url is None:
        pytest.skip("no Redis on 127.0.0.1:6379 and redis-server could not be installed or started")
    with postgres_schema() as database_url:
        yield {
            "database_url": database_url,
            "PAOHUZI_REDIS_URL": url,
            "PAOHUZI_REDIS_PREFIX": "test-" + uuid.uuid4().hex[:10],
        }
