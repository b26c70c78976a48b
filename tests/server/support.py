"""Test support: a real server process and real websocket clients (no mocks, docs/DEVELOPING.md)."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

PG_BASE = "postgresql+psycopg://postgres@127.0.0.1:5432/test"

# Short time-outs so that the tests run fast; tests that need others pass their own.
TEST_ENV = {
    "PAOHUZI_BOT_DELAY": "0.01",
    "PAOHUZI_OFFLINE_GRACE": "0.3",
    "PAOHUZI_HTTP_RATE": "1000",
    "PAOHUZI_HTTP_BURST": "1000",
    "PAOHUZI_BETWEEN_HANDS": "0.05",
    "PAOHUZI_TURN_SECONDS": "30",
    "PAOHUZI_CLAIM_SECONDS": "30",
    "PAOHUZI_HELLO_TIMEOUT": "5",
    "PAOHUZI_LOG_LEVEL": "DEBUG",  # one line per action: the server log tells a failing test's story
}


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
        yield f"{PG_BASE}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


class ServerProcess:
    """``paohuzi serve`` as a subprocess on a free port (``--port 0``; the port is read from its log)."""

    _count = itertools.count(1)

    def __init__(
        self,
        workdir: Path,
        database_url: str,
        env: dict[str, str] | None = None,
        args: list[str] | None = None,
    ) -> None:
        self.workdir = workdir
        self.database_url = database_url
        self.env = dict(TEST_ENV, **(env or {}))
        self.args = list(args or [])  # more ``paohuzi serve`` options
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.log_path: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = 30.0) -> ServerProcess:
        self.log_path = self.workdir / f"server-{next(self._count)}.log"
        env = dict(os.environ, **self.env)
        cmd = [
            sys.executable,
            "-m",
            "paohuzi.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--database-url",
            self.database_url,
            *self.args,
        ]
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=self.workdir)
        deadline = time.monotonic() + timeout
        pattern = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")
        while time.monotonic() < deadline:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
            found = pattern.search(text)
            if found:
                self.port = int(found.group(1))
                return self
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{text[-3000:]}")
            time.sleep(0.05)
        raise RuntimeError("server did not start:\n" + self.log_path.read_text(errors="replace")[-3000:])

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def wait(self, timeout: float) -> int:
        """Wait for the process to end by itself; its exit status."""
        assert self.proc is not None
        return self.proc.wait(timeout)

    def kill(self) -> None:
        """``kill -9``: no shutdown at all."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()

    def rss_bytes(self) -> int:
        """The server process's resident memory (Linux ``/proc``)."""
        assert self.proc is not None
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS")

    def log_lines(self) -> list[dict[str, Any]]:
        out = []
        assert self.log_path is not None
        for line in self.log_path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                out.append({"raw": line})
        return out

    def api(
        self,
        method: str,
        path: str,
        token: str | None = None,
        json_body: Any = None,
        expect: int | None = 200,
    ) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = httpx.request(method, self.url + path, headers=headers, json=json_body, timeout=30)
        if expect is not None:
            assert r.status_code == expect, f"{method} {path}: {r.status_code} {r.text}"
        return r.json()


