"""The writer fence (issue 14, db.py): a server process that was paused (SIGSTOP) while another took its
database over can never write again once resumed (SIGCONT) — its next transaction is refused, it stops
with status 3, and the new owner carries the hand on from the log, every acknowledged action there once."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from sqlalchemy import create_engine, text

from paohuzi.server.db import normalize_url

from ..support.clients import Client, play_seat
from ..support.server import ServerProcess

# Nobody's seat goes to 托管 and no decision times out while the test pauses a process.
ENV = {"PAOHUZI_OFFLINE_GRACE": "120", "PAOHUZI_TURN_SECONDS": "120", "PAOHUZI_CLAIM_SECONDS": "120"}


def _log_rows(url: str) -> list[tuple[int, int, int, str, str]]:
    engine = create_engine(normalize_url(url))
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT hand_id, seq, seat, action, by FROM actions ORDER BY hand_id, seq"))
            return [tuple(r) for r in rows]  # type: ignore[misc]
    finally:
        engine.dispose()


def _writer_token(server: ServerProcess) -> int:
    started = [x for x in server.log_lines() if x.get("msg") == "server started"]
    return int(started[-1]["writer_token"])


def test_a_paused_owner_is_fenced_off_after_another_process_takes_over(database_url: str, tmp_path: Path) -> None:
    a = ServerProcess(tmp_path, database_url, ENV).start()
    b = ServerProcess(tmp_path, database_url, ENV)
    try:
        me = Client(a)
        me.api("POST", "/api/rooms/quick", {"hands": 2}, expect=201)
        me.connect()
        # Play on to a discard turn of mine (nobody else decides then, so nothing else gets written) with
        # a few actions in the log.
        while True:
            play_seat(me, "match_over", max_actions=1, timeout=120)
            last = [f for f in me.frames if f["type"] in ("game", "update")][-1]
            legal = last["view"]["legal"]
            if legal and all(x.startswith("discard ") for x in legal) and len(_log_rows(database_url)) >= 3:
                break
        acknowledged = _log_rows(database_url)
        assert _writer_token(a) == 1

        os.kill(a.pid, signal.SIGSTOP)  # a freezes (a VM pause, a stuck disk…) while still "owning" the table
        try:
            b.start()  # …and the operator (or systemd) starts another process on the same database
            assert _writer_token(b) == 2
        finally:
            os.kill(a.pid, signal.SIGCONT)
        # a wakes up still holding the table in memory and the old websocket: its write is refused
        me.send({"type": "act", "action": last["view"]["legal"][0], "hand": last["hand"], "id": 999})
        assert a.wait(30) == 3
        assert _log_rows(database_url) == acknowledged  # nothing of a's after the take-over
        fenced = [x for x in a.log_lines() if x.get("msg", "").startswith("fenced")]
        assert fenced and fenced[0]["token"] == 1 and fenced[0]["current"] == 2

        # the player reconnects — to b — and finishes the hand from the exact same position
        again = Client(b, token=me.token)
        snapshot = again.connect()
        assert snapshot is not None
        game = again.expect("game")
        assert game["hand"] == last["hand"] and game["view"]["legal"] == last["view"]["legal"]
        over = play_seat(again, "hand_over", timeout=120)
        assert over is not None
        rows = _log_rows(database_url)
        assert rows[: len(acknowledged)] == acknowledged
        hands = {r[0] for r in rows}
        for hand in hands:  # every hand's log runs 1, 2, 3, … with nothing twice and nothing missing
            seqs = [r[1] for r in rows if r[0] == hand]
            assert seqs == list(range(1, len(seqs) + 1))
        replay = again.api("GET", f"/api/replays/{last['hand']}?steps=false")
        logged = [[r[2], r[3]] for r in rows if r[0] == last["hand"]]
        assert replay["record"]["actions"] == logged
        again.close()
        me.close()
        time.sleep(0.1)
    finally:
        a.stop()
        b.stop()
