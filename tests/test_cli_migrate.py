"""``paohuzi migrate`` (issue 35): the packaged migrations run from any folder (no source checkout needed),
say what they did, and ``--check`` reports without changing anything; SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from paohuzi.cli import main

from .support.databases import postgres_available, postgres_schema

# The revisions shipped, by their files (0001_….py …): the test holds when a migration is added.
VERSIONS = Path(__file__).parents[1] / "src" / "paohuzi" / "server" / "migrations" / "versions"
REVISIONS = sorted(p.name[:4] for p in VERSIONS.glob("[0-9][0-9][0-9][0-9]_*.py"))
NEWEST = REVISIONS[-1]


def _migrate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    status = main(["migrate", *args])
    return status, capsys.readouterr().out.splitlines()


def _check_walk(capsys: pytest.CaptureFixture[str], url: str, shown: str) -> None:
    status, out = _migrate(capsys, "--check", "--database-url", url)
    assert status == 1
    assert out[:2] == [f"database: {shown}", f"was at nothing (an empty database) (of {NEWEST})"]
    assert [line.split()[1] for line in out[2:-1]] == REVISIONS
    assert all(line.startswith("waiting: ") for line in out[2:-1])
    assert out[-1] == f"{len(REVISIONS)} migration(s) waiting: run `paohuzi migrate`"

    status, out = _migrate(capsys, "--database-url", url)
    assert status == 0
    assert [line.split()[1] for line in out[2:-1]] == REVISIONS
    first = "initial schema: players, rooms and seats, matches and their seats, hands, the action log"
    assert out[2] == f"applied 0001 {first}"
    assert out[-1] == f"now at {NEWEST} (newest)"

    status, out = _migrate(capsys, "--database-url", url)
    assert (status, out[1:]) == (0, [f"was at {NEWEST} (of {NEWEST})", "nothing to apply", f"now at {NEWEST} (newest)"])
    status, out = _migrate(capsys, "--check", "--database-url", url)
    assert (status, out[1:]) == (0, [f"was at {NEWEST} (of {NEWEST})", "up to date"])


def test_migrate_sqlite_from_another_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # not the checkout: the migrations come from the package
    monkeypatch.delenv("PAOHUZI_DATABASE_URL", raising=False)
    _check_walk(capsys, "sqlite:///data/paohuzi.sqlite3", "sqlite:///data/paohuzi.sqlite3")
    assert (tmp_path / "data" / "paohuzi.sqlite3").is_file()


def test_migrate_reads_the_environment_variable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAOHUZI_DATABASE_URL", f"sqlite:///{tmp_path / 'env.sqlite3'}")
    status, out = _migrate(capsys)
    assert status == 0 and out[0] == f"database: sqlite:///{tmp_path / 'env.sqlite3'}"
    assert out[-1] == f"now at {NEWEST} (newest)"


@pytest.mark.skipif(not postgres_available(), reason="no PostgreSQL on 127.0.0.1:5432")
def test_migrate_postgresql(capsys: pytest.CaptureFixture[str]) -> None:
    with postgres_schema() as url:
        _check_walk(capsys, url, url)


def test_an_unreachable_database_is_one_line_with_the_password_hidden(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _migrate(capsys, "--database-url", "postgresql://someone:secret@127.0.0.1:1/nothing")
    assert status == 2
    assert out[0] == "database: postgresql+psycopg://someone:***@127.0.0.1:1/nothing"
    assert out[-1].startswith("paohuzi migrate: OperationalError: ") and "secret" not in "\n".join(out)
    assert len(out) == 2


def test_no_source_checkout_needed() -> None:
    """The ini and the migrations are package data (pyproject.toml), found beside the module."""
    from paohuzi.server.schema import alembic_config

    location = Path(alembic_config().get_main_option("script_location"))
    import paohuzi

    assert location == Path(paohuzi.__file__).parent / "server" / "migrations"
    assert sorted(p.name[:4] for p in (location / "versions").glob("[0-9]*.py")) == REVISIONS
