"""Players for the server tests: a guest identity over HTTP and a websocket (the sync ``websockets`` client),
and helpers that play a seat (real connections, no mocks: docs/DEVELOPING.md)."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from .server import ServerProcess


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
                    "seq": latest["seq"],  # a view overtaken meanwhile is refused (stale_view), not misplayed
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