class Client:
    """A player: a guest identity over HTTP and a websocket (the sync ``websockets`` client)."""

    def __init__(self, server: ServerProcess, token: str | None = None, nickname: str | None = None) -> None:
        self.server = server
        if token is None:
            data = server.api("POST", "/api/guests", json_body={"nickname": nickname} if nickname else None, expect=201)
            token = data["token"]
            self.player = data["player"]
        else:
            self.player = server.api("GET", "/api/me", token)["player"]
        self.token = token
        self.ws: ClientConnection | None = None
        self.frames: list[dict[str, Any]] = []
        self._ids = itertools.count(1)

    @property
    def id(self) -> int:
        return int(self.player["id"])

    def api(self, method: str, path: str, json_body: Any = None, expect: int | None = 200) -> Any:
        return self.server.api(method, path, self.token, json_body, expect)

    def connect(self, origin: str | None = None, hello: bool = True) -> dict[str, Any] | None:
        self.server_port = self.server.port
        self.ws = connect(self.server.ws_url, origin=origin, max_size=2**22, open_timeout=10).__enter__()
        if not hello:
            return None
        self.send({"type": "hello", "token": self.token})
        return self.expect("welcome")

    def send(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        self.ws.send(json.dumps(message))

    def send_raw(self, text: str | bytes) -> None:
        assert self.ws is not None
        self.ws.send(text)

    def next_id(self) -> int:
        return next(self._ids)

    def recv(self, timeout: float = 20.0) -> dict[str, Any]:
        assert self.ws is not None
        frame = json.loads(self.ws.recv(timeout=timeout))
        self.frames.append(frame)
        return frame

    def expect(
        self, kind: str, timeout: float = 20.0, where: Callable[[dict[str, Any]], bool] | None = None
    ) -> dict[str, Any]:
        """Frames are read (and kept in :attr:`frames`) until one of type ``kind`` (matching ``where``)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {kind!r} frame within {timeout} s; last: {self.frames[-3:]}")
            frame = self.recv(left)
            if frame.get("type") == kind and (where is None or where(frame)):
                return frame

    def closed_with(self, timeout: float = 10.0) -> tuple[int | None, str]:
        """Read until the server closes; the close code and reason."""
        assert self.ws is not None
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self.recv(deadline - time.monotonic())
        except ConnectionClosed as exc:
            rcvd = exc.rcvd
            return (rcvd.code, rcvd.reason) if rcvd is not None else (None, "")
        raise TimeoutError("the server did not close the connection")

    def drain(self, quiet: float = 0.3) -> None:
        """Read (and keep) frames until none comes for ``quiet`` seconds."""
        try:
            while True:
                self.recv(quiet)
        except TimeoutError:
            pass

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.ws = None


def first_legal(legal: list[str]) -> str:
    return legal[0]


def never_hu(legal: list[str]) -> str:
    """The first legal action other than 胡. Without 有胡必胡 (off in the presets) a seat offered 胡 may
    always decline it (R4.2.3, R4.4): a test that needs a hand to go on must not let the deal end it."""
    return next((a for a in legal if a != "hu"), legal[0])


def play_seat(
    client: Client,
    until: str = "hand_over",
    choose: Callable[[list[str]], str] = first_legal,
    timeout: float = 60.0,
    max_actions: int | None = None,
    stop_when: Callable[[dict[str, Any]], bool] | None = None,
) -> dict[str, Any] | None:
    """Play this client's seat (one action per decision, waiting for each to be answered) until a frame of
    type ``until`` arrives (returned), until ``max_actions`` actions were played, or until a game/update
    frame satisfies ``stop_when`` while no action of ours is in flight (then None)."""
    deadline = time.monotonic() + timeout
    waiting_for: int | None = None
    seen = [f for f in client.frames if f["type"] in ("game", "update")]
    latest: dict[str, Any] | None = seen[-1] if seen else None  # a snapshot already read counts
    last: dict[str, Any] | None = latest  # the newest game/update frame, acted on or not
    played = 0
    while time.monotonic() < deadline:
        client.waiting_for = waiting_for
        if stop_when is not None and waiting_for is None and last is not None and stop_when(last):
            return None  # checked here too: after an error frame nothing else may come
        if waiting_for is None and latest is not None and latest["view"]["legal"]:
            if max_actions is not None and played >= max_actions:
                return None
            waiting_for = client.next_id()
            client.send(
                {
                    "type": "act",
                    "action": choose(latest["view"]["legal"]),
                    "hand": latest["hand"],
                    "id": waiting_for,
                }
            )
            played += 1
            latest = None
        frame = client.recv(deadline - time.monotonic())
        kind = frame["type"]
        if kind == until:
            return frame
        if kind == "error" and frame.get("id") == waiting_for:
            waiting_for = None
        if kind in ("game", "update"):
            if frame.get("id") is not None and frame.get("id") == waiting_for:
                waiting_for = None
            latest = last = frame
    raise TimeoutError(f"no {until!r} within {timeout} s")


def describe(clients: list[Client]) -> str:
    """The last frames each client got, and the server's last log lines: for a failing test's message."""
    lines = []
    for c in clients:
        last = [
            {k: f.get(k) for k in ("type", "seq", "id", "code")} | {"legal": f.get("view", {}).get("legal")}
            for f in c.frames[-4:]
        ]
        lines.append(f"player {c.id}: {last}")
    log = c.server.log_path.read_text(errors="replace").splitlines()[-15:] if clients else []
    return "\n".join(lines + ["server log:"] + log)


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
