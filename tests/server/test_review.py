"""复盘 over HTTP (issue 34): a finished hand's review for its own player and for a replay code's holder, the
same numbers as :func:`paohuzi.bots.review.review_record` (seed 0, the server's worlds), kept once computed
(``hand_reviews``), limited per player, 404/401/422 for what may not be reviewed."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paohuzi.bots.review import ReviewSettings, review_record

from ..support.clients import Client, play_seat
from ..support.server import ServerProcess, running

ENV = {
    "PAOHUZI_REVIEW_WORLDS": "4",
    "PAOHUZI_REVIEW_BURST": "2",
    "PAOHUZI_REVIEW_RATE": "0.0001",  # no token comes back within the test
    "PAOHUZI_REVIEW_WORKERS": "1",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running(tmp_path_factory.mktemp("server"), env={**ENV, "PAOHUZI_BOT_DELAY": "0"}) as proc:
        yield proc


def _played(server: ServerProcess) -> tuple[Client, int, int]:
    """A quick match of one hand played to its end: (the player, the hand id, the player's seat)."""
    me = Client(server)
    me.api("POST", "/api/rooms/quick", {"hands": 1}, expect=201)
    me.connect()
    game = me.expect("game")
    play_seat(me)
    return me, game["hand"], game["seat"]


def test_own_hand_code_holder_cache_and_limits(server: ServerProcess) -> None:
    me, hand_id, seat = _played(server)
    record = me.api("GET", f"/api/replays/{hand_id}?steps=false")["record"]
    code = me.api("GET", f"/api/replays/{hand_id}?steps=false")["hand"]["code"]
    want = review_record(record, seat, seed=0, settings=ReviewSettings(worlds=4)).to_dict()

    first = me.api("GET", f"/api/replays/{hand_id}/review")
    assert first == {"hand_id": hand_id, "seat": seat, "cached": False, "review": want}
    again = me.api("GET", f"/api/replays/{hand_id}/review")  # kept: no worker, no token
    assert again == {**first, "cached": True}

    outsider = Client(server)
    # the id is for the hand's own players; a review needs a token
    assert outsider.api("GET", f"/api/replays/{hand_id}/review", expect=404)["error"]["code"] == "not_found"
    assert server.api("GET", f"/api/replays/{hand_id}/review", expect=401)["error"]["code"] == "unauthorized"
    # the code opens every seat's review (the replay shows every view once the hand is over)
    other = (seat + 1) % 3
    by_code = outsider.api("GET", f"/api/replays/code/{code.lower()}/review?seat={other}")
    assert by_code["cached"] is False and by_code["seat"] == other
    assert by_code["review"] == review_record(record, other, seed=0, settings=ReviewSettings(worlds=4)).to_dict()
    assert outsider.api("GET", f"/api/replays/code/{code}/review?seat={seat}")["cached"] is True  # free
    assert me.api("GET", f"/api/replays/{hand_id}/review?seat={other}")["cached"] is True
    # a seat the hand does not have: refused by the review, named (it took the outsider's second token)
    bad = outsider.api("GET", f"/api/replays/code/{code}/review?seat=3", expect=422)["error"]
    assert (bad["code"], bad["message"]) == ("not_reviewable", "seat must be 0 … 2, got 3")
    assert outsider.api("GET", f"/api/replays/code/{code}/review?seat=9", expect=422)["error"]["code"] == "invalid"
    # out of tokens: 429, until the bucket refills
    third = (seat + 2) % 3
    limited = outsider.api("GET", f"/api/replays/code/{code}/review?seat={third}", expect=429)["error"]
    assert limited["code"] == "rate_limited"
    # but the hand's own player still has one
    assert me.api("GET", f"/api/replays/{hand_id}/review?seat={third}")["cached"] is False
    wrong = code[:-1] + ("2" if code[-1] != "2" else "3")
    assert outsider.api("GET", f"/api/replays/code/{wrong}/review?seat=0", expect=404)["error"]["code"] == "not_found"
    me.close()


def test_a_review_is_kept_across_a_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'p.sqlite3'}"
    with running(tmp_path, url, {**ENV, "PAOHUZI_BOT_DELAY": "0"}) as server:
        me, hand_id, _ = _played(server)
        first = me.api("GET", f"/api/replays/{hand_id}/review")
        token = me.token
        me.close()
    with running(tmp_path, url, {**ENV, "PAOHUZI_REVIEW_BURST": "0"}) as server:
        again = Client(server, token=token).api("GET", f"/api/replays/{hand_id}/review")
        assert again == {**first, "cached": True}


def _workers(pid: int) -> list[int]:
    """The review worker processes of the server ``pid``: its children started by multiprocessing's spawn."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid and b"spawn_main" in cmdline:
            found.append(int(entry.name))
    return found


def test_the_review_workers_end_with_a_killed_server(tmp_path: Path) -> None:
    """kill -9 of the server: its review worker (and multiprocessing's resource tracker beside it) end too,
    instead of living on as orphans blocked on a queue whose write end they hold themselves."""
    url = f"sqlite:///{tmp_path / 'p.sqlite3'}"
    with running(tmp_path, url, {**ENV, "PAOHUZI_BOT_DELAY": "0"}) as server:
        me, hand_id, _ = _played(server)
        me.api("GET", f"/api/replays/{hand_id}/review")  # the pool is made on the first review
        workers = _workers(server.pid)
        assert len(workers) == 1, workers
        me.close()
        server.kill()
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{pid}").exists() and not _zombie(pid) for pid in workers):
            assert time.monotonic() < deadline, f"the review worker {workers} outlived its server"
            time.sleep(0.05)


def _zombie(pid: int) -> bool:
    """Whether ``pid`` has ended and waits to be reaped (an orphan's new parent does it in its own time)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def test_a_killed_worker_is_a_503_and_the_next_review_starts_a_new_one(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'p.sqlite3'}"
    env = {**ENV, "PAOHUZI_BOT_DELAY": "0", "PAOHUZI_REVIEW_WORLDS": "64", "PAOHUZI_REVIEW_BURST": "5"}
    with running(tmp_path, url, env) as server:
        me, hand_id, _ = _played(server)
        answer: dict[str, Any] = {}
        asking = threading.Thread(
            target=lambda: answer.update(me.api("GET", f"/api/replays/{hand_id}/review", expect=None))
        )
        asking.start()
        deadline = time.monotonic() + 30
        while not (workers := _workers(server.pid)):
            assert time.monotonic() < deadline, "no review worker started"
            time.sleep(0.02)
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        asking.join(60)
        assert answer["error"] == {"code": "internal", "message": "the review's worker process stopped; ask again"}
        again = me.api("GET", f"/api/replays/{hand_id}/review")
        assert again["cached"] is False and again["review"]["settings"]["worlds"] == 64
        me.close()
