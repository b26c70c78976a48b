"""A database outage mid-hand (issue 27): an action that cannot be stored is answered ``internal`` and
nothing changes; once the database answers again the server sends every seat a fresh ``game`` snapshot by
itself, so a client that does not resend is not left waiting for its turn timer. The outage is real: the
server reaches PostgreSQL through a TCP relay that the test cuts (every connection closed, new ones closed
at once) and restores."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from ..support.clients import Client, never_hu, play_seat
from ..support.databases import postgres_available, postgres_schema
from ..support.server import running


class Relay:
    """TCP from a free local port to PostgreSQL on 127.0.0.1:5432, which :meth:`cut` takes away."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.up = True
        self.refused = 0  # connections closed at once while cut: the server trying again
        self.lock = threading.Lock()
        self.open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                if not self.up:
                    self.refused += 1
                    conn.close()
                    continue
                upstream = socket.create_connection(("127.0.0.1", 5432))
                self.open += [conn, upstream]
            for a, b in ((conn, upstream), (upstream, conn)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        with self.lock:
            self.up = False
            for s in self.open:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            self.open = []

    def restore(self) -> None:
        with self.lock:
            self.up = True

    def close(self) -> None:
        self.listener.close()
        self.cut()


@pytest.fixture
def relayed() -> Iterator[tuple[str, str, Relay]]:
    """(the database URL through the relay, the direct one, the relay) on a fresh PostgreSQL schema."""
    if not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    relay = Relay()
    try:
        with postgres_schema() as url:
            yield url.replace("127.0.0.1:5432", f"127.0.0.1:{relay.port}"), url, relay
    finally:
        relay.close()


def _wait(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def _stored_actions(url: str, hand_id: int) -> list[tuple[int, str]]:
    schema = url.split("search_path%3D")[1]
    with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", autocommit=True) as conn:
        rows = conn.execute(f'SELECT seq, action FROM "{schema}".actions WHERE hand_id = %s ORDER BY seq', (hand_id,))
        return [(int(seq), str(action)) for seq, action in rows]


def test_after_an_outage_the_server_sends_a_fresh_snapshot_by_itself(
    relayed: tuple[str, str, Relay], tmp_path: Path
) -> None:
    url, direct, relay = relayed
    # a fixed deal (testing mode), so that the hand reaches a discard of the player's
    env = {"PAOHUZI_TESTING": "1", "PAOHUZI_TEST_MATCH_SEED": "11", "PAOHUZI_TURN_SECONDS": "120"}
    with running(tmp_path, url, env) as server:
        me = Client(server)
        me.api("POST", "/api/rooms/quick", {"hands": 1}, expect=201)
        me.connect()
        # on to a discard of ours: while it is open nobody else decides (a claim window is shared)
        mine = play_seat(
            me, choose=never_hu, timeout=60, stop_when=lambda f: f["view"]["phase"] == "discard" and f["view"]["legal"]
        )
        assert mine is None, "the hand ended before a discard of ours"
        before = next(f for f in reversed(me.frames) if f["type"] in ("game", "update"))
        hand, legal = before["hand"], before["view"]["legal"]
        stored = _stored_actions(direct, hand)

        relay.cut()
        action = never_hu(legal)
        me.send({"type": "act", "action": action, "hand": hand, "id": 1})
        error = me.expect("error", where=lambda f: f.get("id") == 1)
        assert (error["code"], error["message"]) == (
            "internal",
            "the server could not store the action; nothing changed",
        )
        _wait(lambda: relay.refused >= 3, 30, "the server never tried the database again")
        assert _stored_actions(direct, hand) == stored  # nothing was stored …
        me.drain(0.2)
        assert not [f for f in me.frames[me.frames.index(error) :] if f["type"] in ("game", "update")]  # … nor sent

        relay.restore()
        snapshot = me.expect("game", timeout=30)  # pushed: we sent nothing
        assert snapshot["hand"] == hand and snapshot["view"]["legal"] == legal  # the position as it was
        assert [t["seat"] for t in snapshot["timers"] if t["kind"] == "discard"] == [before["view"]["seat"]]
        me.send({"type": "act", "action": action, "hand": hand, "id": 2})
        me.expect("update", where=lambda f: f.get("id") == 2)
        assert _stored_actions(direct, hand)[: len(stored) + 1] == [*stored, (len(stored) + 1, action)]
        me.close()
