"""亲友圈 (issue 31) over real HTTP and websockets: creating a club (claimed accounts only), invites, join
requests approved and refused, roles and every power walked as an outsider (404, nothing leaks) and as a
plain member (403), templates checked as rooms are, a club table played to its summary with 自动开桌, the
live list (``club_watch``), 战绩 with exact values, CSV, the pair table, and a removed member losing the
club at once on HTTP and on the websocket.

The scripted match needs a known deal: this module's server runs in testing mode with the fixed match seed
of tests/web/test_rooms.py (5149, ``first_claim``'s policy): seat 2 wins by 自摸, 6底 × 11番 = 66 × 2 自摸翻倍
= 132 → 封顶 100 × 底分 3 = 300 from each loser.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..support.clients import Client, play_seat
from ..support.databases import postgres_available, postgres_schema
from ..support.server import ServerProcess, running
from ..web.helpers import first_claim
from .play import in_parallel

SEED = 5149
ENV = {
    "PAOHUZI_TESTING": "1",
    "PAOHUZI_TEST_MATCH_SEED": str(SEED),
    "PAOHUZI_LOGIN_RATE": "100",
    "PAOHUZI_LOGIN_BURST": "100",
    "PAOHUZI_BOT_DELAY": "0",
}
_names = itertools.count(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running(tmp_path_factory.mktemp("clubs"), env=ENV) as proc:
        yield proc


def claimed(server: ServerProcess, name: str = "") -> Client:
    c = Client(server, nickname=name or None)
    c.api("POST", "/api/me/claim", {"username": f"club_{next(_names)}_{c.id}", "password": "long enough pw"})
    return c


def err(c: Client, method: str, path: str, body: Any = None, status: int = 404) -> str:
    code: str = c.api(method, path, body, expect=status)["error"]["code"]
    return code


TEMPLATE = {"name": "周五 一局", "options": {"preset": "qq", "hands": 1, "cap": 100, "zimo": "double"}}


def _club(owner: Client) -> tuple[str, str]:
    club = owner.api("POST", "/api/clubs", {"name": "  周五  牌局 "}, expect=201)["club"]
    assert (club["name"], club["role"], club["join_mode"], club["auto_open"], club["members"]) == (
        "周五 牌局", "owner", "approval", True, 1
    )
    assert club["invite_path"] == f"/?club={club['invite_code']}" and len(club["number"]) == 6
    return club["number"], club["invite_code"]


def test_a_guest_cannot_create_a_club_and_bad_input_is_named(server: ServerProcess) -> None:
    guest = Client(server)
    assert err(guest, "POST", "/api/clubs", {"name": "x"}, 403) == "not_claimed"
    owner = claimed(server)
    for body, words in (
        ({"name": ""}, "1 to 16"),
        ({"name": "a" * 17}, "at most 16"),
        ({"name": "a\x00b"}, "control characters"),
        ({"name": "ok", "extra": 1}, "extra"),
    ):
        answer = owner.api("POST", "/api/clubs", body, expect=422)
        assert words in str(answer), (body, answer)
    owner.api("GET", "/api/clubs/12345", expect=422)  # a club number has 6 digits
    assert owner.api("GET", "/api/clubs")["clubs"] == []


def test_join_by_request_roles_and_every_power(server: ServerProcess) -> None:
    owner, admin, member, outsider, refused = (claimed(server) for _ in range(5))
    number, invite = _club(owner)
    base = f"/api/clubs/{number}"
    # an invite code shows the name and size only; joining is by request, answered by the owner
    preview = admin.api("GET", f"/api/clubs/invite/{invite}")["club"]
    assert preview == {"number": number, "name": "周五 牌局", "members": 1, "join_mode": "approval"}
    for c in (admin, member, refused):
        assert c.api("POST", f"/api/clubs/invite/{invite}/join")["status"] == "pending"
    assert admin.api("POST", f"/api/clubs/invite/{invite}/join")["status"] == "pending"  # asked twice: one
    pending = owner.api("GET", f"{base}/members")["requests"]
    assert [r["player"] for r in pending] == [admin.id, member.id, refused.id]
    assert err(admin, "GET", base) == "not_found"  # pending is not a member yet
    owner.api("POST", f"{base}/requests/{admin.id}/approve")
    owner.api("PUT", f"{base}/members/{admin.id}/role", {"role": "admin"})
    admin.api("POST", f"{base}/requests/{member.id}/approve")  # an admin answers requests too
    admin.api("POST", f"{base}/requests/{refused.id}/refuse")
    assert err(owner, "POST", f"{base}/requests/{refused.id}/approve") == "not_found"  # answered already
    assert err(refused, "GET", base) == "not_found"
    members = owner.api("GET", f"{base}/members")
    assert [(m["player"], m["role"]) for m in members["members"]] == [
        (owner.id, "owner"), (admin.id, "admin"), (member.id, "member")
    ]
    assert members["requests"] == []
    # a plain member sees the club but no invite code, no requests, no bans
    seen = member.api("GET", base)["club"]
    assert (seen["role"], seen["invite_code"], seen["members"]) == ("member", None, 3)
    assert member.api("GET", f"{base}/members")["requests"] == []
    assert [c["number"] for c in member.api("GET", "/api/clubs")["clubs"]] == [number]

    template = owner.api("POST", f"{base}/templates", TEMPLATE, expect=201)["template"]
    tid = template["id"]
    routes: list[tuple[str, str, Any]] = [
        ("GET", base, None),
        ("PATCH", base, {"notice": "x"}),
        ("DELETE", base, None),
        ("POST", f"{base}/invite", None),
        ("GET", f"{base}/members", None),
        ("POST", f"{base}/requests/{refused.id}/approve", None),
        ("DELETE", f"{base}/members/{admin.id}", None),
        ("DELETE", f"{base}/bans/{refused.id}", None),
        ("PUT", f"{base}/members/{admin.id}/role", {"role": "member"}),
        ("POST", f"{base}/leave", None),
        ("POST", f"{base}/transfer", {"player": admin.id}),
        ("GET", f"{base}/templates", None),
        ("POST", f"{base}/templates", TEMPLATE),
        ("PUT", f"{base}/templates/{tid}", TEMPLATE),
        ("DELETE", f"{base}/templates/{tid}", None),
        ("GET", f"{base}/tables", None),
        ("POST", f"{base}/tables", {"template": tid}),
        ("POST", f"{base}/tables/123456/sit", None),
        ("GET", f"{base}/stats", None),
        ("GET", f"{base}/matches", None),
        ("GET", f"{base}/matches.csv", None),
        ("GET", f"{base}/pairs", None),
    ]
    # an outsider: every route 404, exactly as for a club that does not exist — nothing of it leaks
    ghost_number = "999999" if number != "999999" else "100000"
    for method, path, body in routes:
        got = outsider.api(method, path, body, expect=404)
        assert got == {"error": {"code": "not_found", "message": f"no club '{number}' of yours"}}, (method, path)
        ghost = outsider.api(method, path.replace(number, ghost_number), body, expect=404)
        assert ghost == {"error": {"code": "not_found", "message": f"no club '{ghost_number}' of yours"}}
    # a plain member: the owner's and admins' powers are 403 forbidden, naming the power
    plain_forbidden = {
        ("PATCH", base), ("DELETE", base), ("POST", f"{base}/invite"),
        ("POST", f"{base}/requests/{refused.id}/approve"), ("DELETE", f"{base}/members/{admin.id}"),
        ("DELETE", f"{base}/bans/{refused.id}"), ("PUT", f"{base}/members/{admin.id}/role"),
        ("POST", f"{base}/transfer"), ("POST", f"{base}/templates"), ("PUT", f"{base}/templates/{tid}"),
        ("DELETE", f"{base}/templates/{tid}"), ("GET", f"{base}/matches.csv"), ("GET", f"{base}/pairs"),
    }
    for method, path, body in routes:
        if (method, path) in plain_forbidden:
            got = member.api(method, path, body, expect=403)
            assert got["error"]["code"] == "forbidden" and "only the club's" in got["error"]["message"], got
    # an admin: no owner's powers; may not remove the owner or another admin
    assert err(admin, "PATCH", base, {"notice": "x"}, 403) == "forbidden"
    assert err(admin, "DELETE", base, None, 403) == "forbidden"
    assert err(admin, "DELETE", f"{base}/members/{owner.id}", None, 403) == "forbidden"
    assert err(admin, "GET", f"{base}/pairs", None, 403) == "forbidden"
    # the owner's settings: the notice is the only free text, bounded
    too_long = owner.api("PATCH", base, {"notice": "字" * 201}, expect=422)
    assert "at most 200 characters" in str(too_long)
    club = owner.api("PATCH", base, {"notice": " 周五晚上八点\n老地方 ", "join_mode": "open"})["club"]
    assert (club["notice"], club["join_mode"]) == ("周五晚上八点\n老地方", "open")
    assert member.api("GET", base)["club"]["notice"] == "周五晚上八点\n老地方"
    # ban: the banned player cannot ask again; an open club admits at once; a new invite code replaces the old
    owner.api("DELETE", f"{base}/members/{refused.id}?ban=true")
    assert err(refused, "POST", f"/api/clubs/invite/{invite}/join", None, 403) == "banned"
    fresh = claimed(server)
    assert fresh.api("POST", f"/api/clubs/invite/{invite}/join")["status"] == "member"
    new_code = admin.api("POST", f"{base}/invite")["club"]["invite_code"]
    assert new_code != invite and err(claimed(server), "GET", f"/api/clubs/invite/{invite}") == "not_found"
    owner.api("DELETE", f"{base}/bans/{refused.id}")
    assert refused.api("POST", f"/api/clubs/invite/{new_code}/join")["status"] == "member"
    # leave, transfer, dissolve
    assert err(owner, "POST", f"{base}/leave", None, 409) == "owner"
    fresh.api("POST", f"{base}/leave")
    assert err(fresh, "GET", base) == "not_found"
    club = owner.api("POST", f"{base}/transfer", {"player": admin.id})["club"]
    assert club["owner"] == admin.id
    assert admin.api("GET", base)["club"]["role"] == "owner" and owner.api("GET", base)["club"]["role"] == "admin"
    assert err(owner, "DELETE", base, None, 403) == "forbidden"
    admin.api("DELETE", base)
    for c in (owner, admin, member):
        assert err(c, "GET", base) == "not_found"
        assert c.api("GET", "/api/clubs")["clubs"] == []


def test_templates_are_checked_as_rooms_and_limited(server: ServerProcess) -> None:
    owner = claimed(server)
    number, _ = _club(owner)
    base = f"/api/clubs/{number}/templates"
    bad = owner.api("POST", base, {"name": "x", "options": {"preset": "nope"}}, expect=422)["error"]
    assert bad["code"] == "invalid" and "nope" in bad["message"]
    bad = owner.api("POST", base, {"name": "x", "options": {"tier": "junior"}}, expect=422)["error"]
    assert "points only" in bad["message"]
    bad = owner.api("POST", base, {"name": "x", "options": {"preset": "changde", "win_on_discard": True}},
                    expect=422)["error"]
    assert "win_on_discard" in bad["message"]
    saved = owner.api("POST", base, {"name": "十胡卡", "options": {"preset": "shihuka", "hands": 4, "stake": 2}},
                      expect=201)["template"]
    options = saved["options"]
    assert (options["preset"], options["hands"], options["stake"], options["bots_fill"], options["tier"]) == (
        "shihuka", 4, 2, False, "practice"
    )
    changed = owner.api("PUT", f"{base}/{saved['id']}", {"name": "八局", "options": {"hands": 8}})["template"]
    assert (changed["name"], changed["options"]["preset"], changed["options"]["hands"]) == ("八局", "qq", 8)
    for i in range(7):
        owner.api("POST", base, {"name": f"t{i}"}, expect=201)
    assert err(owner, "POST", base, {"name": "ninth"}, 409) == "too_many_templates"
    owner.api("DELETE", f"{base}/{saved['id']}")
    assert err(owner, "DELETE", f"{base}/{saved['id']}") == "not_found"
    assert len(owner.api("GET", base)["templates"]) == 7


def _frame(c: Client, kind: str, where: Any) -> dict[str, Any]:
    """A frame already read (by a play loop) or the next one, of ``kind`` matching ``where``."""
    for f in c.frames:
        if f["type"] == kind and where(f):
            return f
    return c.expect(kind, where=where)


def _join(owner: Client, number: str, invite: str, c: Client) -> None:
    assert c.api("POST", f"/api/clubs/invite/{invite}/join")["status"] == "pending"
    owner.api("POST", f"/api/clubs/{number}/requests/{c.id}/approve")


def test_a_club_table_plays_to_its_summary_and_the_records_follow(server: ServerProcess) -> None:
    _club_table_to_records(server)


def test_the_same_on_postgresql(tmp_path: Path) -> None:
    """The clubs' jobs and 战绩 on PostgreSQL (the module's server runs on SQLite)."""
    if not postgres_available():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    with postgres_schema() as url, running(tmp_path, url, env=ENV) as pg:
        _club_table_to_records(pg)


def _club_table_to_records(server: ServerProcess) -> None:
    owner, m1, m2 = claimed(server, "东家"), Client(server, nickname="老王"), Client(server, nickname="小李")
    outsider = Client(server)
    number, invite = _club(owner)
    base = f"/api/clubs/{number}"
    for c in (m1, m2):
        _join(owner, number, invite, c)
    tid = owner.api("POST", f"{base}/templates", TEMPLATE, expect=201)["template"]["id"]
    # the member watching the list sees it live
    m2.connect()
    m2.send({"type": "club_watch", "club": number})
    first = m2.expect("club_tables")
    assert (first["club"], first["tables"], first["finished"]) == (number, [], [])
    room = owner.api("POST", f"{base}/tables", {"template": tid}, expect=201)["room"]
    code = room["code"]
    assert (room["kind"], room["share_path"], room["share_url"], room["owner"]) == ("club", None, None, None)
    assert room["options"]["hints"] is True and room["options"]["bots_fill"] is False
    # the table is listed when it opens, and again once its creator sits (two frames; the first may be seen)
    listed = m2.expect("club_tables", where=lambda f: bool(f["tables"]) and f["tables"][0]["seats"][0]["player"])[
        "tables"
    ]
    assert [(t["code"], t["template"], t["name"], t["status"], t["hands"]) for t in listed] == [
        (code, tid, "周五 一局", "waiting", 1)
    ]
    assert [s["player"] for s in listed[0]["seats"]] == [owner.id, None, None]
    # a club table's code is no key to it: not for outsiders, not even by the plain room routes
    assert err(outsider, "GET", f"/api/rooms/{code}") == "not_found"
    assert err(outsider, "POST", f"/api/rooms/{code}/join") == "not_found"
    assert err(outsider, "POST", f"{base}/tables/{code}/sit") == "not_found"
    assert err(m1, "POST", f"{base}/tables/999999/sit") == "not_found"
    m1.api("POST", f"{base}/tables/{code}/sit")
    players = [Client(server, token=owner.token), m1, m2]
    for c in players[:2]:
        c.connect()
    room = m2.api("POST", f"{base}/tables/{code}/sit")["room"]  # the table is full: its match starts
    assert room["status"] == "playing" and [s["seat"] for s in room["seats"] if s["player"]] == [0, 1, 2]
    # 自动开桌: a fresh waiting table of the same template opened by itself
    tables = owner.api("GET", f"{base}/tables")["tables"]
    assert [(t["template"], t["status"]) for t in tables] == [(tid, "playing"), (tid, "waiting")]
    assert tables[0]["hand_no"] == 1 and all(s["player"] is None for s in tables[1]["seats"])
    live = m2.expect("club_tables", where=lambda f: len(f["tables"]) == 2)["tables"]
    assert live[0]["code"] == code and live[1]["code"] != code
    # 同IP: the three sockets come from 127.0.0.1 — flagged by seat, the address never sent
    assert owner.api("GET", f"{base}/tables")["tables"][0]["same_ip"] == [0, 1, 2]
    assert "127.0.0.1" not in str(live)
    # the scripted match to its summary (seat 2 wins by 自摸: +600, each loser −300)
    results = in_parallel([lambda c=c: play_seat(c, until="match_over", choose=first_claim) for c in players])
    assert all(r is not None and r["scores"] == [-300, -300, 600] for r in results), results
    finished = _frame(m2, "club_tables", lambda f: bool(f["finished"]))["finished"]
    assert [s["score"] for s in finished[0]["seats"]] == [-300, -300, 600]
    # 战绩 for all three, exact; the ranking by points
    for period in ("today", "week", "month", "all"):
        stats = m1.api("GET", f"{base}/stats?period={period}")
        rows = {r["player"]: r for r in stats["members"]}
        assert [r["player"] for r in stats["members"]] == [m2.id, owner.id, m1.id]  # by points, then id
        assert {k: rows[m2.id][k] for k in ("rank", "matches", "hands", "wins", "zimo", "big_winner", "points")} == {
            "rank": 1, "matches": 1, "hands": 1, "wins": 1, "zimo": 1, "big_winner": 1, "points": 600
        }
        for loser in (owner.id, m1.id):
            assert (rows[loser]["matches"], rows[loser]["wins"], rows[loser]["points"]) == (1, 0, -300)
            assert (rows[loser]["escapes"], rows[loser]["dissolved"], rows[loser]["big_winner"]) == (0, 0, 0)
    matches = m1.api("GET", f"{base}/matches")["matches"]
    assert len(matches) == 1 and matches[0]["hands"][0]["code"] and matches[0]["hands"][0]["zimo"] is True
    assert m1.api("GET", f"{base}/matches?member={m1.id}")["matches"] == matches
    assert m1.api("GET", f"{base}/matches?member={outsider.id}")["matches"] == []
    replay = outsider.api("GET", f"/api/replays/code/{matches[0]['hands'][0]['code']}?steps=false")
    assert replay["hand"]["outcome"]["winner"] == 2
    # CSV for the owner: one row per seat; a nickname starting with = is no formula
    csv = httpx.get(f"{server.url}{base}/matches.csv", headers={"Authorization": f"Bearer {owner.token}"})
    assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
    lines = csv.text.strip().splitlines()
    assert lines[0].startswith("match,finished_at,status") and len(lines) == 4
    assert [line.split(",")[7] for line in lines[1:]] == ["-300", "-300", "600"]
    pairs = owner.api("GET", f"{base}/pairs")
    assert "never proof" in pairs["note"]
    assert sorted((tuple(r["players"]), r["hands"]) for r in pairs["pairs"]) == sorted(
        (tuple(sorted(x)), 1) for x in ((owner.id, m1.id), (owner.id, m2.id), (m1.id, m2.id))
    )
    assert all(d["fed"] == 0 and d["expected"] == 0 for r in pairs["pairs"] for d in r["directions"])  # 自摸
    # removed: at once on HTTP and on the websocket (the list stops, club_gone tells why)
    owner.api("DELETE", f"{base}/members/{m2.id}")
    gone = m2.expect("club_gone")
    assert gone == {"type": "club_gone", "club": number, "reason": "removed"}
    assert err(m2, "GET", f"{base}/tables") == "not_found"
    assert err(m2, "GET", f"{base}/stats") == "not_found"
    m2.send({"type": "club_watch", "club": number})
    assert m2.expect("error")["code"] == "not_found"
    for c in players:
        c.close()


def test_a_removed_member_waiting_at_a_table_is_stood_up(server: ServerProcess) -> None:
    owner, m1 = claimed(server), Client(server)
    number, invite = _club(owner)
    base = f"/api/clubs/{number}"
    _join(owner, number, invite, m1)
    tid = owner.api("POST", f"{base}/templates", TEMPLATE, expect=201)["template"]["id"]
    code = m1.api("POST", f"{base}/tables", {"template": tid}, expect=201)["room"]["code"]
    assert m1.api("GET", "/api/me")["room"]["code"] == code
    owner.api("DELETE", f"{base}/members/{m1.id}?ban=true")
    assert m1.api("GET", "/api/me")["room"] is None
    assert err(m1, "POST", f"/api/clubs/invite/{invite}/join", None, 403) == "banned"


def test_join_requests_and_new_invite_codes_are_rate_limited(server: ServerProcess) -> None:
    asker = Client(server)
    owners = [claimed(server) for _ in range(6)]
    clubs = [_club(o) for o in owners]
    for _, invite in clubs[:5]:
        assert asker.api("POST", f"/api/clubs/invite/{invite}/join")["status"] == "pending"
    assert err(asker, "POST", f"/api/clubs/invite/{clubs[5][1]}/join", None, 429) == "rate_limited"
    number = clubs[0][0]
    codes = {owners[0].api("POST", f"/api/clubs/{number}/invite")["club"]["invite_code"] for _ in range(5)}
    assert len(codes) == 5
    assert err(owners[0], "POST", f"/api/clubs/{number}/invite", None, 429) == "rate_limited"


def test_a_liuhuqiang_template_opens_tables_of_its_players_r9_3(server: ServerProcess) -> None:
    """A 六胡抢 template (R9.3) opens a table of four seats, three with ``players`` 3, as a room does."""
    owner = claimed(server)
    number, _ = _club(owner)
    base = f"/api/clubs/{number}"
    for players in (4, 3):
        body = {"name": f"六胡抢 {players}", "options": {"preset": "liuhuqiang", "players": players, "hands": 4}}
        tid = owner.api("POST", f"{base}/templates", body, expect=201)["template"]["id"]
        room = owner.api("POST", f"{base}/tables", {"template": tid}, expect=201)["room"]
        assert (room["options"]["preset"], len(room["seats"])) == ("liuhuqiang", players)
        seated = [s["player"]["id"] if s["player"] else None for s in room["seats"]]
        assert seated == [owner.id] + [None] * (players - 1)  # who opens a table sits at it
