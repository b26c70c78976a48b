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
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx

from . import forkserver

# The tests' one HTTP client: ``httpx.request`` builds a client (and its TLS context) per call, ~25 ms of
# CPU each — hundreds of calls per module. Without keep-alive, as before: each call its own connection, so a
# server restarted on the same port never meets a stale pooled one. httpx clients may be shared by threads.
HTTP = httpx.Client(timeout=30, limits=httpx.Limits(max_keepalive_connections=0))

# Password hashes at argon2id's least cost (testing mode only): a claim or log-in cost ~0.3 s of CPU at the
# production cost, which test_accounts.py's server keeps checking (docs/DEVELOPING.md).
CHEAP_PASSWORDS = {"PAOHUZI_TESTING": "1", "PAOHUZI_TEST_CHEAP_PASSWORDS": "1"}

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
    **CHEAP_PASSWORDS,
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
    **CHEAP_PASSWORDS,
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
        self.proc: subprocess.Popen[bytes] | forkserver.ForkedProcess | None = None
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
        if forkserver.ENABLED:  # the same command, forked from a process that has done its imports
            self.proc = forkserver.spawn(cmd[3:], env, self.workdir, self.log_path)
        else:
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
        r = HTTP.request(method, self.url + path, headers=headers, json=json_body)
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


class ServerPool:
    """Servers shared by the tests of one scope (the ``servers`` fixture of ``tests/server/conftest.py``: a
    module), one per configuration: the database (``"sqlite"``, ``"postgresql"`` or a shared deployment of
    ``count`` processes), the environment and the options. Started when a test first asks for it, stopped with
    the pool. A server start costs about a second of CPU (mostly FastAPI, SQLAlchemy and pydantic being
    imported), so a test that needs no fresh server takes one from here and keeps to players and rooms of its
    own; a test of a restart, a crash, a rate limit or anything else that changes the whole server starts its
    own with :func:`running`."""

    def __init__(self, workdir: Callable[[], Path]) -> None:
        """``workdir``: a fresh folder per configuration (``tmp_path_factory.mktemp``)."""
        self._workdir = workdir
        self._servers: dict[tuple[Any, ...], list[ServerProcess]] = {}
        self._deployments: dict[tuple[Any, ...], dict[str, str]] = {}
        self._resources = ExitStack()

    def get(
        self,
        database: str = "sqlite",
        env: dict[str, str] | None = None,
        args: list[str] | None = None,
        *,
        base_env: dict[str, str] = TEST_ENV,
    ) -> ServerProcess:
        """The pool's server of this configuration, started if need be. ``database``: ``"sqlite"`` (a file of
        its own) or ``"postgresql"`` (a fresh schema; the test is skipped without PostgreSQL)."""
        if database not in ("sqlite", "postgresql"):
            raise ValueError(f"database must be 'sqlite' or 'postgresql', not {database!r}")
        return self._start(database, 1, env, args, base_env)[0]

    def shared(
        self,
        count: int,
        env: dict[str, str] | None = None,
        *,
        base_env: dict[str, str] = TEST_ENV,
    ) -> tuple[list[ServerProcess], dict[str, str]]:
        """``count`` processes of one shared deployment (issue 14: one fresh PostgreSQL schema, Redis with a
        prefix of its own), started side by side; with the deployment (``database_url`` and the
        ``PAOHUZI_REDIS_*`` variables, as the ``shared_deployment`` fixture gives it). Skipped without
        PostgreSQL or Redis."""
        servers = self._start("shared", count, env, None, base_env)
        return servers, self._deployments[self._key("shared", count, env, None, base_env)]

    @staticmethod
    def _key(
        database: str, count: int, env: dict[str, str] | None, args: list[str] | None, base_env: dict[str, str]
    ) -> tuple[Any, ...]:
        return database, count, tuple(sorted((env or {}).items())), tuple(args or ()), tuple(sorted(base_env.items()))

    def _start(
        self,
        database: str,
        count: int,
        env: dict[str, str] | None,
        args: list[str] | None,
        base_env: dict[str, str],
    ) -> list[ServerProcess]:
        key = self._key(database, count, env, args, base_env)
        known = self._servers.get(key)
        if known is not None:
            dead = [s for s in known if s.proc is None or s.proc.poll() is not None]
            # a server of the pool that died took its tests' state with it: say so rather than start another
            assert not dead, f"a pooled server exited ({dead[0].proc and dead[0].proc.returncode}): {dead[0].log_path}"
            return known
        workdir = self._workdir()
        url, extra = self._database(database, workdir)
        servers = [ServerProcess(workdir, url, dict(env or {}, **extra), args, base_env=base_env) for _ in range(count)]
        for server in servers:  # stopped with the pool, even those whose start below failed
            self._resources.callback(server.stop)
        threads = [threading.Thread(target=server.start) for server in servers[1:]]
        for t in threads:
            t.start()
        servers[0].start()
        for t in threads:
            t.join()
        for server in servers:
            if not server.port:
                raise RuntimeError(f"server did not start: {server.log_path}")
        self._servers[key] = servers
        if database == "shared":
            self._deployments[key] = {"database_url": servers[0].database_url, **extra}
        return servers

    def _database(self, database: str, workdir: Path) -> tuple[str | None, dict[str, str]]:
        """The database URL (None: SQLite in ``workdir``) and the environment of a shared deployment."""
        import pytest

        from .databases import postgres_available, postgres_schema, redis_url

        if database == "sqlite":
            return None, {}
        if not postgres_available():
            pytest.skip("no PostgreSQL on 127.0.0.1:5432")
        if database == "postgresql":
            return self._resources.enter_context(postgres_schema()), {}
        redis = redis_url()
        if redis is None:
            pytest.skip("no Redis on 127.0.0.1:6379 and redis-server could not be installed or started")
        url = self._resources.enter_context(postgres_schema())
        return url, {"PAOHUZI_REDIS_URL": redis, "PAOHUZI_REDIS_PREFIX": "test-" + uuid.uuid4().hex[:10]}

    def close(self) -> None:
        """Stop every server (then drop their PostgreSQL schemas)."""
        self._resources.close()
        self._servers.clear()
        self._deployments.clear()
