"""托管 handed back while its bot is thinking (docs/protocol.md §3.4): the player who comes back gets the
open decision and plays it; the bot's late answer is dropped, and the turn is not lost.

A bot thinks with the room's lock released, so a player can come back in the middle. To make that
interleaving certain rather than likely, the server runs on a thread of the test process — real sockets,
real websockets, the real app — and the seat is given a bot of the test's own that thinks until the test
lets it answer. The deadlines are far longer than the test waits: a lost turn fails it, no timer saves it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from paohuzi.engine import Action, ActionKind, Observation
from paohuzi.server import store
from paohuzi.server.config import Settings
from paohuzi.server.hub import Hub

from ..support.clients import Client, never_hu, play_seat
from ..support.server import ServerProcess
from ..support.thread_server import ThreadServer
from .play import in_parallel


class HeldBot:
    """A bot that thinks until :attr:`answer` is set (on the server's bot thread), then plays a legal
    action other than 胡."""

    def __init__(self) -> None:
        self.thinking = threading.Event()
        self.answer = threading.Event()

    def act(self, observation: Observation, legal: list[Action]) -> Action:
        self.thinking.set()
        self.answer.wait(60)
        return next((a for a in legal if a.kind is not ActionKind.HU), legal[0])


@pytest.fixture
def thread_server(tmp_path: Path) -> Iterator[ThreadServer]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'paohuzi.sqlite3'}",
        bot_delay=0.01,
        offline_grace=0.0,  # a disconnect is 托管 at once
        turn_seconds=300.0,  # far beyond what the test waits for: only the player can play the turn
        claim_seconds=300.0,
        http_rate=1000.0,
        http_burst=1000,
    )
    server = ThreadServer(tmp_path, settings).start()
    try:
        yield server
    finally:
        server.stop()


def _dealt_table(server: ServerProcess) -> tuple[list[Client], list[dict[str, Any]], str]:
    """Three players at a new one-hand private room, everyone ready, the hand dealt and not over at once
    (a dealt 天胡, R6.4, about one deal in 10,000: then a new room)."""
    for _ in range(3):
        players = [Client(server) for _ in range(3)]
        code = players[0].api("POST", "/api/rooms", {"hands": 1}, expect=201)["room"]["code"]
        for p in players[1:]:
            p.api("POST", f"/api/rooms/{code}/join")
        for p in players:
            p.connect()
            p.send({"type": "ready", "ready": True})
        games = [p.expect("game") for p in players]
        if games[0]["view"]["phase"] != "over":
            return players, games, code
        for p in players:
            p.close()
    raise AssertionError("three dealt 天胡 in a row")


def test_托管_ending_while_its_bot_thinks_hands_the_open_decision_back(thread_server: ThreadServer) -> None:
    server = thread_server
    players, games, code = _dealt_table(server)
    mover, first = next((p, g) for p, g in zip(players, games, strict=True) if g["view"]["legal"])
    seat = first["seat"]
    held = HeldBot()

    async def give_bot(hub: Hub) -> None:
        hub.rooms[code].seats[seat].brain = held  # 托管 plays with the seat's bot (turns.bot_action)

    server.on_loop(give_bot)
    mover.close()  # 托管 at once (offline_grace 0); its bot starts on the open decision …
    try:
        assert held.thinking.wait(20), "the 托管 bot was never asked"
        # … and while it thinks the player comes back: 托管 ends, and it gets that same decision
        back = Client(server, token=mover.token)
        back.connect()
        room = back.expect("room")["room"]
        assert room["seats"][seat]["auto"] is False and room["seats"][seat]["connected"] is True
        snap = back.expect("game")
        assert snap["view"]["legal"] == first["view"]["legal"]
    finally:
        held.answer.set()  # the bot answers after its seat was handed back

    async def decision(hub: Hub) -> tuple[bool, bool]:
        match = hub.rooms[code].match
        assert match is not None
        d = match.turns.pending.get(seat)
        return d is not None, d is not None and d.thinking

    # wait for the server to take the bot's answer: it drops it, the decision stays open for the player
    deadline = time.monotonic() + 20
    while (state := server.on_loop(decision)) == (True, True) and time.monotonic() < deadline:
        time.sleep(0.005)
    assert state == (True, False)
    others = [p for p in players if p is not mover]
    overs = in_parallel(
        [partial(play_seat, p, until="hand_over", choose=never_hu, timeout=30) for p in [back, *others]]
    )
    assert overs[0]["hand"] == snap["hand"]
    assert any(f["type"] == "update" and f.get("id") == 1 for f in back.frames)  # its first act was taken
    hand_id = int(snap["hand"])

    async def actions_of(hub: Hub) -> list[tuple[int, str, str]]:
        return await hub.db.run(store.hand_actions(hand_id))

    actions = server.on_loop(actions_of)
    assert next(by for s, _a, by in actions if s == seat) == "player"  # the turn was the player's, not the bot's
    for p in [back, *others]:
        p.close()
