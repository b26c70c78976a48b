"""``kill -9`` during settlement (issue 13 acceptance, R7.3): a real server process is killed with SIGKILL
at three moments of a hand's settlement — the hand marked settled but no ledger row written, every row
written but nothing committed, and everything committed but nothing sent (the test hook
``PAOHUZI_TEST_CRASH_AT`` with ``PAOHUZI_TESTING=1``, paohuzi.server.crash) — then started again on the
same database. It settles the hand exactly once; afterwards every settled hand has exactly its ledger
rows, no ledger row names a hand that is not settled, and the ledger replays to every balance (beans,
积分, 双倍积分卡). The crashed hands are dealt with a 双倍积分卡 active, so the card the restart deals them
with is the stored one. SQLite and PostgreSQL."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from paohuzi.server import ledger_store
from paohuzi.server.crash import CRASH_ENV
from paohuzi.server.db import Database
from paohuzi.server.models import HandRow, LedgerRow, MatchSeat

from ..support.clients import Client
from ..support.server import running

POINTS = ("settle_begin", "settle_end", "settled")


def _start_hand(me: Client) -> None:
    """A one-hand quick-play match at the 新手场, played by 托管 (the player's seat too)."""
    if me.api("GET", "/api/me")["player"]["beans"] < 100:
        me.api("POST", "/api/me/relief")
    me.frames.clear()
    me.api("POST", "/api/rooms/quick", {"tier": "novice", "hands": 1}, expect=201)
    me.connect()
    me.send({"type": "auto", "on": True})


def _wait_settled(me: Client, matches: int, timeout: float = 60.0) -> dict[str, Any]:
    """Wait until the player's newest match (its ``matches``-th) is over; that match."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        history = me.api("GET", "/api/me/history")["matches"]
        if len(history) == matches and history[0]["status"] == "finished":
            return dict(history[0])
        time.sleep(0.1)
    raise TimeoutError(f"match {matches} not finished after the restart")


def _check_database(url: str, player: int) -> dict[str, int]:
    """Every settled hand has exactly its ledger rows; no row without its settled hand; the ledger replays to
    every balance. Returns the player's balances."""
    db = Database(url)
    try:

        def read(s: Any) -> tuple[list[HandRow], list[LedgerRow], dict[int, dict[int, int | None]]]:
            hands = list(s.scalars(select(HandRow).order_by(HandRow.id)))
            rows = list(s.scalars(select(LedgerRow).order_by(LedgerRow.id)))
            seats: dict[int, dict[int, int | None]] = {}
            for ms in s.scalars(select(MatchSeat)):
                seats.setdefault(ms.match_id, {})[ms.seat] = ms.player_id
            for h in hands:
                s.expunge(h)
            for r in rows:
                s.expunge(r)
            return hands, rows, seats

        hands, rows, seats = db.run_now(read)
        settled = {h.id: h for h in hands if h.status == "finished"}
        assert all(h.status in ("finished", "playing") for h in hands)
        for r in rows:
            assert r.hand_id is None or r.hand_id in settled, f"ledger row {r.id} of a hand not settled"
        counts = Counter((r.hand_id, r.player_id, r.currency, r.reason) for r in rows if r.hand_id is not None)
        assert all(n == 1 for n in counts.values()), f"a row written twice: {counts}"
        for hid, h in settled.items():
            assert h.outcome is not None
            payments = h.outcome["payments"]
            humans = {seat: pid for seat, pid in seats[h.match_id].items() if pid is not None}
            points = {(r.player_id, int(r.amount)) for r in rows if r.hand_id == hid and r.currency == "points"}
            assert points == {(pid, payments[seat]) for seat, pid in humans.items()}, f"hand {hid}"
        replayed = db.run_now(ledger_store.replay())
        stored = db.run_now(ledger_store.balances())
        assert replayed == {pid: bal for pid, bal in stored.items() if pid in replayed}
        assert set(stored) == set(replayed)  # every player has its start row
        return stored[player]
    finally:
        db.stop()


@pytest.mark.soak  # a kill -9 at each settlement point, hand after hand (~40 s a database)
def test_kill_9_during_settlement_never_splits_a_hand_from_its_ledger_rows(database_url: str, tmp_path: Path) -> None:
    with running(tmp_path, database_url, {"PAOHUZI_TESTING": "1"}) as server:
        me = Client(server)
        _start_hand(me)  # a first hand, not crashed: the day's 双倍积分卡
        me.expect("match_over", timeout=60)
        me.close()
        matches = 1
        # the card lasts an hour: every crashed hand below starts while it is active
        assert me.api("POST", "/api/me/double-cards/activate")["cards"]["seconds_left"] > 0
        for point in POINTS:
            server.stop()
            server.env[CRASH_ENV] = point
            server.start()
            try:
                _start_hand(me)
            except (httpx.HTTPError, OSError):
                pass  # a dealt 天胡 (R6.4) settles inside the request: the server died answering it
            assert server.wait(60) == -9, f"the server did not kill itself at {point}"
            me.close()
            del server.env[CRASH_ENV]
            server.start()  # recovery: the hand is settled once (or, if it was, the match is closed)
            matches += 1
            match = _wait_settled(me, matches)
            hand = match["hands"][0]
            record = me.api("GET", f"/api/replays/{hand['id']}?steps=false")["record"]
            assert record["double_cards"] == [0], f"{point}: the hand was dealt with the card active"
            if hand["winner"] == 0:  # R7.3: the holder's own gain doubled
                assert hand["payments"][0] == -2 * (hand["payments"][1] + hand["payments"][2])
            balances = _check_database(database_url, me.id)  # read while the server idles between matches
            assert me.api("GET", "/api/me")["player"]["beans"] == balances["beans"]
            # the card was used (activate) and nothing granted twice: one daily card, level-ups once each
            assert me.api("GET", "/api/me/double-cards")["cards"]["held"] == balances["cards"]
            reasons = [e["reason"] for e in me.api("GET", "/api/me/ledger?currency=cards")["entries"]]
            assert reasons.count("daily") == 1 and reasons.count("activate") == 1
