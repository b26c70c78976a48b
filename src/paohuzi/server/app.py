"""The ASGI application: :func:`create_app` wires the database, the hub, the lobby API, the websocket and
the web client's static files, with error handlers that never show a stack trace.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from paohuzi import __version__
from paohuzi.server.api import health_router, router
from paohuzi.server.config import Settings
from paohuzi.server.connection import TokenBucket
from paohuzi.server.db import Database
from paohuzi.server.hub import Hub
from paohuzi.server.logs import log
from paohuzi.server.room import RoomError
from paohuzi.server.ws import websocket_endpoint

__all__ = ["create_app", "web_dir"]

_PLACEHOLDER = """<!doctype html>
<html lang="zh"><head><meta charset="utf-8"><title>paohuzi 跑胡子</title></head>
<body><h1>paohuzi 跑胡子</h1>
<p>The server is running. The web client is not installed yet; see <a href="/docs">the API docs</a>
and <code>docs/protocol.md</code>.</p></body></html>
"""


def web_dir() -> Path:
    """The web client's folder (``paohuzi/web/``)."""
    return Path(str(resources.files("paohuzi") / "web"))


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


class HttpRateLimit:
    """Pure ASGI middleware: at most ``rate`` lobby-API requests a second per client address (bursts of
    ``burst``); beyond that, HTTP 429 ``rate_limited``. Websockets have their own limit (``ws.py``)."""

    def __init__(self, app: Any, rate: float, burst: int) -> None:
        self.app = app
        self.rate = rate
        self.burst = burst
        self.buckets: dict[str, TokenBucket] = {}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/api/"):
            client = scope.get("client")
            key = client[0] if client else "?"
            bucket = self.buckets.get(key)
            if bucket is None:
                if len(self.buckets) > 50_000:
                    self.buckets.clear()
                bucket = self.buckets[key] = TokenBucket(self.rate, self.burst)
            if not bucket.take():
                response = _error(429, "rate_limited", "too many requests; slow down")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The server's app. The database is opened, migrated and the open matches resumed at start-up."""
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = Database(settings.database_url)
        await asyncio.to_thread(db.migrate)
        db.start()
        hub = Hub(settings, db)
        app.state.hub = hub
        await hub.recover()
        hub.start_housekeeping()
        log(20, "server started", database=db.backend, version=__version__)
        try:
            yield
        finally:
            await hub.shutdown()
            db.stop()
            log(20, "server stopped")

    app = FastAPI(
        title="paohuzi 跑胡子 server",
        version=__version__,
        description="Lobby API of the paohuzi game server. The game itself runs over the websocket `/ws`; "
        "see docs/protocol.md.",
        lifespan=lifespan,
    )
    app.state.settings = settings

    @app.exception_handler(RoomError)
    async def room_error(_request: Request, exc: RoomError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors()[:3]:
            loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
            parts.append(f"{loc or 'body'}: {err.get('msg', 'invalid')}")
        return _error(422, "invalid", "; ".join(parts))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "bad_request", 401: "unauthorized"}.get(exc.status_code, "bad_request")
        return _error(exc.status_code, code, str(exc.detail))

    @app.exception_handler(Exception)
    async def crashed(request: Request, exc: Exception) -> JSONResponse:
        log(40, "request failed", path=request.url.path, exc_info=(type(exc), exc, exc.__traceback__))
        return _error(500, "internal", "internal server error")

    app.add_middleware(HttpRateLimit, rate=settings.http_rate, burst=settings.http_burst)
    app.include_router(health_router)
    app.include_router(router)
    app.add_api_websocket_route("/ws", websocket_endpoint)

    static = web_dir()

    @app.get("/", include_in_schema=False, response_model=None)
    async def index() -> Any:
        page = static / "index.html"
        if page.is_file():
            return FileResponse(page)
        return HTMLResponse(_PLACEHOLDER)

    if static.is_dir():
        app.mount("/", StaticFiles(directory=static, html=True, check_dir=False), name="web")
    return app
