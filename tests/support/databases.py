"""The databases of the tests: a fresh schema in the local PostgreSQL, and a Redis for the shared mode (real
services, no mocks: docs/DEVELOPING.md)."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

PG_BASE = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def postgres_available() -> bool:
    try:
        import psycopg

        with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", connect_timeout=2):
            return True
    except Exception:  # noqa: BLE001
        return False


@contextmanager
def postgres_schema() -> Iterator[str]:
    """A fresh schema in the ``test`` database, dropped afterwards; yields a database URL that uses it."""
    import psycopg

    schema = "paohuzi_" + uuid.uuid4().hex[:12]
    with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_BASE}?options=-csynchronous_commit%3Doff+-csearch_path%3D{schema}"
    finally:
        with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


_REDIS: dict[str, Any] = {}


def _redis_answers(port: int) -> bool:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def redis_url() -> str | None:
    """A Redis for the shared-mode tests: the one on 127.0.0.1:6379 when it answers, else a
    ``redis-server`` started for this test run on a free port (installed with apt first when missing and
    we are root). None only when there is no way to get one (the caller skips, saying so)."""
    if "url" in _REDIS:
        return str(_REDIS["url"])
    if _redis_answers(6379):
        _REDIS["url"] = "redis://127.0.0.1:6379/0"
        return str(_REDIS["url"])
    import atexit
    import shutil
    import socket
    import tempfile

    if shutil.which("redis-server") is None and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-q", "redis-server"], check=False, capture_output=True)
    server = shutil.which("redis-server")
    if server is None:
        return None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    folder = tempfile.mkdtemp(prefix="paohuzi-redis-")
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    atexit.register(proc.kill)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not _redis_answers(port):
        time.sleep(0.05)
    if not _redis_answers(port):
        return None
    _REDIS["url"] = f"redis://127.0.0.1:{port}/0"
    return str(_REDIS["url"])
