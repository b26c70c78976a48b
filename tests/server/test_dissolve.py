"""解散房间 (R8.2) over real websockets: a proposal, the others' answers, the 60 s limit (short here), one
refusal cancels, 30 s before the same player may propose again, the match ends with its summary and nobody
pays 逃跑; an open proposal survives a server restart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..support.clients import Client, play_seat
from ..support.server import ServerProcess, running
from .play import in_parallel

ENV = {"PAOHUZI_DISSOLVE_SECONDS": "2", "PAOHUZI_DISSOLVE_AGAIN": "30"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir: Path = tmp_path_factory.mktemp("dissolve")
    with running(workdir, env=ENV) as proc:
        yield proc


def _table(server: ServerProcess) -> list[Client]:
    """Three players in a private room of 2 hands, the first hand dealt."""
    players = [Client(server) for _ in range(3)]
    code = players[0].api("POST", "/api/rooms", {"hands": 2}, expect=201)["room"]["code"]
    for p in players[1:]:
        p.api("POST", f"/api/rooms/{code}/join")
    for p in players:
        p.connect()
        p.send({"type": "ready", "ready": True})
    for p in players:
        p.expect("game")
    return players


def _proposal(client: Client, votes: list[bool | None]) -> dict[str, Any]:
    frame = client.expect(
        "room",
        where=lambda f: (f["room"] or {}).get("dissolution") is not None and f["room"]["dissolution"]["votes"] == votes,
    )
    return dict(frame["room"]["dissolution"])


def _error(client: Client, msg: dict[str, Any]) -> dict[str, Any]:
    msg["id"] = client.next_id()
    client.send(msg)
    return client.expect("error", where=lambda f: f.get("id") == msg["id"])


def test_r8_2_all_agree_mid_hand_voids_the_hand_and_nobody_pays_escape(server: ServerProcess) -> None:
    a, b, c = _table(server)
    a.send({"type": "dissolve"})
    for p in (a, b, c):
        d = _proposal(p, [True, None, None])
        assert d["proposer"] == 0 and 0 < d["remaining_ms"] <= 2000
    assert _error(a, {"type": "dissolve_vote", "agree": True})["code"] == "already_voted"
    assert _error(b, {"type": "dissolve"})["code"] == "dissolve_open"
    b.send({"type": "dissolve_vote", "agree": True})
    _proposal(c, [True, True, None])
    c.send({"type": "dissolve_vote", "agree": True})
    hand = next(f for f in a.frames if f["type"] == "game")["hand"]
    for p in (a, b, c):
        assert p.expect("dissolution") == {"type": "dissolution", "result": "agreed", "proposer": 0, "by": None}
        over = p.expect("match_over")
        assert (over["status"], over["scores"], over["leaver"], over["penalty"]) == ("dissolved", [0, 0, 0], None, None)
        assert over["void_hand"] == hand  # the hand in play is the one voided (the sheet says so)
        room = p.expect("room")["room"]
        assert room["status"] == "waiting" and room["dissolution"] is None and room["match"]["finished"] is True
    history = a.api("GET", "/api/me/history")["matches"][0]
    assert history["status"] == "dissolved" and [h["status"] for h in history["hands"]] == ["dissolved"]
    # the void hand's record is kept, marked dissolved, and can be watched again (the match is over)
    replay = a.api("GET", f"/api/replays/{history['hands'][0]['id']}")
    assert replay["record"]["dissolved"] is True and replay["hand"]["status"] == "dissolved"
    assert len(replay["steps"]) == len(replay["record"]["actions"]) + 1
    for p in (a, b, c):
        me = p.api("GET", "/api/me")["player"]
        assert (me["points"], me["hands_played"], me["matches_played"]) == (0, 0, 1)  # no 逃跑, no settlement
    assert _error(a, {"type": "dissolve"})["code"] == "no_match"
    assert _error(a, {"type": "dissolve_vote", "agree": False})["code"] == "no_dissolution"
    for p in (a, b, c):
        p.close()


def test_r8_2_one_refusal_cancels_and_the_proposer_waits_30_s(server: ServerProcess) -> None:
    a, b, c = _table(server)
    b.send({"type": "dissolve"})
    _proposal(c, [None, True, None])
    c.send({"type": "dissolve_vote", "agree": False})
    for p in (a, b, c):
        assert p.expect("dissolution") == {"type": "dissolution", "result": "refused", "proposer": 1, "by": 2}
        p.expect("room", where=lambda f: f["room"]["dissolution"] is None)
    too_soon = _error(b, {"type": "dissolve"})
    assert too_soon["code"] == "dissolve_too_soon" and "30 s" in too_soon["message"]
    a.send({"type": "dissolve"})  # another player may propose at once
    _proposal(b, [True, None, None])
    for p in (a, b, c):
        p.close()


def test_r8_2_at_the_deadline_an_offline_seat_agrees_a_connected_silent_one_lets_it_lapse(
    server: ServerProcess,
) -> None:
    a, b, c = _table(server)
    c.close()  # offline: it agrees when the time is up
    a.send({"type": "dissolve"})
    _proposal(b, [True, None, None])
    b.send({"type": "dissolve_vote", "agree": True})
    assert a.expect("dissolution", timeout=10)["result"] == "agreed"
    assert a.expect("match_over")["status"] == "dissolved"
    b.close()

    d, e, f = _table(server)
    d.send({"type": "dissolve"})
    _proposal(e, [True, None, None])
    e.send({"type": "dissolve_vote", "agree": True})
    # f is connected and says nothing: the proposal lapses, the match goes on
    expired = f.expect("dissolution", timeout=10)
    assert expired == {"type": "dissolution", "result": "expired", "proposer": 0, "by": None}
    room = d.expect("room", where=lambda fr: fr["room"]["dissolution"] is None)["room"]
    assert room["status"] == "playing"
    for p in (a, d, e, f):
        p.close()


def test_r8_2_quick_play_alone_with_computers_dissolves_at_once(server: ServerProcess) -> None:
    me = Client(server)
    me.api("POST", "/api/rooms/quick", {"hands": 2}, expect=201)
    me.connect()
    me.expect("game")
    me.send({"type": "dissolve"})
    assert me.expect("dissolution")["result"] == "agreed"
    assert me.expect("match_over")["status"] == "dissolved"
    me.close()


def test_r8_2_an_open_proposal_survives_a_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'p.sqlite3'}"
    with running(tmp_path, url, {"PAOHUZI_DISSOLVE_SECONDS": "60"}) as server:
        a, b, c = _table(server)
        a.send({"type": "dissolve"})
        _proposal(c, [True, None, None])
        b.send({"type": "dissolve_vote", "agree": True})
        before = _proposal(c, [True, True, None])
        server.kill()
        for p in (a, b, c):
            p.close()
        server.start()
        for p in (a, b, c):
            p.frames.clear()
            p.connect()
        after = _proposal(c, [True, True, None])
        assert after["proposer"] == 0 and after["deadline"] == before["deadline"]
        c.send({"type": "dissolve_vote", "agree": True})
        for p in (a, b, c):
            assert p.expect("match_over")["status"] == "dissolved"
        for p in (a, b, c):
            p.close()


@pytest.fixture(scope="module")
def patient(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Proposals that cannot lapse during a test, and 60 s between hands (so "between hands" lasts)."""
    workdir: Path = tmp_path_factory.mktemp("dissolve-patient")
    env = {"PAOHUZI_DISSOLVE_SECONDS": "300", "PAOHUZI_DISSOLVE_AGAIN": "30", "PAOHUZI_BETWEEN_HANDS": "60"}
    with running(workdir, env=env) as proc:
        yield proc


