"""Start-up safeguards for an operator (issue 35 §7): the shared mode refuses SQLite in one line naming
both settings; the start-up log says which mode runs, with the process id (and, shared, the Redis prefix,
which every process of one deployment must share: docs/server.md)."""

from __future__ import annotations

import pytest

from paohuzi.cli import main
from paohuzi.server.config import Settings

from ..support.server import ServerProcess

REFUSAL = (
    "paohuzi serve: PAOHUZI_REDIS_URL is set (the shared mode) but the database is SQLite: the shared mode needs "
    "PostgreSQL (PAOHUZI_DATABASE_URL=postgresql://…), or unset PAOHUZI_REDIS_URL for one process"
)


def test_the_shared_mode_refuses_sqlite_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAOHUZI_REDIS_URL", "redis://127.0.0.1:6379/0")
    monkeypatch.delenv("PAOHUZI_DATABASE_URL", raising=False)
    assert main(["serve", "--port", "0"]) == 2
    assert capsys.readouterr().out.splitlines() == [REFUSAL]
    assert main(["serve", "--port", "0", "--database-url", "sqlite:///elsewhere.sqlite3"]) == 2
    assert capsys.readouterr().out.splitlines() == [REFUSAL]


def test_postgresql_with_redis_and_sqlite_alone_are_accepted() -> None:
    assert Settings(redis_url="redis://r/0", database_url="postgresql://p@h/db").redis_url == "redis://r/0"
    assert Settings(database_url="sqlite:///x.sqlite3").redis_url == ""


def test_the_start_up_log_names_the_mode_and_the_process_id(server: ServerProcess) -> None:
    lines = server.log_lines()
    started = next(x for x in lines if x.get("msg") == "server started")
    assert (started["mode"], started["pid"], started["redis_prefix"]) == ("one process", server.pid, None)
    assert f"one process mode: database sqlite, pid {server.pid}" in [x.get("msg") for x in lines]
