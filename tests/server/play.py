"""Play helpers shared by the server tests that play hands over real websockets and check what was stored
(test_recovery, test_shared, test_play): run clients side by side, remember what each sent, seat three
players at a dealt hand, and check a stored record against an uninterrupted replay."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from paohuzi.engine import FairSeed, Hand, replay
from paohuzi.rules import RuleSet

from ..support.clients import Client
from ..support.server import ServerProcess

C = TypeVar("C", bound=Client)


def in_parallel(jobs: list[Callable[[], Any]]) -> list[Any]:
    """Run each job on its own thread; their results in order (the first error is raised)."""
    results: list[Any] = [None] * len(jobs)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = jobs[i]()
        except BaseException as exc:  # noqa: BLE001 — reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


class RecordingClient(Client):
    """A client that remembers the ``act`` frames it sent (``id`` → action), to check them against the
    stored record."""

    def __init__(self, server: ServerProcess, **kw: Any) -> None:
        super().__init__(server, **kw)
        self.sent: dict[Any, str] = {}

    def send(self, message: dict[str, Any]) -> None:
        if message.get("type") == "act":
            self.sent[message["id"]] = message["action"]
        super().send(message)

    def acked(self, hand: int) -> list[str]:
        """The actions this client sent in ``hand`` and saw accepted, in order."""
        return [
            self.sent[f["id"]]
            for f in self.frames
            if f["type"] == "update" and f["hand"] == hand and f.get("id") in self.sent
        ]


def seated_table(owner: ServerProcess, edges: list[ServerProcess], kind: type[C], hands: int = 1) -> list[C]:
    """Three players (``kind``) at a new private room of ``hands`` hands made on ``owner``; player i joins
    and connects through ``edges[i]``; everyone ready, the hand dealt. A dealt 天胡 (R6.4, about one deal
    in 10,000) ends a hand before anyone plays: then the players leave that room for a new one."""
    for _ in range(3):
        players = [kind(edge) for edge in edges]
        code = owner.api("POST", "/api/rooms", players[0].token, {"hands": hands}, expect=201)["room"]["code"]
        for p in players[1:]:
            p.api("POST", f"/api/rooms/{code}/join")
        for p in players:
            p.connect()
            p.send({"type": "ready", "ready": True})
        games = [p.expect("game") for p in players]
        if games[0]["view"]["phase"] != "over":
            return players
        for p in players:
            p.close()
    raise AssertionError("three dealt 天胡 in a row")


def seed_of(record: dict[str, Any]) -> int | FairSeed:
    """What a stored record was dealt from: its fair seeds (rng_version 2, issue 32) or its seed."""
    return FairSeed.from_dict(record["fair"]) if "fair" in record else int(record["seed"])


def check_replay(record: dict[str, Any], outcome: dict[str, Any]) -> None:
    """The stored ``record`` equals an uninterrupted replay of its actions from its seed, which ends with
    ``outcome`` (what the players were told)."""
    fresh = Hand(RuleSet.from_dict(record["rules"]), seed_of(record), record["dealer"])
    for seat, action in record["actions"]:
        fresh.apply(seat, action)
    assert fresh.over and fresh.record() == record
    assert fresh.outcome is not None and fresh.outcome.to_dict() == outcome
    assert replay(record).events == fresh.events
