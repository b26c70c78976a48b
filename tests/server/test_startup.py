"""Start-up safeguards for an operator (issue 35 §7): the shared mode refuses SQLite in one line naming
both settings; the start-up log says which mode runs, with the process id (and, shared, the Redis prefix,
which every process of one deployment must share: docs/server.md)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx
import pytest

from paohuzi.cli import main
from paohuzi.server.config import Settings
from paohuzi.server.watchdog import Notifier

from ..support.server import ServerProcess, running

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


def test_systemd_is_told_ready_pinged_by_the_watchdog_and_told_stopping(tmp_path: Path) -> None:
    """``Type=notify`` + ``WatchdogSec=`` (deploy/systemd/paohuzi@.service): a real datagram socket stands
    for systemd's. ``READY=1`` comes once the server serves, ``WATCHDOG=1`` every third of WATCHDOG_USEC
    from its event loop, ``STOPPING=1`` at SIGTERM."""
    path = tmp_path / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as systemd:
        systemd.bind(str(path))
        systemd.settimeout(30)
        env = {"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "300000"}  # a ping every 0.1 s
        server = ServerProcess(tmp_path, env=env).start()
        try:
            first = systemd.recv(256).decode()
            assert first == f"READY=1\nMAINPID={server.pid}"
            assert httpx.get(server.url + "/healthz").status_code == 200  # ready means serving
            assert [systemd.recv(256).decode() for _ in range(3)] == ["WATCHDOG=1"] * 3
            server.stop()
            told = systemd.recv(256).decode()
            while told == "WATCHDOG=1":
                told = systemd.recv(256).decode()
            assert told == "STOPPING=1" and server.proc is not None and server.proc.returncode == 0
        finally:
            server.stop()


def test_without_systemd_the_notifier_does_nothing() -> None:
    quiet = Notifier({})
    assert (quiet.notify("READY=1"), quiet.interval) == (False, None)
    assert Notifier({"NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "1"}).interval is None
    assert Notifier({"NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "3000000"}).address == "\0x"
    assert Notifier({"NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "3000000"}).interval == 1.0


def test_the_access_log_is_an_option(tmp_path: Path) -> None:
    """``PAOHUZI_ACCESS_LOG=1``: a line per HTTP request (uvicorn's); off by default (the module's server)."""
    with running(tmp_path, env={"PAOHUZI_ACCESS_LOG": "1"}) as proc:
        assert httpx.get(proc.url + "/healthz?from=access-test").status_code == 200
        deadline = time.monotonic() + 20
        while not any("GET /healthz?from=access-test HTTP/1.1" in str(x.get("msg")) for x in proc.log_lines()):
            assert time.monotonic() < deadline, "no access log line"
            time.sleep(0.05)
        line = next(x for x in proc.log_lines() if "access-test" in str(x.get("msg")))
        assert line["logger"] == "uvicorn.access"
        assert line["msg"].endswith('"GET /healthz?from=access-test HTTP/1.1" 200')


def test_no_access_log_by_default(server: ServerProcess) -> None:
    assert httpx.get(server.url + "/healthz?from=quiet").status_code == 200
    assert httpx.get(server.url + "/readyz").status_code == 200  # logged after the first, were it logged
    assert not any("from=quiet" in str(x.get("msg")) for x in server.log_lines())
