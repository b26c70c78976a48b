"""``paohuzi serve`` for the tests without paying its imports each time: a template process that has imported
what the command imports (FastAPI, SQLAlchemy, pydantic, uvicorn, the server package: about 0.7 s of CPU, three
quarters of a start) and forks one child per server. The child is then a real ``paohuzi serve``: it sets the
environment, working folder and log it was given and runs ``paohuzi.cli.main`` with the command line, so it
reads its settings, migrates its database, binds its port and handles its signals exactly as the command does.
Only the interpreter and its imports are shared, copy-on-write (a test of start-up itself runs the command, e.g.
tests/server/test_testing_mode.py).

``PAOHUZI_TEST_FORKSERVER=0`` starts every server as a plain subprocess instead (as before; for a suspected
difference). One template per pytest worker, started at its first server and ended with the worker.

Run as ``python -m tests.support.forkserver STATUS_FOLDER``: requests are JSON lines on stdin
(``{"argv", "env", "cwd", "log"}``), each answered by the child's pid on stdout; when a child ends, its exit
status (as :attr:`subprocess.Popen.returncode` gives it: negative for a signal) is written to
``STATUS_FOLDER/<pid>``.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

ENABLED = os.environ.get("PAOHUZI_TEST_FORKSERVER", "1") != "0"


class ForkedProcess:
    """A server forked by the template: what the tests use of :class:`subprocess.Popen` (``pid``, ``poll``,
    ``wait``, ``returncode``, ``send_signal``, ``terminate``, ``kill``). It is the template's child, not ours:
    its exit status comes from the status file the template writes when it reaps it."""

    def __init__(self, pid: int, status: Path) -> None:
        self.pid = pid
        self._status = status
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and self._status.exists():
            text = self._status.read_text()
            if text:  # written whole by the template, but read it once it is there
                self.returncode = int(text)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"forked server {self.pid}", timeout or 0)
            time.sleep(0.02)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class _Template:
    """The worker's template process and the pipe to it."""

    def __init__(self) -> None:
        self.status = Path(tempfile.mkdtemp(prefix="paohuzi-forkserver-"))
        root = Path(__file__).resolve().parents[2]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.forkserver", str(self.status)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=root,
            env=os.environ.copy(),
        )
        self.lock = threading.Lock()  # servers are started from several threads at once (in_parallel)

    def spawn(self, argv: list[str], env: dict[str, str], cwd: Path, log: Path) -> ForkedProcess:
        request = json.dumps({"argv": argv, "env": env, "cwd": str(cwd), "log": str(log)}) + "\n"
        assert self.proc.stdin is not None and self.proc.stdout is not None
        with self.lock:
            self.proc.stdin.write(request.encode())
            self.proc.stdin.flush()
            answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"the fork server exited ({self.proc.poll()})")
        return ForkedProcess(int(answer), self.status / answer.decode().strip())

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()  # the template ends at the end of its input…
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:  # …or is made to
                self.proc.kill()
                self.proc.wait(10)


_TEMPLATE: list[_Template] = []
_TEMPLATE_LOCK = threading.Lock()


def spawn(argv: list[str], env: dict[str, str], cwd: Path, log: Path) -> ForkedProcess:
    """Start ``argv`` (``[python, -m, paohuzi.cli, serve, …]``: its arguments after ``paohuzi.cli``) as a child
    of the worker's template, with exactly ``env``, in ``cwd``, stdout and stderr to ``log``."""
    log.write_bytes(b"")  # there at once, as Popen's would be: the caller reads it while the child starts
    with _TEMPLATE_LOCK:
        if not _TEMPLATE or _TEMPLATE[0].proc.poll() is not None:
            _TEMPLATE[:] = [_Template()]
            atexit.register(_TEMPLATE[0].close)
        template = _TEMPLATE[0]
    return template.spawn(argv, env, cwd, log)


# ---- the template process ---------------------------------------------------------------------------------


def _reap(status: Path) -> None:
    """Write the exit status of every ended child (SIGCHLD), as Popen.returncode would say it."""
    while True:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        returncode = -os.WTERMSIG(code) if os.WIFSIGNALED(code) else os.WEXITSTATUS(code)
        partial = status / f".{pid}"
        partial.write_text(str(returncode))
        partial.rename(status / str(pid))  # whole or absent for the reader


def _child(request: dict[str, Any]) -> None:
    """In the forked child: become the requested ``paohuzi serve`` and never return. Its standard input,
    output and error replace the template's pipes (so it holds no end of them)."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        if log > 2:
            os.close(log)
        if devnull > 2:
            os.close(devnull)
        sys.stdin = open(os.devnull)  # noqa: SIM115 — the child's for the rest of its life
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
        from paohuzi import cli

        argv = request["argv"]
        sys.argv = ["paohuzi", *argv]
        code = cli.main(argv) or 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 — told in the log, as the command's own traceback would be
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001, S110 — nothing more to tell anyone
                pass
        os._exit(code)


def _serve(status: Path) -> None:
    # What every child imports: the command line (each command's module, to build the parser), the server
    # (FastAPI, SQLAlchemy, pydantic models), uvicorn with the loop, HTTP and websocket protocols it picks, and
    # what a start imports on its way: alembic for the migrations (with mako and pygments), anyio's backend, the
    # database driver and Redis's client.
    # A child imported these itself at every start: ~0.05 s of CPU each (alembic more).
    import alembic.command  # noqa: F401
    import alembic.config  # noqa: F401
    import anyio._backends._asyncio  # noqa: F401
    import uvicorn  # noqa: F401
    import uvicorn.lifespan.on  # noqa: F401
    import uvicorn.loops.auto  # noqa: F401
    import uvicorn.protocols.http.auto  # noqa: F401
    import uvicorn.protocols.websockets.auto  # noqa: F401

    import paohuzi.server.app  # noqa: F401
    from paohuzi import cli

    with contextlib.suppress(ImportError):  # PostgreSQL's driver, the shared mode's Redis client
        import psycopg  # noqa: F401
        import redis.asyncio  # noqa: F401
        import sqlalchemy.dialects.postgresql.psycopg  # noqa: F401
    with contextlib.suppress(ImportError):  # uvicorn's "auto" choices where installed (uvicorn[standard])
        import uvicorn.loops.uvloop  # noqa: F401
        import uvicorn.protocols.http.httptools_impl  # noqa: F401
        import uvloop  # noqa: F401
    cli.build_parser()
    # The template's objects frozen before the first fork (gc.freeze: a generation the collector never scans):
    # a child's start-up collects its own garbage and freezes what it made (paohuzi.server.gc_tuning, as in
    # production), and with these frozen that collection walks only what the child made since the fork — not
    # the ~135,000 objects imported here (~0.1 s of CPU a start, and the copy-on-write faults of touching them).
    gc.collect()
    gc.freeze()
    signal.signal(signal.SIGCHLD, lambda *_: _reap(status))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a worker's Ctrl-C ends the template through its input
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request)
        sys.stdout.write(f"{pid}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _serve(Path(sys.argv[1]))
