"""The real server on a thread of the test process, for a test that must make an interleaving certain
rather than likely: real sockets, real websockets, the real app (``create_app``), with the hub reachable
from the test between two steps of its event loop (:meth:`ThreadServer.on_loop`)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import uvicorn

from paohuzi.commands.serve import listen_socket, uvicorn_config
from paohuzi.server.app import create_app
from paohuzi.server.config import Settings
from paohuzi.server.hub import Hub

from .server import ServerProcess

T = TypeVar("T")


class ThreadServer(ServerProcess):
    """``create_app`` under uvicorn on a thread of this process: the same server as ``paohuzi serve``, whose
    hub a test can reach (:meth:`on_loop`) to give a seat its own bot."""

    def __init__(self, workdir: Path, settings: Settings) -> None:
        super().__init__(workdir, settings.database_url)
        self.settings = settings
        self.loop: asyncio.AbstractEventLoop | None = None
        self.hub: Hub | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self, timeout: float = 30.0) -> ThreadServer:
        app = create_app(self.settings)
        started = threading.Event()

        def on_started() -> None:  # in the lifespan, on the server's loop, once the hub is up
            self.loop = asyncio.get_running_loop()
            self.hub = app.state.hub
            started.set()

        app.state.on_started = on_started
        self._server = uvicorn.Server(uvicorn_config(app, self.settings, None))  # as `paohuzi serve` has it
        sock = listen_socket("127.0.0.1", 0, 0)
        self.port = sock.getsockname()[1]
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        assert started.wait(timeout), "the server did not start"
        return self

    def on_loop(self, fn: Callable[[Hub], Awaitable[T]], timeout: float = 10.0) -> T:
        """``await fn(hub)`` on the server's event loop (between two of its steps); its result."""
        assert self.loop is not None and self.hub is not None
        hub = self.hub

        async def call() -> T:
            return await fn(hub)

        return asyncio.run_coroutine_threadsafe(call(), self.loop).result(timeout)

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(15)
