"""可验证发牌 at the server (issue 32, docs/protocol.md §3.10): ``deal_commit`` before the deal, client seeds
by ``seed``, the empty seed for a seat that sends none in time (and the game says so), the reveal in
``hand_over``, the replay and the record — and nothing of it early: no frame and no HTTP answer during the
hand carries the server seed, and no seat is shown another seat's client seed before the hand is over."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paohuzi.engine import verify_record
from paohuzi.server.config import Settings
from paohuzi.server.hub import Hub

from ..support.clients import Client, never_hu, play_seat
from ..support.server import ServerProcess, running
from ..support.thread_server import ThreadServer
from .play import in_parallel

SEEDS = ["a1" * 16, "b2" * 8]  # seats 0 and 1 send these; seat 2 sends none


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # a deal waits up to 1.5 s for the client seeds (seat 2 never sends one)
    with running(tmp_path_factory.mktemp("server"), env={"PAOHUZI_SEED_WAIT": "1.5"}) as proc:
        yield proc


def _table(server: ServerProcess, hands: int = 1) -> tuple[list[Client], str]:
    players = [Client(server) for _ in range(3)]
    code = players[0].api("POST", "/api/rooms", {"hands": hands}, expect=201)["room"]["code"]
    for p in players[1:]:
        p.api("POST", f"/api/rooms/{code}/join")
    for p in players:
        p.connect()
        p.expect("room")
    return players, code


def _during_play(server: ServerProcess, players: list[Client], code: str, hand_id: int, match_id: int) -> list[str]:
    """Every HTTP answer about the room, hand and match a player or anyone may ask for during the hand."""
    answers = [
        json.dumps(server.api("GET", f"/api/rooms/{code}")),
        json.dumps(players[0].api("GET", f"/api/rooms/{code}")),
        json.dumps(players[0].api("GET", f"/api/replays/{hand_id}", expect=404)),  # no replay while played
        json.dumps(players[0].api("GET", f"/api/matches/{match_id}")),
        json.dumps(players[0].api("GET", "/api/me/history")),
    ]
    return answers


def _commit(p: Client, number: int) -> str:
    """The commitment of deal ``number`` this player was told (already read, or the next one)."""
    told = next((f for f in p.frames if f["type"] == "deal_commit" and f["number"] == number), None)
    return str((told or p.expect("deal_commit"))["commitment"])


def test_commit_seeds_deal_and_reveal(server: ServerProcess) -> None:
    """Hand 1: committed while the room waits (told on connecting), dealt at once when the last player is
    ready. Hand 2: committed after hand 1 is over, dealt when the seeds are in or after seed_wait."""
    players, code = _table(server, hands=2)
    commitment = _commit(players[0], 1)
    assert all(_commit(p, 1) == commitment for p in players) and len(commitment) == 64
    # bad input first: a seed that is not hex, one for another deal; then the real ones
    players[0].send({"type": "seed", "commitment": commitment, "seed": "zz", "id": 1})
    assert players[0].expect("error")["code"] == "bad_seed"
    players[1].send({"type": "seed", "commitment": "0" * 64, "seed": "ab", "id": 2})
    assert players[1].expect("error")["code"] == "stale_seed"
    for p, seed in zip(players, SEEDS, strict=False):
        p.send({"type": "seed", "commitment": commitment, "seed": seed})
    players[0].send({"type": "seed", "commitment": commitment, "seed": "cd", "id": 4})
    assert players[0].expect("error")["code"] == "bad_seed"  # one seed per seat and deal
    for p in players:
        p.send({"type": "ready", "ready": True})
    games = [p.expect("game") for p in players]
    for g in games:
        assert g["deal"] == {"rng_version": 2, "commitment": commitment, "no_seed": [2]}  # seat 2 sent none
    hand_id, match_id = games[0]["hand"], games[0]["match"]
    # too late: the deal is done
    players[2].send({"type": "seed", "commitment": commitment, "seed": "cc", "id": 3})
    assert players[2].expect("error")["code"] == "stale_seed"
    http = _during_play(server, players, code, hand_id, match_id)
    overs = in_parallel([lambda p=p: play_seat(p, choose=never_hu, timeout=90) for p in players])
    deal = overs[0]["deal"]
    assert all(o["deal"] == deal for o in overs)
    server_seed = deal["server_seed"]
    assert hashlib.sha256(bytes.fromhex(server_seed)).hexdigest() == commitment
    assert deal["client_seeds"] == [*SEEDS, ""] and deal["no_seed"] == [2] and deal["rng_version"] == 2
    # the record and the replay reveal the same seeds, and the deal verifies
    record = players[0].api("GET", f"/api/replays/{hand_id}?steps=false")["record"]
    assert record["rng_version"] == 2 and record["fair"] == {
        "commitment": commitment,
        "server_seed": server_seed,
        "client_seeds": [*SEEDS, ""],
    }
    assert record["dealt"] == deal["dealt"] and record["dealer"] == deal["dealer"]
    assert verify_record(record, commitment=commitment).ok
    # nothing early: no frame before the hand_over, no HTTP answer during play carries the server seed, and
    # no seat saw another seat's client seed before the hand was over
    for seat, p in enumerate(players):
        before = p.frames[: next(i for i, f in enumerate(p.frames) if f["type"] == "hand_over")]
        text = "\n".join(json.dumps(f) for f in before)
        assert server_seed not in text, f"seat {seat} was sent the server seed before the hand was over"
        for other, seed in enumerate(SEEDS):
            if other != seat:
                assert seed not in text, f"seat {seat} was sent seat {other}'s client seed"
    assert not any(server_seed in a or SEEDS[0] in a or SEEDS[1] in a for a in http)

    # hand 2: committed between the hands; seats 0 and 1 answer, seat 2 does not: dealt after seed_wait
    second = [p.expect("deal_commit") for p in players]
    assert all(f["number"] == 2 and f["commitment"] == second[0]["commitment"] != commitment for f in second)
    for p in players[:2]:
        p.send({"type": "seed", "commitment": second[0]["commitment"], "seed": "ee"})
    games = [p.expect("game") for p in players]
    assert games[0]["deal"]["commitment"] == second[0]["commitment"] and games[0]["deal"]["no_seed"] == [2]
    overs = in_parallel([lambda p=p: play_seat(p, choose=never_hu, timeout=90) for p in players])
    assert overs[0]["deal"]["client_seeds"] == ["ee", "ee", ""]
    record = players[0].api("GET", f"/api/replays/{overs[0]['hand']}?steps=false")["record"]
    assert verify_record(record, commitment=second[0]["commitment"]).ok


def test_a_hand_restored_after_a_restart_is_dealt_from_its_stored_seeds(tmp_path: Path) -> None:
    """The server seed is kept with the hand (hands.fair): a server killed mid-hand deals it again from its
    seeds and the hand ends with the same commitment revealed (R2: reproducible)."""
    with running(tmp_path, env={"PAOHUZI_SEED_WAIT": "1.5"}) as srv:
        players, _ = _table(srv)
        commitment = _commit(players[0], 1)
        players[0].send({"type": "seed", "commitment": commitment, "seed": SEEDS[0]})
        for p in players:
            p.send({"type": "ready", "ready": True})
        first = players[0].expect("game")
        view = first["view"]
        dealt_hand = view["hand"]
        srv.kill()
        srv.start()
        for p in players:
            p.connect()
        games = [p.expect("game") for p in players]
        assert games[0]["hand"] == first["hand"] and games[0]["deal"]["commitment"] == commitment
        assert games[0]["view"]["hand"] == dealt_hand
        overs = in_parallel([lambda p=p: play_seat(p, choose=never_hu, timeout=90) for p in players])
        assert overs[0]["deal"]["commitment"] == commitment
        assert overs[0]["deal"]["client_seeds"] == [SEEDS[0], "", ""]
        record = players[0].api("GET", f"/api/replays/{first['hand']}?steps=false")["record"]
        assert verify_record(record, commitment=commitment).ok


def test_quick_play_waits_for_the_players_seed(server: ServerProcess) -> None:
    """快速开始 starts the match in the HTTP request: the deal is committed to then, and waits (at most
    seed_wait) for the seed of the player, whose websocket is free to answer."""
    me = Client(server)
    me.connect()
    answer: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: answer.update(me.api("POST", "/api/rooms/quick", {}, expect=201)))
    thread.start()
    commit = me.expect("deal_commit")
    me.send({"type": "seed", "commitment": commit["commitment"], "seed": "5eed"})
    game = me.expect("game")
    thread.join(timeout=30)
    assert answer["room"]["status"] == "playing"
    assert game["deal"] == {"rng_version": 2, "commitment": commit["commitment"], "no_seed": []}
    me.send({"type": "auto", "on": True})  # the computers play the seat to the end
    over = me.expect("hand_over", timeout=120)
    assert over["deal"]["client_seeds"] == ["5eed", "", ""]


def test_a_player_back_while_the_next_hand_is_stored_is_never_sent_it_under_the_last_ones_id(
    tmp_path: Path,
) -> None:
    """The next hand is dealt, then stored (its row gives it its id). A player whose websocket comes back in
    between — as a rolling restart of the shared mode makes it happen — is sent no snapshot of it yet, never
    the new hand (with its deal commitment) under the last hand's id and number: every ``game`` frame of a
    hand carries the commitment that hand reveals. The store is held by a real SQLite write lock taken by
    the test, on a server on a thread of the test (:class:`ThreadServer`), so the order is certain."""
    path = tmp_path / "paohuzi.sqlite3"
    settings = Settings(
        database_url=f"sqlite:///{path}",
        between_hands=0.2,
        seed_wait=1.0,  # the test's players send no seed: the deal waits this long after deal_commit
        turn_seconds=300.0,
        claim_seconds=300.0,
        http_rate=1000.0,
        http_burst=1000,
    )
    server = ThreadServer(tmp_path, settings).start()
    try:
        players, code = _table(server, hands=2)
        for p in players:
            p.send({"type": "ready", "ready": True})
        overs = in_parallel([lambda p=p: play_seat(p, choose=never_hu, timeout=90) for p in players])
        first_hand, first_commitment = overs[0]["hand"], overs[0]["deal"]["commitment"]
        assert players[0].expect("deal_commit")["number"] == 2  # what the deal reads is read: it waits for seeds
        holder = sqlite3.connect(path, isolation_level=None, timeout=30)
        holder.execute("BEGIN IMMEDIATE")  # the next hand's row waits for this lock
        try:

            async def dealt(hub: Hub) -> bool:
                match = hub.rooms[code].match
                return match is not None and not match.engine.hand.over  # dealt by the engine, not stored

            deadline = time.monotonic() + 20
            while not server.on_loop(dealt):
                assert time.monotonic() < deadline, "the next hand was never dealt"
                time.sleep(0.01)

            async def back(hub: Hub) -> None:  # what the hub does when a player's websocket comes back
                for p in players:
                    hub.rooms[code].connected(p.id)

            server.on_loop(back)
            time.sleep(0.2)  # a frame sent now would be on its way
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        second = [p.expect("game") for p in players]
        for p, game in zip(players, second, strict=True):
            assert (game["hand"], game["number"]) != (first_hand, 1)
            told = next(f for f in p.frames if f["type"] == "deal_commit" and f["number"] == 2)
            assert game["deal"]["commitment"] == told["commitment"] != first_commitment
            assert [f["deal"]["commitment"] for f in p.frames if f["type"] == "game" and f["hand"] == first_hand] == [
                first_commitment
            ]
        for p in players:
            p.close()
    finally:
        server.stop()
