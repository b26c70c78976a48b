"""Fixtures for the server tests: a real ``paohuzi serve`` process per module on a free port, SQLite in a
temporary folder (PostgreSQL where a test asks for it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .support import ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir: Path = tmp_path_factory.mktemp("server")
    proc = ServerProcess(workdir, f"sqlite:///{workdir / 'paohuzi.sqlite3'}").start()
    try:
        yield proc
    finally:
        proc.stop()
