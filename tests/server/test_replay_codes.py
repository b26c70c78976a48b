"""Replay codes (issue 12 item 4): every finished hand has a short code that cannot be made from its id;
the code opens the replay for anyone, while a private room's hand is otherwise only for its players; a
hand in play has no replay; unknown codes are limited like room codes."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from paohuzi.server.store import CODE_ALPHABET, parse_replay_code, replay_code

from ..support.clients import Client, play_seat
from ..support.server import ServerProcess, running


def test_a_code_names_its_hand_and_depends_on_the_secret_seed() -> None:
    code = replay_code(5, 123456789)
    assert len(code) == 7 and code[0] == "7" and set(code) <= set(CODE_ALPHABET)  # 5 is "7" in base 32
    assert parse_replay_code(code) == 5 and parse_replay_code(code.lower()[:3] + "-" + code[3:]) == 5
    assert replay_code(5, 123456790) != code  # another seed, another code
    assert len(replay_code(1000, 1)) == 8 and len(replay_code(40_000, 1)) == 10
    for bad in ("", "ABC", "0OIL2345", "A" * 40):
        assert parse_replay_code(bad) is None


@pytest.mark.parametrize(
    ("hand_id", "length"),
    [(1, 7), (31, 7), (32, 8), (1023, 8), (1024, 9), (32_767, 9), (32_768, 10), (2**30 - 1, 12), (2**31 - 1, 13)],
)
def test_a_code_is_the_id_in_base_32_and_6_more_characters(hand_id: int, length: int) -> None:
    """docs/protocol.md §2: 7 characters for hands 1–31, 8 for 32–1023, one more per factor 32 (13 at
    most: hand ids are 31-bit)."""
    code = replay_code(hand_id, 99)
    assert len(code) == length and parse_replay_code(code) == hand_id


@pytest.mark.parametrize("kind", ["private", "quick"])
def test_the_code_opens_the_hand_for_anyone_the_id_only_for_players_of_a_private_room(
    server: ServerProcess, kind: str
) -> None:
    if kind == "private":
        players = [Client(server) for _ in range(3)]
        code = players[0].api("POST", "/api/rooms", {"hands": 1}, expect=201)["room"]["code"]
        for p in players[1:]:
            p.api("POST", f"/api/rooms/{code}/join")
        for p in players:
            p.connect()
            p.send({"type": "ready", "ready": True})
        for p in players:
            p.expect("game")
    else:
        players = [Client(server)]
        players[0].api("POST", "/api/rooms/quick", {"hands": 1}, expect=201)
        players[0].connect()
        players[0].expect("game")
    me = players[0]
    hand_id = me.frames[-1]["hand"]
    outsider = Client(server)
    # a hand in play has no replay, by id or by code
    assert outsider.api("GET", f"/api/replays/{hand_id}", expect=404)["error"]["code"] == "not_found"
    threads = [threading.Thread(target=play_seat, args=(p,)) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    over = next(f for f in me.frames if f["type"] == "hand_over")
    replay_code_ = over["replay_code"]
    assert re.fullmatch(f"[{CODE_ALPHABET}]{{7,10}}", replay_code_) and parse_replay_code(replay_code_) == hand_id
    assert all(next(f for f in p.frames if f["type"] == "hand_over")["replay_code"] == replay_code_ for p in players)
    # by code: anyone, with or without a token, in any case
    by_code = outsider.api("GET", f"/api/replays/code/{replay_code_.lower()}")
    assert by_code["hand"]["id"] == hand_id and by_code["hand"]["code"] == replay_code_ and by_code["steps"]
    record = server.api("GET", f"/api/replays/code/{replay_code_}?steps=false")["record"]
    assert record["fair"]["server_seed"]  # revealed once the hand is over (issue 32)
    # by id: a private room's hand only for its players
    assert me.api("GET", f"/api/replays/{hand_id}?steps=false")["hand"]["code"] == replay_code_
    if kind == "private":
        assert outsider.api("GET", f"/api/replays/{hand_id}", expect=404)["error"]["code"] == "not_found"
        assert server.api("GET", f"/api/replays/{hand_id}", expect=404)["error"]["code"] == "not_found"
    else:
        assert outsider.api("GET", f"/api/replays/{hand_id}?steps=false")["hand"]["id"] == hand_id
    # the code is in the players' history, and hidden from everyone else
    match_id = me.api("GET", "/api/me/history")["matches"][0]["id"]
    assert me.api("GET", "/api/me/history")["matches"][0]["hands"][0]["code"] == replay_code_
    assert outsider.api("GET", f"/api/matches/{match_id}")["match"]["hands"][0]["code"] is None
    # a wrong check part is no code
    wrong = replay_code_[:-1] + ("2" if replay_code_[-1] != "2" else "3")
    assert outsider.api("GET", f"/api/replays/code/{wrong}", expect=404)["error"]["code"] == "not_found"
    for p in players:
        p.close()


def test_unknown_replay_codes_are_limited(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'p.sqlite3'}"
    with running(tmp_path, url, {"PAOHUZI_JOIN_GUESS_BURST": "3", "PAOHUZI_JOIN_GUESS_RATE": "0.001"}) as server:
        guesser = Client(server)
        statuses = [guesser.api("GET", f"/api/replays/code/{n}ABCDEF", expect=None) for n in range(2, 7)]
        codes = [s["error"]["code"] for s in statuses]
        assert codes[:3] == ["not_found"] * 3 and codes[3:] == ["rate_limited"] * 2, codes
