"""Stopping ``paohuzi serve`` (docs/server.md): SIGTERM is a clean shutdown — every websocket is closed with
1012 (the clients reconnect), the database queue is drained — and the process then exits with status 0,
not by the signal (uvicorn raises it again once it has stopped)."""

from __future__ import annotations

import signal
from pathlib import Path

from ..support.clients import Client
from ..support.server import ServerProcess


def test_sigterm_closes_the_websockets_and_exits_with_status_0(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path, f"sqlite:///{tmp_path / 'paohuzi.sqlite3'}").start()
    try:
        client = Client(server)
        client.connect()
        assert server.proc is not None
        server.proc.send_signal(signal.SIGTERM)
        assert client.closed_with()[0] == 1012  # "service restart": the client reconnects
        assert server.wait(30) == 0
        assert [x.get("msg") for x in server.log_lines() if x.get("msg") == "server stopped"] == ["server stopped"]
    finally:
        server.kill()
