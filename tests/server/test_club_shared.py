"""亲友圈 in the shared mode (issue 31 §5): two real server processes on one PostgreSQL and one Redis. A club
table runs on the process that opened it; a member whose websocket and HTTP calls go to the other process
sees it live, sits at it, and — removed on the first process — loses the club on the second too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ..support.clients import Client
from ..support.server import ServerProcess
from .play import in_parallel

TEMPLATE = {"name": "两边", "options": {"preset": "qq", "hands": 1}}


@pytest.fixture
def two(shared_deployment: dict[str, str], tmp_path: Path) -> Iterator[list[ServerProcess]]:
    env = {k: v for k, v in shared_deployment.items() if k.startswith("PAOHUZI_")} | {
        "PAOHUZI_LEASE_MS": "1500",
        "PAOHUZI_LOGIN_RATE": "100",
        "PAOHUZI_LOGIN_BURST": "100",
    }
    servers = [ServerProcess(tmp_path, shared_deployment["database_url"], env) for _ in range(2)]
    try:
        in_parallel([s.start for s in servers])
        yield servers
    finally:
        for s in servers:
            s.stop()


def test_a_member_on_each_process_sees_the_same_club_table_live(two: list[ServerProcess]) -> None:
    a, b = two
    owner = Client(a, nickname="甲")
    owner.api("POST", "/api/me/claim", {"username": "club_shared", "password": "long enough pw"})
    club = owner.api("POST", "/api/clubs", {"name": "两个进程"}, expect=201)["club"]
    number, base = club["number"], f"/api/clubs/{club['number']}"
    member = Client(b, nickname="乙")  # its HTTP calls and its websocket go to process b
    assert member.api("POST", f"/api/clubs/invite/{club['invite_code']}/join")["status"] == "pending"
    owner.api("POST", f"{base}/requests/{member.id}/approve")
    tid = owner.api("POST", f"{base}/templates", TEMPLATE, expect=201)["template"]["id"]
    for c in (owner, member):
        c.connect()
        c.send({"type": "club_watch", "club": number})
        assert c.expect("club_tables")["tables"] == []
    code = owner.api("POST", f"{base}/tables", {"template": tid}, expect=201)["room"]["code"]  # held by a
    # opening is two steps (the empty table, then its opener sits down), and a tick of the polled list may fall
    # between them: wait for the list with the opener seated
    for c in (owner, member):
        frame = c.expect("club_tables", where=lambda f: any(s["player"] for t in f["tables"] for s in t["seats"]))
        seen = [(t["code"], [s["player"] for s in t["seats"]]) for t in frame["tables"]]
        assert seen == [(code, [owner.id, None, None])]
    member.api("POST", f"{base}/tables/{code}/sit")  # through b, seated at a's room
    # seated, and 同IP across the processes (issue 31 §4): both websockets come from 127.0.0.1, one at a, one at
    # b — each process's list flags both seats (a reads b's address from Redis, b a's), never the address
    for c in (owner, member):
        frame = c.expect("club_tables", where=lambda f: f["tables"][0]["same_ip"] == [0, 1])
        assert [s["player"] for s in frame["tables"][0]["seats"]] == [owner.id, member.id, None]
        assert "127.0.0.1" not in str(frame)
    assert member.api("GET", "/api/me")["room"]["code"] == code
    # removed on a: b stops sending it the club at its next read, and stands it up from the waiting table
    owner.api("DELETE", f"{base}/members/{member.id}")
    assert member.expect("club_gone", timeout=10) == {"type": "club_gone", "club": number, "reason": "removed"}
    assert member.api("GET", base, expect=404)["error"]["code"] == "not_found"
    assert member.api("GET", "/api/me")["room"] is None
    seen = owner.expect("club_tables", where=lambda f: f["tables"][0]["seats"][1]["player"] is None)["tables"]
    assert [s["player"] for s in seen[0]["seats"]] == [owner.id, None, None]
    for c in (owner, member):
        c.close()
