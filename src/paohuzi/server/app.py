"""The ASGI application: :func:`create_app` wires the database, the hub, the lobby API, the websocket and
the web client's static files, with error handlers that never show a stack trace, strict security headers
on every HTTP response, ``/metrics`` (Prometheus), ``/healthz`` (liveness) and ``/readyz`` (readiness).
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
from collections.abc import AsyncIterator, Callable, MutableMapping
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from paohuzi import __version__
from paohuzi.server import gc_tuning
from paohuzi.server.account_api import router as account_router
from paohuzi.server.api import health_router, router
from paohuzi.server.club_api import router as club_router
from paohuzi.server.config import Settings
from paohuzi.server.db import Database
from paohuzi.server.hub import Hub
from paohuzi.server.limits import Limits
from paohuzi.server.logs import log
from paohuzi.server.metrics import CONTENT_TYPE_LATEST, Metrics
from paohuzi.server.profile_api import router as profile_router
from paohuzi.server.review_api import router as review_router
from paohuzi.server.room import RoomError
from paohuzi.server.watchdog import Notifier
from paohuzi.server.wiring import FencedRooms, Server, one_process, shared_mode
from paohuzi.server.ws import RawSend, websocket_endpoint

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["create_app", "web_dir", "SecurityHeaders", "CSP"]

_PLACEHOLDER = """<!doctype html>
<html lang="zh"><head><meta charset="utf-8"><title>paohuzi 跑胡子</title></head>
<body><h1>paohuzi 跑胡子</h1>
<p>The server is running. The web client is not installed yet; see <a href="/openapi.json">the API</a>
and <code>docs/protocol.md</code>.</p></body></html>
"""

# The web client is one HTML page with module scripts and a stylesheet of its own origin: no inline
# script or style, no third-party origin, not framable (issue 14).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'{ws}; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# Swagger UI (only with --docs) is an inline script loading its bundle from the jsDelivr CDN.
_DOCS_CSP = (
    "default-src 'none'; script-src 'unsafe-inline' https://cdn.jsdelivr.net; style-src https://cdn.jsdelivr.net; "
    "img-src https://fastapi.tiangolo.com data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_HOST = re.compile(r"^[A-Za-z0-9.\-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$")
_SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
]


def _csp(host: str | None) -> str:
    """The page's policy; the websocket of the same host is named too (older browsers do not count
    ``ws:``/``wss:`` as 'self').

    >>> _csp("play.example:8443").split("; ")[5]
    "connect-src 'self' ws://play.example:8443 wss://play.example:8443"
    >>> _csp("evil\\r\\nx: y").split("; ")[5]
    "connect-src 'self'"
    """
    ws = f" ws://{host} wss://{host}" if host and _HOST.match(host) else ""
    return CSP.format(ws=ws)


class SecurityHeaders:
    """Pure ASGI middleware: the security headers above on every HTTP response (the API's too)."""

    def __init__(self, app: Any, docs_paths: tuple[str, ...] = ()) -> None:
        self.app = app
        self.docs_paths = docs_paths

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] in self.docs_paths:
            csp = _DOCS_CSP
        else:
            host = None
            for name, value in scope.get("headers", ()):
                if name == b"host":
                    host = value.decode("latin-1")
                    break
            csp = _csp(host)
        extra = [*_SECURITY_HEADERS, (b"content-security-policy", csp.encode("latin-1"))]

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                have = {name.lower() for name, _ in message.get("headers", ())}
                message = dict(message)
                message["headers"] = list(message.get("headers", ())) + [h for h in extra if h[0] not in have]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def web_dir() -> Path:
    """The web client's folder (``paohuzi/web/``)."""
    return Path(str(resources.files("paohuzi") / "web"))


def _error(status: int, code: str, message: str) -> JSONResponse:
    # A message may quote input holding a lone surrogate, which UTF-8 cannot encode: escape it.
    message = message.encode("utf-8", "backslashreplace").decode("utf-8")
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


