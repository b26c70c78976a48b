"""Accounts (issue 13 §1) on a real server, with SQLite and with PostgreSQL (when 127.0.0.1:5432 answers):
claim a guest, log in on another device as the same player, list and revoke sessions (HTTP and the
websocket refuse a revoked one), rate limits per address and per account, export, deletion."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from paohuzi.server import accounts, ledger_store
from paohuzi.server.db import Database
from paohuzi.server.models import Player, SessionRow

from ..support.clients import Client
from ..support.databases import postgres_available, postgres_schema
from ..support.server import ServerProcess, running

# Tight log-in limits so that brute force hits them fast; every test uses its own usernames.
ENV = {"PAOHUZI_LOGIN_BURST": "40", "PAOHUZI_LOGIN_RATE": "0.01", "PAOHUZI_LOGIN_FAIL_BURST": "3"}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def accounts_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    workdir: Path = tmp_path_factory.mktemp("accounts")
    if request.param == "sqlite":
        with running(workdir, env=ENV) as proc:
            yield proc
        return
    if not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    with postgres_schema() as url, running(workdir, url, ENV) as proc:
        yield proc


def _play_quick_hand(client: Client) -> None:
    """One quick-play match in 托管 to its end: the player has history and points."""
    client.api("POST", "/api/rooms/quick", {"hands": 1}, expect=201)
    client.connect()
    client.send({"type": "auto", "on": True, "id": client.next_id()})
    client.expect("match_over", timeout=60)
    client.close()


def test_claim_then_log_in_elsewhere_is_the_same_player(accounts_server: ServerProcess) -> None:
    server = accounts_server
    guest = Client(server, nickname="老王")
    _play_quick_hand(guest)
    before = guest.api("GET", "/api/me")["player"]
    history = guest.api("GET", "/api/me/history")["matches"]
    assert before["hands_played"] == 1 and len(history) == 1
    assert guest.api("GET", "/api/me/account")["account"] == {"username": None, "claimed": False, "claimed_at": None}

    out = guest.api("POST", "/api/me/claim", {"username": "Ｗang_1", "password": "correct horse"})
    assert out["account"]["username"] == "Wang_1" and out["account"]["claimed"] is True
    # the guest token still works after claiming
    assert guest.api("GET", "/api/me")["player"]["id"] == guest.id

    # another device: any case / full-width form of the name logs in to the same player
    login = server.api("POST", "/api/login", json_body={"username": "wang_1", "password": "correct horse"}, expect=201)
    assert login["player"]["id"] == guest.id
    other = Client(server, token=login["token"])
    assert other.api("GET", "/api/me")["player"] == before  # same 积分, title, counts
    assert other.api("GET", "/api/me/history")["matches"] == history
    sessions = other.api("GET", "/api/me/account")
    assert [s["kind"] for s in sessions["sessions"]] == ["guest", "login"]
    assert sessions["current"] == sessions["sessions"][1]["id"]
    assert all(set(s) == {"id", "kind", "user_agent", "created_at"} for s in sessions["sessions"])


def test_username_rules_give_clear_errors(accounts_server: ServerProcess) -> None:
    server = accounts_server
    c = Client(server)
    cases = {
        "ab": "3–16 characters, not 2",
        "abcdefghijklmnopq": "3–16 characters, not 17",
        "аlice": "'а' (CYRILLIC SMALL LETTER A) is not allowed",
        "bob smith": "(SPACE) is not allowed",
        "1bob": "must begin with a letter",
        "_bob": "must begin with a letter",
    }
    for name, message in cases.items():
        err = c.api("POST", "/api/me/claim", {"username": name, "password": "long enough pw"}, expect=422)
        assert err["error"]["code"] == "invalid_username" and message in err["error"]["message"], (name, err)
    err = c.api("POST", "/api/me/claim", {"username": "carol", "password": "short"}, expect=422)
    assert err["error"] == {"code": "weak_password", "message": "password: at least 8 characters"}
    err = c.api("POST", "/api/me/claim", {"username": "carolcarol", "password": "CAROLCAROL"}, expect=422)
    assert err["error"]["message"] == "password: must not be the username"
    c.api("POST", "/api/me/claim", {"username": "渔夫carol", "password": "long enough pw"})
    err = c.api("POST", "/api/me/claim", {"username": "渔夫dave", "password": "long enough pw"}, expect=409)
    assert err["error"]["code"] == "already_claimed"
    # look-alikes of a taken name are taken: case, 0/o, 1/l/i, rn/m
    for taken in ("渔夫CAROL", "渔夫car0l", "渔夫caro1", "渔夫carol"):
        d = Client(server)
        err = d.api("POST", "/api/me/claim", {"username": taken, "password": "long enough pw"}, expect=409)
        assert err["error"]["code"] == "username_taken", taken


def test_wrong_password_and_brute_force_hit_the_limit(accounts_server: ServerProcess) -> None:
    server = accounts_server
    c = Client(server)
    c.api("POST", "/api/me/claim", {"username": "erin_bf", "password": "the right one"})
    for _ in range(3):  # PAOHUZI_LOGIN_FAIL_BURST
        err = server.api("POST", "/api/login", json_body={"username": "erin_bf", "password": "guess!!!"}, expect=401)
        assert err["error"] == {"code": "bad_credentials", "message": "wrong username or password"}
    # the account is now limited: even the right password waits (checked before any hashing)
    err = server.api("POST", "/api/login", json_body={"username": "ERIN_BF", "password": "the right one"}, expect=429)
    assert err["error"]["code"] == "rate_limited"
    # an unknown username answers like a wrong password
    err = server.api("POST", "/api/login", json_body={"username": "nobody_x", "password": "whatever1"}, expect=401)
    assert err["error"]["code"] == "bad_credentials"


def test_per_address_limit(tmp_path: Path) -> None:
    env = {"PAOHUZI_LOGIN_BURST": "4", "PAOHUZI_LOGIN_RATE": "0.01"}
    with running(tmp_path, f"sqlite:///{tmp_path / 'x.sqlite3'}", env=env) as server:
        codes = [
            server.api("POST", "/api/login", json_body={"username": f"user{i}", "password": "pw123456"}, expect=None)
            for i in range(6)
        ]
        statuses = [httpx.post(server.url + "/api/login", json={"username": "zed", "password": "pw123456"}).status_code]
        assert [c["error"]["code"] for c in codes] == ["bad_credentials"] * 4 + ["rate_limited"] * 2
        assert statuses == [429]
        c = Client(server)  # claims count against the address too
        err = c.api("POST", "/api/me/claim", {"username": "frank", "password": "long enough pw"}, expect=429)
        assert err["error"]["code"] == "rate_limited"


def test_revoked_sessions_are_refused_on_http_and_the_websocket(accounts_server: ServerProcess) -> None:
    server = accounts_server
    guest = Client(server)
    err = guest.api("POST", "/api/me/logout-everywhere", expect=409)
    assert err["error"]["code"] == "not_claimed"
    guest.api("POST", "/api/me/claim", {"username": "grace", "password": "long enough pw"})
    tokens = [
        server.api("POST", "/api/login", json_body={"username": "grace", "password": "long enough pw"}, expect=201)[
            "token"
        ]
        for _ in range(2)
    ]
    a, b = Client(server, token=tokens[0]), Client(server, token=tokens[1])
    sessions = a.api("GET", "/api/me/account")["sessions"]
    assert len(sessions) == 3
    # revoke b's session from a: b's HTTP and websocket are refused at once
    b.connect()
    a.api("DELETE", f"/api/me/sessions/{sessions[2]['id']}")
    assert b.closed_with() == (4001, "session revoked")
    assert b.api("GET", "/api/me", expect=401)["error"]["code"] == "unauthorized"
    b.ws = None
    assert b.connect(hello=False) is None
    b.send({"type": "hello", "token": b.token})
    assert b.expect("error")["code"] == "unauthorized"
    # a's own session list no longer has it; revoking it again is 404
    assert [s["id"] for s in a.api("GET", "/api/me/account")["sessions"]] == [s["id"] for s in sessions[:2]]
    a.api("DELETE", f"/api/me/sessions/{sessions[2]['id']}", expect=404)
    # someone else's session cannot be revoked
    other = Client(server)
    other.api("DELETE", f"/api/me/sessions/{sessions[0]['id']}", expect=404)
    assert guest.api("GET", "/api/me")["player"]["id"] == guest.id
    # log out everywhere: every token of the player stops working, the websocket is closed
    guest.connect()
    out = a.api("POST", "/api/me/logout-everywhere")
    assert sorted(out["revoked"]) == sorted(s["id"] for s in sessions[:2])
    assert guest.closed_with() == (4001, "session revoked")
    for c in (a, guest):
        assert c.api("GET", "/api/me", expect=401)["error"]["code"] == "unauthorized"
    # the password still logs in
    server.api("POST", "/api/login", json_body={"username": "grace", "password": "long enough pw"}, expect=201)


def test_export_and_deletion_anonymise_the_player(accounts_server: ServerProcess) -> None:
    server = accounts_server
    alice, bob = Client(server, nickname="爱丽丝"), Client(server, nickname="鲍勃")
    code = alice.api("POST", "/api/rooms", {"hands": 1}, expect=201)["room"]["code"]
    bob.api("POST", f"/api/rooms/{code}/join")
    alice.connect()
    bob.connect()
    bob.send({"type": "ready", "ready": True})
    alice.expect("room", where=lambda f: f["room"]["seats"][1]["ready"])
    alice.send({"type": "start", "id": 1})  # the third seat is a bot
    for c in (alice, bob):
        c.send({"type": "auto", "on": True, "id": c.next_id()})
    for c in (alice, bob):
        c.expect("match_over", timeout=60)
        c.close()

    data = alice.api("GET", "/api/me/export")
    assert set(data) == {"player", "account", "sessions", "matches", "exported_at"}
    assert data["player"]["id"] == alice.id and len(data["matches"]) == 1
    match = data["matches"][0]
    assert match["room_code"] == code and len(match["hands"]) == 1
    assert "token" not in str(data["sessions"]) and "password" not in str(data)

    alice.api("POST", "/api/me/claim", {"username": "alice_del", "password": "long enough pw"})
    err = alice.api("DELETE", "/api/me", {"password": "wrong password"}, expect=401)
    assert err["error"]["code"] == "bad_credentials"
    beans = alice.api("GET", "/api/me")["player"]["beans"]
    assert beans > 0 and server.api("GET", f"/api/players/{alice.id}")["player"]["nickname"] == "爱丽丝"
    assert alice.api("DELETE", "/api/me", {"password": "long enough pw"}) == {"deleted": alice.id}
    # nothing of the account stays: no token hash, no claim, no wallet (taken out with a ledger row, so
    # the ledger still replays to every balance), no session's token hash or user agent
    db = Database(server.database_url)
    try:
        row = db.run_now(
            lambda s: s.execute(
                select(Player.token_hash, Player.claimed_at, Player.beans, Player.double_cards, Player.username)
                .where(Player.id == alice.id)
            ).one()
        )
        assert tuple(row) == (f"deleted:{alice.id}", None, 0, 0, None)
        sessions = db.run_now(
            lambda s: s.execute(
                select(SessionRow.id, SessionRow.token_hash, SessionRow.user_agent, SessionRow.revoked_at)
                .where(SessionRow.player_id == alice.id)
            ).all()
        )
        assert sessions and all(
            (h, ua) == (f"deleted:s{i}", "") and revoked is not None for i, h, ua, revoked in sessions
        )
        last = db.run_now(ledger_store.entries(alice.id, "beans", 1))[0]
        assert (last.reason, last.amount, last.balance_after, last.hand_id) == ("deleted", -beans, 0, None)
        replayed, held = db.run_now(ledger_store.replay()), db.run_now(ledger_store.balances())
        assert replayed[alice.id] == held[alice.id] and replayed[alice.id]["beans"] == 0
    finally:
        db.stop()
    # a deleted account has no public page: its card, profile and history answer alike
    for path in (f"/api/players/{alice.id}", f"/api/players/{alice.id}/profile", f"/api/players/{alice.id}/history"):
        assert server.api("GET", path, expect=404)["error"]["code"] == "not_found", path
    assert alice.api("GET", "/api/me", expect=401)["error"]["code"] == "unauthorized"
    server.api("POST", "/api/login", json_body={"username": "alice_del", "password": "long enough pw"}, expect=401)
    # bob's history keeps the match and the results, but not alice's name
    seats = bob.api("GET", "/api/me/history")["matches"][0]["seats"]
    assert [s["nickname"] for s in seats if s["player_id"] == alice.id] == ["已注销玩家"]
    assert "爱丽丝" not in str(bob.api("GET", f"/api/matches/{match['id']}"))
    assert all(p["id"] != alice.id for p in server.api("GET", "/api/leaderboard?limit=200")["players"])
    # the username is free again
    Client(server).api("POST", "/api/me/claim", {"username": "alice_del", "password": "long enough pw"})
    # a guest deletes itself with its token alone
    assert bob.api("DELETE", "/api/me") == {"deleted": bob.id}
    assert bob.api("GET", "/api/me", expect=401)["error"]["code"] == "unauthorized"



def test_a_server_hashes_at_the_production_cost_unless_testing_says_otherwise(tmp_path: Path) -> None:
    """The test servers hash new passwords at argon2id's least cost (``PAOHUZI_TEST_CHEAP_PASSWORDS``, testing
    mode only: tests/support/server.py); a server without it stores the production cost — RFC 9106's low-memory
    profile: 64 MiB, 3 passes, 4 lanes — and checks a log-in at the cost its stored hash names."""
    assert accounts.hash_password("correct horse", cheap=True).startswith("$argon2id$v=19$m=8,t=1,p=1$")
    env = dict(ENV, PAOHUZI_TESTING="0", PAOHUZI_TEST_CHEAP_PASSWORDS="0")
    with running(tmp_path, env=env) as server:
        guest = Client(server)
        guest.api("POST", "/api/me/claim", {"username": "cost_check", "password": "correct horse"})
        db = Database(server.database_url)
        try:
            stored = db.run_now(lambda s: s.scalars(select(Player.password_hash).where(Player.id == guest.id)).one())
        finally:
            db.stop()
        assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
        login = server.api("POST", "/api/login", json_body={"username": "cost_check", "password": "correct horse"},
                           expect=201)  # fmt: skip
        assert login["player"]["id"] == guest.id
        server.api("POST", "/api/login", json_body={"username": "cost_check", "password": "wrong horse"}, expect=401)
