"""The ready timeout (issue 12 item 5): before a friend room's first match, a seated player (not the owner)
who has not said ``ready`` within ``PAOHUZI_READY_SECONDS`` is stood up — told why (``kicked`` with
``reason`` ``ready_timeout``, then ``room: null``) — and the others see the seat free. A real server with
a 2 s timeout; the order of events is what the test waits on, not the clock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ..support.clients import Client
from ..support.server import ServerProcess, running

SECONDS = 2


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir: Path = tmp_path_factory.mktemp("ready")
    env = {"PAOHUZI_READY_SECONDS": str(SECONDS)}
    with running(workdir, env=env) as proc:
        yield proc


def test_an_unready_seat_is_released_a_ready_one_and_the_owner_stay(server: ServerProcess) -> None:
    owner, quick, slow = Client(server), Client(server), Client(server)
    room = owner.api("POST", "/api/rooms", {"hands": 1}, expect=201)["room"]
    code = room["code"]
    # The owner starts the match (开始): it has no clock.
    assert room["seats"][0]["ready_deadline"] is None and room["seats"][0]["ready_remaining_ms"] is None
    owner.connect()
    quick.connect()
    joined = quick.api("POST", f"/api/rooms/{code}/join", {"seat": 1})["room"]["seats"][1]
    assert joined["ready"] is False and 0 < joined["ready_remaining_ms"] <= SECONDS * 1000
    assert joined["ready_deadline"] > 0
    # Saying ready stops the clock; saying not ready starts a new one; ready again stops it.
    quick.send({"type": "ready", "ready": True})
    owner.expect("room", where=lambda f: f["room"]["seats"][1]["ready"])
    assert owner.frames[-1]["room"]["seats"][1]["ready_deadline"] is None
    quick.send({"type": "ready", "ready": False})
    seat = owner.expect("room", where=lambda f: not f["room"]["seats"][1]["ready"])["room"]["seats"][1]
    assert seat["ready_deadline"] is not None
    quick.send({"type": "ready", "ready": True})
    owner.expect("room", where=lambda f: f["room"]["seats"][1]["ready"])
    # A later player who never says ready: released when its clock runs out (after quick's would have).
    slow.connect()
    slow.api("POST", f"/api/rooms/{code}/join", {"seat": 2})
    kicked = slow.expect("kicked", timeout=SECONDS + 20)
    assert kicked == {"type": "kicked", "room": code, "reason": "ready_timeout", "seconds": SECONDS}
    slow.expect("room", where=lambda f: f["room"] is None)
    assert slow.api("GET", "/api/me")["room"] is None
    after = owner.expect("room", where=lambda f: f["room"]["seats"][2]["player"] is None)["room"]
    assert after["seats"][2]["ready_deadline"] is None
    assert after["seats"][0]["player"]["id"] == owner.id  # the owner has no clock
    assert after["seats"][1]["player"]["id"] == quick.id and after["seats"][1]["ready"] is True
    # The released player may sit down again (a fresh clock), and then play: the match starts and no clock
    # runs any more.
    slow.api("POST", f"/api/rooms/{code}/join", {"seat": 2})
    slow.send({"type": "ready", "ready": True})
    owner.expect("room", where=lambda f: f["room"]["seats"][2]["ready"])
    owner.send({"type": "start"})
    playing = owner.expect("room", where=lambda f: f["room"]["status"] == "playing")["room"]
    assert [s["ready_deadline"] for s in playing["seats"]] == [None, None, None]
    for c in (owner, quick, slow):
        c.close()


def test_a_former_owner_gets_a_clock_the_new_one_none(server: ServerProcess) -> None:
    owner, guest = Client(server), Client(server)
    code = owner.api("POST", "/api/rooms", {"hands": 1}, expect=201)["room"]["code"]
    owner.connect()
    guest.api("POST", f"/api/rooms/{code}/join", {"seat": 1})
    owner.send({"type": "give_owner", "seat": 1})
    seats = owner.expect("room", where=lambda f: f["room"]["owner"] == guest.id)["room"]["seats"]
    assert seats[1]["ready_deadline"] is None and seats[0]["ready_deadline"] is not None
    assert owner.expect("kicked", timeout=SECONDS + 20)["reason"] == "ready_timeout"
    owner.close()