class HttpRateLimit:
    """Pure ASGI middleware: at most ``rate`` lobby-API requests a second per client address (bursts of
    ``burst``); beyond that, HTTP 429 ``rate_limited``. The buckets are the app's
    :class:`~paohuzi.server.limits.Limits` (shared by every process in the shared mode). Websockets have
    their own limit (``ws.py``)."""

    def __init__(self, app: Any, rate: float, burst: int) -> None:
        self.app = app
        self.rate = rate
        self.burst = burst

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/api/"):
            client = scope.get("client")
            limits: Limits = scope["app"].state.limits
            if not await limits.take("http:" + (client[0] if client else "?"), self.rate, self.burst):
                response = _error(429, "rate_limited", "too many requests; slow down")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The server's app. The database is opened, migrated and the open matches resumed at start-up."""
    settings = settings or Settings.from_env()

    def fenced() -> None:
        """Another process took the database over (db.py, the writer fence): stop, as SIGTERM would —
        every websocket is closed with 1012 and the clients reconnect, to the new owner. ``paohuzi serve``
        then exits with status 3 (systemd: RestartPreventExitStatus=3, so the two do not take turns)."""
        app.state.fenced = True
        stop = getattr(app.state, "stop", None)  # set by `paohuzi serve`: the uvicorn server's should_exit
        if stop is not None:
            stop()
        else:
            os.kill(os.getpid(), signal.SIGTERM)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        server = await _open_hub(settings, fenced, metrics)
        hub, db, redis = server.hub, server.hub.db, server.redis
        app.state.hub = hub
        if redis is not None:
            app.state.limits = Limits(redis, settings.redis_prefix)
        await server.life.recover()
        hub.start_housekeeping()
        lag = asyncio.get_running_loop().create_task(metrics.watch_loop())  # paohuzi_loop_lag_seconds (issue 33)
        await _warm_routes(app)
        _log_started(settings, server)
        on_started = getattr(app.state, "on_started", None)
        if on_started is not None:
            on_started()
        systemd = Notifier()  # Type=notify and WatchdogSec in the unit (deploy/systemd)
        systemd.ready()
        try:
            yield
        finally:
            await systemd.stopping()
            lag.cancel()
            await server.life.shutdown()
            reviews = getattr(app.state, "reviewer", None)  # 复盘's worker processes, if any was started
            if reviews is not None:
                reviews.shutdown()
            db.stop()
            if redis is not None:
                await redis.aclose()
            log(20, "server stopped")

    app = FastAPI(
        title="paohuzi 跑胡子 server",
        version=__version__,
        description="Lobby API of the paohuzi game server. The game itself runs over the websocket `/ws`; "
        "see docs/protocol.md.",
        lifespan=lifespan,
        # Swagger UI loads from a CDN: only on request (--docs); /openapi.json is always there.
        docs_url="/docs" if settings.docs else None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.fenced = False
    app.state.limits = Limits()  # in this process; in Redis once the shared mode starts (lifespan)
    metrics = Metrics(lambda: getattr(app.state, "hub", None))
    app.state.metrics = metrics

    _add_error_handlers(app)
    app.add_middleware(HttpRateLimit, rate=settings.http_rate, burst=settings.http_burst)
    docs_paths = ("/docs", "/docs/oauth2-redirect") if settings.docs else ()
    app.add_middleware(SecurityHeaders, docs_paths=docs_paths)  # outermost: the 429s get the headers too
    app.add_middleware(RawSend)  # the websocket's own send, for the direct writes of connection.py (issue 33)

    _add_health_routes(app, settings, metrics)
    app.include_router(health_router)
    app.include_router(router)
    app.include_router(account_router)
    app.include_router(profile_router)
    app.include_router(club_router)
    app.include_router(review_router)
    app.add_api_websocket_route("/ws", websocket_endpoint)

    _add_web_client(app)
    return app


def _log_started(settings: Settings, server: Server) -> None:
    """The start-up lines: the mode, the database, the Redis prefix and the process (issue 35 §7)."""
    shared = server.redis is not None
    mode = "shared" if shared else "one process"
    prefix = settings.redis_prefix if shared else None
    backend = server.hub.db.backend
    log(20, "server started", mode=mode, database=backend, version=__version__, writer_token=server.token,
        process=server.process, pid=os.getpid(), redis_prefix=prefix)
    log(20, _mode_line(mode, backend, prefix, server.process), mode=mode)
    if settings.testing:
        log(30, "TESTING MODE: not for production", test_match_seed=settings.test_match_seed)


def redis_client(settings: Settings) -> Redis:
    """The shared mode's Redis client: a *blocking* pool of ``redis_connections`` — under load a command
    waits (up to 10 s) for a free connection instead of failing with MaxConnectionsError, which the
    default pool (100, non-blocking) raised at ~450 websockets a process (bench/load.py --redis-url)."""
    import redis.asyncio as aioredis

    pool = aioredis.BlockingConnectionPool.from_url(
        settings.redis_url, max_connections=settings.redis_connections, timeout=10, socket_connect_timeout=5
    )
    return aioredis.Redis(connection_pool=pool)


async def _open_hub(settings: Settings, fenced: Callable[[], None], metrics: Metrics) -> Server:
    """The database (migrated, its worker started) and the hub with the ports of the deployment, chosen here
    and only here (docs/server.md): one process (the writer fence taken: its token), or the shared mode with
    ``redis_url`` (rooms leased one by one, shared.py; no writer fence)."""
    url, batch, action = settings.database_url, metrics.observe_batch, metrics.observe_action
    if not settings.redis_url:
        db = Database(
            url,
            connections=settings.db_connections,
            on_fenced=fenced,
            on_batch=batch,
            on_action=action,
            loop_appends=settings.db_loop_appends,
        )
        metrics.db_connections.set(len(db.workers))
        await asyncio.to_thread(db.migrate)
        token = await asyncio.to_thread(db.take_over, f"{socket.gethostname()}:{os.getpid()}")
        db.start()
        server = one_process(settings, db, token)
        gc_tuning.tune()  # what lasts as long as the process frozen, before any room is made (issue 33)
        return server
    fences = FencedRooms()  # the database thread's reports of rooms fenced, for the Cluster
    db = Database(url, connections=settings.db_connections, on_fenced=fenced, on_room_fenced=fences.report,
                  on_batch=batch, on_action=action, loop_appends=settings.db_loop_appends)
    metrics.db_connections.set(len(db.workers))
    await asyncio.to_thread(db.migrate)
    db.start()
    server = shared_mode(settings, db, redis_client(settings), fences,
                         on_lease=lambda change: metrics.lease_changes.labels(change=change).inc())
    metrics.relay.counts = server.relay_counts or {}
    gc_tuning.tune()
    await server.life.start()
    return server


async def _warm_routes(app: FastAPI) -> None:
    """Walk every route once before serving. FastAPI builds an included router's route models at the first
    request that is matched against them — ~100 ms of CPU here, paid by whoever comes first: on a process just
    restarted that was the first websocket (``/ws`` is matched last), a reconnect of a rolling restart
    waiting 1.1 s on a loaded machine (issue 35). A request for a path no route has walks them all."""
    path = "/.well-known/paohuzi-warm-up"
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"", "headers": [],
        "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 0), "app": app,
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(_message: MutableMapping[str, Any]) -> None:
        return None

    try:
        await app.router(scope, receive, send)
    except StarletteHTTPException:
        pass  # the 404 of the static files: every route was tried
    except Exception:  # noqa: BLE001 — a warm-up that fails costs the first request its time, nothing else
        log(30, "route warm-up failed", exc_info=True)


def _mode_line(mode: str, backend: str, prefix: str | None, process: str | None) -> str:
    """The start-up line an operator reads (plain logs too): the deployment, and in the shared mode the
    Redis prefix, which every process of one deployment must share.

    >>> _mode_line("shared", "postgresql", "paohuzi", "host-1234")  # doctest: +ELLIPSIS
    "shared mode: database postgresql, Redis prefix 'paohuzi', process host-1234, pid ..."
    """
    where = f", Redis prefix {prefix!r}, process {process}" if prefix is not None else ""
    return f"{mode} mode: database {backend}{where}, pid {os.getpid()}"


def _add_error_handlers(app: FastAPI) -> None:
    """Every error is ``{"error": {"code", "message"}}``; a crash is logged with its stack, never shown."""

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


def _add_health_routes(app: FastAPI, settings: Settings, metrics: Metrics) -> None:
    """``/metrics`` and ``/readyz`` (``/healthz`` is in api.py)."""

    @app.get("/metrics", tags=["health"], response_class=Response)
    async def prometheus_metrics() -> Response:
        """Prometheus metrics (text format; see :mod:`paohuzi.server.metrics`). Keep it off the public
        internet (deploy/nginx.conf allows only the local network)."""
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    @app.get("/readyz", tags=["health"], response_model=None)
    async def readyz(request: Request) -> Any:
        """Readiness: the database answers (and Redis, in the shared mode) within 2 s; 503 otherwise."""
        hub: Hub = request.app.state.hub
        checks: dict[str, str] = {}
        try:
            await asyncio.wait_for(hub.db.run(_ping), 2.0)
            checks["database"] = "ok"
        except Exception as exc:  # noqa: BLE001 — reported, not raised
            checks["database"] = f"unreachable: {type(exc).__name__}"
        if settings.redis_url:
            checks["redis"] = await _redis_ready(settings.redis_url)
        ready = all(v == "ok" for v in checks.values())
        body = {"status": "ready" if ready else "unavailable", "checks": checks}
        return JSONResponse(body, status_code=200 if ready else 503)


def _add_web_client(app: FastAPI) -> None:
    """The web client's files at ``/`` (a placeholder page when they are not installed)."""
    static = web_dir()

    @app.get("/", include_in_schema=False, response_model=None)
    async def index() -> Any:
        page = static / "index.html"
        if page.is_file():
            return FileResponse(page)
        return HTMLResponse(_PLACEHOLDER)

    if static.is_dir():
        app.mount("/", StaticFiles(directory=static, html=True, check_dir=False), name="web")


def _ping(session: Any) -> int:
    from sqlalchemy import text

    return int(session.execute(text("SELECT 1")).scalar_one())


async def _redis_ready(url: str) -> str:
    try:
        import redis.asyncio as aioredis

        client = aioredis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
        try:
            await asyncio.wait_for(client.ping(), 2.0)
        finally:
            await client.aclose()
        return "ok"
    except Exception as exc:  # noqa: BLE001 — reported, not raised
        return f"unreachable: {type(exc).__name__}"
