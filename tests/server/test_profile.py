"""The profile page's data (issue 13 §5) on SQLite and PostgreSQL: hands, wins, win rate, 名堂 counts, the best
hand, the R7.4 title with the way to the next, the 欢乐豆 history from the ledger (R7.3), the relief left
today — and another player's public profile, which never shows the bean history, and never a private
room's hand by id.

The hands are written with the server's own jobs (store.finish_hand wrapped in ledger_store.settle_hand,
the settlement's transaction) before the server starts on that database, so every number is known."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session

from paohuzi.rules import find_preset
from paohuzi.server import account_store, ledger_store, store
from paohuzi.server.config import Settings
from paohuzi.server.db import Database
from paohuzi.server.models import Match, Room
from paohuzi.server.protocol import QuickPlayIn
from paohuzi.server.room_options import room_options

from ..support.clients import Client
from ..support.databases import postgres_available, postgres_schema
from ..support.server import ServerProcess

# The stored options of a room these tests make directly in the database (a quick play's defaults).
OPTIONS = room_options(Settings(), QuickPlayIn(), quick=True)
QQ = find_preset("qq")

P_TOKEN, Q_TOKEN = "p" * 43, "q" * 43


def _hu(winner: int, points: int, huxi: int, fan: int, names: list[tuple[str, int]], stake: int) -> dict[str, Any]:
    payments = [-points * stake] * 3
    payments[winner] = 2 * points * stake
    return {
        "kind": "hu",
        "winner": winner,
        "points": points,
        "huxi": huxi,
        "fan": fan,
        "names": [{"name": n, "fan": f} for n, f in names],
        "payments": payments,
        "leaver": None,
    }


def _close(room_id: int, match_id: int) -> Any:
    def job(s: Session) -> None:
        s.execute(update(Match).where(Match.id == match_id).values(status="finished"))
        s.execute(update(Room).where(Room.id == room_id).values(status="closed"))

    return job


def _played(
    db: Database, kind: str, lineup: list[int | None], outcomes: list[dict[str, Any] | None], multiplier: int
) -> list[int]:
    """A closed room of ``kind`` with one match of these hands (None: a hand still being played), each
    settled by the server's settlement job at ``multiplier``."""
    room = db.run_now(store.create_room(f"{len(outcomes) + 100000 + len(kind)}", kind, None, OPTIONS, 3))
    seats = [store.MatchSeatRow(pid, None if pid else "normal", f"p{pid}") for pid in lineup]
    match = db.run_now(store.create_match(room, 7, QQ, len(outcomes), seats))
    hands = []
    for n, outcome in enumerate(outcomes):
        hand = db.run_now(store.create_hand(match, n + 1, 100 + n, 0, QQ))
        hands.append(hand)
        if outcome is None:
            continue
        pays = outcome["payments"]
        results = [(pid, pays[s], outcome.get("winner") == s) for s, pid in enumerate(lineup) if pid is not None]
        finish = store.finish_hand(hand, outcome, {}, match, pays, results)
        db.run_now(ledger_store.settle_hand(finish, hand, lineup, [0, 1, 2], pays, 3, multiplier))
    db.run_now(_close(room, match))
    return hands


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Players P and Q; P played a 初级场 quick match (won, lost, drawn) and won a private-room hand
    against Q (practice: no beans); a last hand is still being played."""
    tmp = tmp_path_factory.mktemp("profile")
    if request.param == "postgresql":
        if not postgres_available():
            pytest.skip("no PostgreSQL on 127.0.0.1:5432")
        schema = postgres_schema()
        url = schema.__enter__()
    else:
        schema = None
        url = f"sqlite:///{tmp / 'db.sqlite3'}"
    db = Database(url)
    db.migrate()
    p = db.run_now(account_store.create_guest(store.hash_token(P_TOKEN), "阿P", ""))[0].id
    q = db.run_now(account_store.create_guest(store.hash_token(Q_TOKEN), "阿Q", ""))[0].id
    draw = {"kind": "draw", "winner": None, "points": 0, "payments": [0, 0, 0], "leaver": None}
    quick = _played(
        db,
        "quick",
        [p, None, None],
        [_hu(0, 4, 21, 2, [("红胡", 2)], 3), _hu(1, 2, 16, 1, [("平胡", 1)], 3), draw],
        multiplier=5,
    )
    private = _played(
        db, "private", [q, p, None], [_hu(1, 8, 30, 4, [("红胡", 2), ("自摸", 0)], 3), None], multiplier=0
    )
    db.stop()
    server = ServerProcess(tmp, url).start()
    try:
        yield {"server": server, "p": p, "q": q, "quick": quick, "private": private}
    finally:
        server.stop()
        if schema is not None:
            schema.__exit__(None, None, None)


def test_own_profile_counts_hands_mingtang_best_hand_and_bean_history(world: dict[str, Any]) -> None:
    server = world["server"]
    me = Client(server, token=P_TOKEN)
    data = me.api("GET", "/api/me/profile")
    # 积分: +24 (won 4 × stake 3 × 2 losers), −6, 0, +48 = 66 → 长工 (60), next 佃户 at 90 (R7.4)
    assert data["player"]["points"] == 66 and data["player"]["title"] == "长工"
    assert data["level"] == {
        "number": 3,
        "title": "长工",
        "points": 66,
        "floor": 60,
        "next": {"title": "佃户", "at": 90},
        "progress": 0.2,
    }
    assert data["stats"] == {
        "hands": 4,
        "wins": 2,
        "win_rate": 0.5,
        "mingtang": {"红胡": 2, "自摸": 1},
        "best": {
            "hand_id": world["private"][0],
            "points": 8,
            "huxi": 30,
            "fan": 4,
            "names": ["红胡", "自摸"],
            "finished_at": data["stats"]["best"]["finished_at"],
            "replay": True,
        },
    }
    # 欢乐豆 (R7.3, 初级场 ×5): the bots paid 4 × 5 each (+40), then P paid 2 × 5 (−10); the private
    # room was practice (×0): no row. Oldest first, exactly the ledger's bean rows.
    beans = data["beans"]
    assert beans["balance"] == 1030
    assert [(b["reason"], b["hand_id"], b["amount"], b["balance_after"]) for b in beans["history"]] == [
        ("start", None, 1000, 1000),
        ("hand", world["quick"][0], 40, 1040),
        ("hand", world["quick"][1], -10, 1030),
    ]
    ledger = me.api("GET", "/api/me/ledger?currency=beans")["entries"]
    assert [e["id"] for e in reversed(ledger)] == [b["id"] for b in beans["history"]]
    assert beans["relief"] == {"amount": 500, "below": 100, "left_today": 2, "available": False}
    assert [b["amount"] for b in me.api("GET", "/api/me/profile?history=2")["beans"]["history"]] == [40, -10]
    assert me.api("GET", "/api/me/profile?history=0", expect=422)["error"]["code"] == "invalid"


def test_public_profile_shows_public_numbers_only(world: dict[str, Any]) -> None:
    server = world["server"]
    outsider = Client(server)
    data = outsider.api("GET", f"/api/players/{world['p']}/profile")
    assert set(data) == {"player", "level", "stats"}  # no bean history, no account, no sessions
    assert data["player"] == {
        "id": world["p"],
        "nickname": "阿P",
        "points": 66,
        "title": "长工",
        "hands_played": 4,
        "hands_won": 2,
        "matches_played": 0,
        "beans": 1030,
    }
    assert data["stats"]["best"]["hand_id"] is None and data["stats"]["best"]["replay"] is False  # private room
    assert (data["stats"]["hands"], data["stats"]["wins"], data["stats"]["win_rate"]) == (4, 2, 0.5)
    q = server.api("GET", f"/api/players/{world['q']}/profile")
    assert q["stats"] == {"hands": 1, "wins": 0, "win_rate": 0.0, "mingtang": {}, "best": None}
    assert q["level"]["title"] == "包身工" and q["level"]["progress"] == 0.0  # −24 积分
    newcomer = Client(server)
    fresh = newcomer.api("GET", "/api/me/profile")
    assert fresh["stats"] == {"hands": 0, "wins": 0, "win_rate": None, "mingtang": {}, "best": None}
    assert [b["reason"] for b in fresh["beans"]["history"]] == ["start"]
    # a deleted account has no profile page
    newcomer.api("DELETE", "/api/me")
    err = server.api("GET", f"/api/players/{newcomer.id}/profile", expect=404)["error"]
    assert err == {"code": "not_found", "message": f"no player {newcomer.id}"}
    assert server.api("GET", "/api/players/2147483648/profile", expect=422)["error"]["code"] == "invalid"
    assert server.api("GET", "/api/me/profile", expect=401)["error"]["code"] == "unauthorized"
