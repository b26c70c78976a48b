"""Every frame a player receives, byte for byte in meaning, against a golden record (issue 33: the send path was
rewritten for throughput — frames encoded once, one write per client per action — and no frame's content may
change).

A testing-mode server deals a fixed match (``PAOHUZI_TEST_MATCH_SEED``, docs/server.md); three scripted players
play it in one deterministic order: of the seats that may act, the lowest acts (its first legal action), waits
for its answer, and then each player sends a ``ping`` and reads up to its ``pong`` — every frame the action
caused is queued before that ``pong``, so each player's list of frames is the same on every run. The only fields
that differ from run to run (clock readings, the room's random code) are replaced before the comparison.

The golden file was recorded on main's code before the change (``PAOHUZI_RECORD_GOLDEN=1`` writes it again).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..support.clients import Client
from ..support.server import ServerProcess, running

SEED = 4242
GOLDEN = Path(__file__).parents[1] / "golden" / f"server_frames_seed_{SEED}.json"
CLOCKS = {"server_time", "deadline", "remaining_ms", "ready_deadline", "ready_remaining_ms", "created_at"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    env = {
        "PAOHUZI_TESTING": "1",
        "PAOHUZI_TEST_MATCH_SEED": str(SEED),
        "PAOHUZI_TURN_SECONDS": "300",
        "PAOHUZI_CLAIM_SECONDS": "300",
        "PAOHUZI_RATE": "1000",
        "PAOHUZI_BURST": "1000",
    }
    with running(tmp_path_factory.mktemp("golden"), env=env) as proc:
        yield proc


def _normal(value: Any, room: str) -> Any:
    """``value`` with the clock readings replaced by the name of their type, and the room's random code by
    ``ROOM``."""
    if isinstance(value, str):
        return value.replace(room, "ROOM")
    if isinstance(value, dict):
        return {k: type(v).__name__ if k in CLOCKS else _normal(v, room) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v, room) for v in value]
    return value


def _until(p: Client, done: Callable[[list[dict[str, Any]]], bool]) -> None:
    """Read the player's frames until ``done`` holds of all it got."""
    while not done(p.frames):
        p.recv(30)


def _sync(players: list[Client]) -> None:
    """Each player reads every frame already sent to it: up to the ``pong`` of a ``ping`` sent now."""
    for p in players:
        ref = f"sync-{p.next_id()}"
        p.send({"type": "ping", "id": ref})
        _until(p, lambda fs, ref=ref: any(f["type"] == "pong" and f.get("id") == ref for f in fs[-3:]))


def _count(frames: list[dict[str, Any]], kind: str) -> int:
    return sum(1 for f in frames if f["type"] == kind)


def _latest(p: Client) -> dict[str, Any] | None:
    """The player's newest frame about the hand in play (None once a ``hand_over`` or ``match_over`` came)."""
    for frame in reversed(p.frames):
        if frame["type"] in ("game", "update"):
            return frame
        if frame["type"] in ("hand_over", "match_over"):
            return None
    return None


def _ends(frames: list[dict[str, Any]]) -> int:
    """The index of the ``match_over`` frame."""
    return next(i for i, f in enumerate(frames) if f["type"] == "match_over")


def _hand_end(players: list[Client]) -> bool:
    """The hand in play ended: every player gets its ``hand_over``, then the next deal, or the match's end and
    the room waiting again. Whether the match is over."""
    hands = _count(players[0].frames, "game")
    for p in players:
        _until(p, lambda fs: _count(fs, "hand_over") == hands)
    for p in players:
        _until(p, lambda fs: _count(fs, "game") > hands or _count(fs, "match_over") > 0)
    over = _count(players[0].frames, "match_over") > 0
    if over:
        for p in players:
            _until(p, lambda fs: any(f["type"] == "room" and f["room"]["status"] == "waiting" for f in fs[_ends(fs) :]))
    _sync(players)
    return over


def _play(players: list[Client], seats: dict[int, Client]) -> None:
    """The match to its end, one action at a time (the lowest seat that may act acts)."""
    for _ in range(2000):
        movers = [(i, f) for i, p in sorted(seats.items()) if (f := _latest(p)) is not None and f["view"]["legal"]]
        if not movers:
            if _hand_end(players):
                return
            continue
        seat, frame = movers[0]
        p = seats[seat]
        ref = p.next_id()
        p.send({"type": "act", "action": frame["view"]["legal"][0], "hand": frame["hand"], "id": ref})
        _until(p, lambda fs, ref=ref: any(f["type"] == "update" and f.get("id") == ref for f in fs[-5:]))
        _sync(players)
    raise AssertionError("the match did not end in 2,000 actions")


def _record(server: ServerProcess) -> list[list[dict[str, Any]]]:
    players = [Client(server, nickname=f"金{i}") for i in range(3)]
    room = players[0].api("POST", "/api/rooms", {"hands": 2}, expect=201)["room"]
    for p in players[1:]:
        p.api("POST", f"/api/rooms/{room['code']}/join")
    for n, p in enumerate(players):
        p.connect()
        _sync(players[: n + 1])
    for p in players:
        p.send({"type": "ready", "ready": True})
        _sync(players)
    for p in players:
        _until(p, lambda fs: _count(fs, "game") == 1)
    _sync(players)
    seats = {next(f for f in p.frames if f["type"] == "game")["seat"]: p for p in players}
    _play(players, seats)
    out = []
    for p in players:
        p.close()
        out.append([_normal(f, room["code"]) for f in p.frames if f["type"] != "pong"])  # the pongs are this test's own
    return out


def test_every_frame_of_a_fixed_seed_match_is_as_recorded(server: ServerProcess) -> None:
    got = _record(server)
    assert sum(len(f) for f in got) > 100  # a whole match was played
    if os.environ.get("PAOHUZI_RECORD_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(got, ensure_ascii=False, indent=0) + "\n")
    want = json.loads(GOLDEN.read_text())
    for seat, (mine, theirs) in enumerate(zip(got, want, strict=True)):
        assert len(mine) == len(theirs), f"player {seat}: {len(mine)} frames, recorded {len(theirs)}"
        for n, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            assert a == b, f"player {seat}, frame {n}"