def test_r8_2_the_hand_goes_on_and_the_proposer_withdraws(patient: ServerProcess) -> None:
    """While a proposal is open the seat to move plays and is answered as usual (nothing waits for the vote);
    only the proposer may withdraw (撤回): everybody is told ``withdrawn``, the match goes on, and the
    proposer waits 30 s before proposing again while another player may propose at once."""
    a, b, c = _table(patient)
    b.send({"type": "dissolve"})
    for p in (a, b, c):
        _proposal(p, [None, True, None])
    mover = next(p for p in (a, b, c) if next(f for f in p.frames if f["type"] == "game")["view"]["legal"])
    legal = next(f for f in mover.frames if f["type"] == "game")["view"]["legal"]
    action_id = mover.next_id()
    mover.send({"type": "act", "action": legal[0], "hand": _hand(mover), "id": action_id})
    done = mover.expect("update", where=lambda f: f.get("id") == action_id)
    assert done["seq"] > 0
    assert _error(a, {"type": "dissolve_withdraw"})["code"] == "not_proposer"
    b.send({"type": "dissolve_withdraw"})
    for p in (a, b, c):
        frame = p.expect("dissolution")
        assert frame == {"type": "dissolution", "result": "withdrawn", "proposer": 1, "by": 1}
        room = p.expect("room", where=lambda f: f["room"]["dissolution"] is None)["room"]
        assert room["status"] == "playing"
    assert _error(b, {"type": "dissolve_withdraw"})["code"] == "no_dissolution"
    assert _error(b, {"type": "dissolve"})["code"] == "dissolve_too_soon"
    c.send({"type": "dissolve"})  # another player may propose at once
    _proposal(a, [None, None, True])
    for p in (a, b, c):
        p.close()


def _hand(client: Client) -> int:
    return int(next(f for f in reversed(client.frames) if f["type"] in ("game", "update"))["hand"])


def test_r8_2_agreed_between_hands_voids_no_hand(patient: ServerProcess) -> None:
    """A vote that passes between hands (the first hand settled, the next not dealt) voids nothing:
    ``match_over`` has ``void_hand`` null, the settled hand stands in the totals and in the history."""
    a, b, c = _table(patient)
    overs = in_parallel([lambda p=p: play_seat(p, choose=lambda legal: legal[0], timeout=120) for p in (a, b, c)])
    scores = overs[0]["scores"]
    a.send({"type": "dissolve"})
    _proposal(c, [True, None, None])
    b.send({"type": "dissolve_vote", "agree": True})
    c.send({"type": "dissolve_vote", "agree": True})
    for p in (a, b, c):
        over = p.expect("match_over")
        assert (over["status"], over["void_hand"], over["scores"]) == ("dissolved", None, scores)
    history = a.api("GET", "/api/me/history")["matches"][0]
    assert history["status"] == "dissolved"
    assert len(history["hands"]) == 1 and history["hands"][0]["status"] != "dissolved"
    for p in (a, b, c):
        p.close()
