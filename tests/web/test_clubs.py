"""亲友圈 in the browser (issue 31's acceptance): four people — the owner (desktop), two friends who are let in
(a 360×740 phone and a desktop) and one who is refused. The owner creates a club and a 玩法 template; the
three others open the invite link and ask to join; the owner accepts two and refuses one; a table opens,
fills, and plays a scripted match to its summary; a new table opens by itself; 战绩 shows the match to all
three; a removed member loses the club at once (its page says so over the websocket, and the routes answer
404).

The match is the scripted deal of tests/web/test_rooms.py (seed 5149, ``first_claim``'s policy): seat 2 — the
second friend, who sits down last — wins by 自摸 with 30 胡息 (对对胡 5番 + 大字胡 6番). The template keeps the
qq preset's own options (自摸 +1 底, no 封顶, 底分 3): (6 + 1)底 × 11番 = 77 points × 3 = 231 from each loser.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..support.server import ServerProcess, running_web
from .helpers import Person, play_scripted
from .test_browser import PHONE, _no_errors

SEED = 5149
DESKTOP = {"viewport": {"width": 1280, "height": 800}}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    env = {"PAOHUZI_TESTING": "1", "PAOHUZI_TEST_MATCH_SEED": str(SEED)}
    with running_web(tmp_path_factory.mktemp("web-clubs"), env) as srv:
        yield srv


def _token(p: Person) -> str:
    return str(p.page.evaluate("() => localStorage.getItem('paohuzi.token')"))


def _api(srv: ServerProcess, p: Person, method: str, path: str, body: Any = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {_token(p)}"}
    return httpx.request(method, srv.url + path, headers=headers, json=body, timeout=10)


def _go(p: Person, hash_: str, selector: str) -> None:
    p.page.evaluate("h => { location.hash = h; }", hash_)
    p.page.wait_for_selector(selector)



def test_a_club_from_invite_to_records_in_four_browsers(browser: Any, seeded: ServerProcess, artifacts: Path) -> None:
    owner = Person(browser, seeded.url, artifacts, "owner", **DESKTOP)
    friend = Person(browser, seeded.url, artifacts, "friend", **PHONE)
    second = Person(browser, seeded.url, artifacts, "second", **DESKTOP)
    refused = Person(browser, seeded.url, artifacts, "refused", **PHONE)
    people = [owner, friend, second, refused]
    try:
        owner.open()
        claim = {"username": "周五圈主", "password": "long enough pw"}
        assert _api(seeded, owner, "POST", "/api/me/claim", claim).status_code == 200
        # the owner: 亲友圈 from the lobby, a club, a template of one hand
        owner.page.click("[data-action='clubs']")
        owner.page.wait_for_selector("[data-page='clubs'] [data-testid='my-clubs']")
        owner.page.fill("input[name='club_name']", "周五牌局")
        owner.page.click("[data-action='club-create']")
        owner.page.wait_for_selector("[data-testid='club-template-form']")
        number = owner.page.get_attribute("[data-testid='club-head']", "data-club")
        assert number and owner.page.get_attribute("[data-testid='club-head']", "data-role") == "owner"
        owner.page.fill("input[name='tpl_name']", "一局定胜负")
        owner.page.fill("input[name='tpl_hands']", "1")
        owner.page.click("[data-action='club-template-save']")
        owner.page.wait_for_selector("[data-testid='club-templates'] li[data-template]")
        owner.shot("templates")
        _go(owner, f"#/club/{number}/settings", "[data-testid='club-invite-code']")
        invite = owner.page.inner_text("[data-testid='club-invite-code']").strip()
        assert owner.page.input_value("#club-invite-url").endswith(f"/?club={invite}")
        owner.page.fill("textarea[name='club_notice']", "周五八点，不见不散")
        owner.page.click("[data-action='club-settings-save']")
        owner.page.wait_for_selector("[data-testid='club-notice']")
        owner.shot("settings", full_page=True)
        # three people open the invite link and ask to join
        for p in (friend, second, refused):
            p.page.goto(f"{seeded.url}/?club={invite}")
            p.page.wait_for_selector("body[data-ready] [data-testid='club-invite']")
            p.page.click("[data-action='club-request']")
            p.page.wait_for_selector("[data-testid='club-pending']")
        friend.shot("asked")
        ids = {p.name: p.page.evaluate("() => window.paohuzi.state.player.id") for p in people}
        # the owner lets two in and refuses one (a confirmation first)
        _go(owner, f"#/club/{number}/members", "[data-testid='club-requests'] li[data-player]")
        owner.shot("requests")
        for name in ("friend", "second"):
            owner.page.click(f"[data-action='club-approve'][data-player='{ids[name]}']")
            owner.page.wait_for_selector(f"[data-testid='club-members'] li[data-player='{ids[name]}']")
        owner.page.click(f"[data-action='club-refuse'][data-player='{ids['refused']}']")
        asked = f"[data-testid='club-requests'] li[data-player='{ids['refused']}']"
        owner.page.wait_for_selector(asked, state="detached")
        _go(refused, f"#/club/{number}", "[data-testid='page-error'][data-code='not_found']")
        not_found = "console: Failed to load resource: the server responded with a status of 404 (Not Found)"
        assert refused.errors == [not_found]
        refused.errors.clear()  # that 404 was the answer wanted
        # the members see the club; the owner opens a table, the two sit down; the full table starts
        for p in (friend, second):
            _go(p, f"#/club/{number}", "[data-testid='club-tables']")
            assert "周五八点" in p.page.inner_text("[data-testid='club-notice']")
        _go(owner, f"#/club/{number}", "[data-action='club-open-table']")
        owner.page.click("[data-action='club-open-table']")
        owner.page.wait_for_selector("[data-testid='club-room']")
        owner.shot("waiting-room")
        friend.page.wait_for_selector("[data-testid='club-tables'] li[data-status='waiting'] [data-action='club-sit']")
        friend.shot("tables-live")
        friend.page.click("[data-action='club-sit']")
        friend.page.wait_for_selector("[data-testid='club-room']")
        # 同IP: both browsers connect from 127.0.0.1 — each seat flagged in the waiting room, no address shown
        for p in (owner, friend):
            p.page.wait_for_selector(".seats li[data-seat='1'] .same-ip")
            assert p.page.locator(".seats .same-ip").count() == 2 and "127.0.0.1" not in p.page.inner_text("body")
        friend.shot("waiting-same-ip")
        second.page.wait_for_selector(f"[data-testid='club-tables'] li [data-player='{ids['friend']}']")
        second.page.click("[data-action='club-sit']")
        players = [owner, friend, second]
        for p in players:
            p.page.wait_for_selector(".table .hand .card")
        assert [p.page.evaluate("() => window.paohuzi.state.game.seat") for p in players] == [0, 1, 2]
        for p in players:  # 同IP at the table too (issue 31 §4): the three seats, each flagged by its name
            p.page.wait_for_function("() => document.querySelectorAll('.who .same-ip').length === 3")
            assert p.page.inner_text("[data-testid='table-club']") == "亲友圈牌桌"  # not 快速开始
        friend.shot("table")
        play_scripted(players)
        for p in players:
            outcome = p.page.evaluate("() => window.paohuzi.state.handOver.outcome")
            assert (outcome["kind"], outcome["winner"], outcome["zimo"], outcome["huxi"]) == ("hu", 2, True, 30)
        second.shot("settlement")
        match_id = owner.page.evaluate("() => window.paohuzi.state.game.match")
        summary = _api(seeded, owner, "GET", f"/api/matches/{match_id}").json()["match"]
        scores = [s["score"] for s in summary["seats"]]
        assert scores == [-231, -231, 462], scores
        # a new table of the same template opened by itself; 战绩 shows the match to all three
        for p in players:
            _go(p, f"#/club/{number}", "[data-testid='club-finished'] li[data-match]")
            # the table just played (its three still seated, between matches) and the fresh one, every seat free
            tables = p.page.locator("[data-testid='club-tables'] li[data-code]")
            free = [tables.nth(i).locator(".t-seat.free").count() for i in range(tables.count())]
            assert free == [0, 3], free
            _go(p, f"#/club/{number}/stats", "[data-testid='club-stats']")
            got = {
                int(row.get_attribute("data-player") or 0): int(row.locator("td[data-stat='points']").inner_text())
                for row in p.page.locator("[data-testid='club-stats'] tbody tr").all()
            }
            assert got == {ids["owner"]: scores[0], ids["friend"]: scores[1], ids["second"]: scores[2]}
            assert p.page.locator(f"[data-testid='club-matches'] li[data-match='{match_id}']").count() == 1
        friend.shot("stats-phone", full_page=True)
        owner.shot("stats-owner", full_page=True)
        # removed: the second friend's page says so at once (club_gone), and the club's routes answer 404
        _go(second, f"#/club/{number}", "[data-testid='club-tables']")
        _go(owner, f"#/club/{number}/members", f"[data-action='club-remove'][data-player='{ids['second']}']")
        owner.page.click(f"[data-action='club-remove'][data-player='{ids['second']}']")
        second.page.wait_for_selector("[data-testid='club-gone'][data-reason='removed']", timeout=5_000)
        second.shot("removed")
        assert _api(seeded, second, "GET", f"/api/clubs/{number}").status_code == 404
        assert _api(seeded, second, "GET", f"/api/clubs/{number}/tables").status_code == 404
        # the club's pages in English, on the phone
        friend.page.click(".page-head .lang, .page-head [data-action='lang']")
        _go(friend, f"#/club/{number}/stats?period=today", "[data-testid='club-stats'][data-period='today']")
        assert "Ranking" in friend.page.inner_text("[data-page='club']")
        friend.shot("stats-en", full_page=True)
        _no_errors(*people)
    finally:
        for p in people:
            p.close()
