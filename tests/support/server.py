"""``paohuzi serve`` as a subprocess on a free port, for the server and the browser tests (real processes, no
mocks: docs/DEVELOPING.md). :func:`running` starts one and stops it afterwards: the shape of every fixture
that needs a server of its own (a few environment settings, a module's or a test's lifetime)."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import httpx

# Short time-outs so that the server tests run fast; tests that need others pass their own.
TEST_ENV = {
    "PAOHUZI_BOT_DELAY": "0.01",
    "PAOHUZI_OFFLINE_GRACE": "0.3",
    "PAOHUZI_HTTP_RATE": "1000",
    "PAOHUZI_HTTP_BURST": "1000",
    "PAOHUZI_BETWEEN_HANDS": "0.05",
    "PAOHUZI_SEED_WAIT": "0.05",  # the test clients send no client seed (issue 32): deal without waiting long
    "PAOHUZI_TURN_SECONDS": "30",
    "PAOHUZI_CLAIM_SECONDS": "30",
    "PAOHUZI_HELLO_TIMEOUT": "5",
    "PAOHUZI_LOG_LEVEL": "DEBUG",  # one line per action: the server log tells a failing test's story
}

# The browser tests: fast computers and short pauses so that a whole hand takes seconds; people (the tests) get
# the normal time. Plain (not JSON) logs at INFO.
WEB_ENV = {
    "PAOHUZI_BOT_DELAY": "0.03",
    "PAOHUZI_BETWEEN_HANDS": "0.3",
    "PAOHUZI_SEED_WAIT": "0.5",  # the browser answers deal_commit at once; scripted players never do
    "PAOHUZI_TURN_SECONDS": "60",
    "PAOHUZI_CLAIM_SECONDS": "60",
    "PAOHUZI_QUICK_HANDS": "2",
    "PAOHUZI_LOG_LEVEL": "WARNING",
}
WEB_ARGS = ["--plain-logs", "--log-level", "INFO"]


class ServerProcess:
    """``paohuzi serve`` as a subprocess on a free port (``--port 0``; the port is read from its log)."""

    _count = itertools.count(1)

    def __init__(
        self,
        workdir: Path,
        database_url: str | None = None,
        env: dict[str, str] | None = None,
        args: list[str] | None = None,
        *,
        base_env: dict[str, str] = TEST_ENV,
    ) -> None:
        """``database_url`` None: SQLite in ``workdir``; ``env`` over ``base_env`` (:data:`TEST_ENV`, or
        :data:`WEB_ENV` for the browser tests)."""
        self.workdir = workdir
        self.database_url = database_url or f"sqlite:///{workdir / 'paohuzi.sqlite3'}"
        self.env = dict(base_env, **(env or {}))
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

    def start(self, timeout: float = 60.0) -> ServerProcess:
        """Start it and wait until it listens; a deadline, not a pause (a loaded machine took over 30 s to start
        a shared-mode server on PostgreSQL)."""
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
        self.kill()  # not left running behind the failed test
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


@contextmanager
def running(
    workdir: Path,
    database_url: str | None = None,
    env: dict[str, str] | None = None,
    args: list[str] | None = None,
    *,
    base_env: dict[str, str] = TEST_ENV,
) -> Iterator[ServerProcess]:
    """A started :class:`ServerProcess` (arguments as there), stopped afterwards. A fixture of a module::

    @pytest.fixture(scope="module")
    def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
        with running(tmp_path_factory.mktemp("server"), env={"PAOHUZI_BOT_DELAY": "0"}) as proc:
            yield proc
    """
    proc = ServerProcess(workdir, database_url, env, args, base_env=base_env).start()
    try:
        yield proc
    finally:
        proc.stop()


def web_server(workdir: Path, env: dict[str, str] | None = None) -> ServerProcess:
    """A server (not yet started) as the browser tests want it: :data:`WEB_ENV`, plain logs, SQLite in
    ``workdir``."""
    return ServerProcess(workdir, None, env, WEB_ARGS, base_env=WEB_ENV)


def running_web(workdir: Path, env: dict[str, str] | None = None) -> AbstractContextManager[ServerProcess]:
    """:func:`running` as the browser tests want it: :data:`WEB_ENV`, plain logs, SQLite in ``workdir``."""
    return running(workdir, None, env, WEB_ARGS, base_env=WEB_ENV)
