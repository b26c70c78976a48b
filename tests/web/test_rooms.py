"""Friend rooms (issue 12): the ready timeout in the waiting room (item 5), and the acceptance check of R8.1
house rules — a room created with 封顶 100 and 自摸翻倍 shows its rules to all three players, and a scripted
win settles capped and doubled exactly.

The scripted win needs a known deal: this module's server runs in testing mode with a fixed match seed
(``PAOHUZI_TESTING=1``, ``PAOHUZI_TEST_MATCH_SEED``, docs/server.md — never in production). Seed 5149 was
picked offline with the engine (``Match(rules, 5149, players=3, hands=1, owner=0)``) for this policy: every
seat takes 胡 when offered, else 碰, else the first 吃, else 过, and otherwise discards the first card of its
``legal``. Then seat 2 wins by 自摸 (its own draw) with 30 胡息 — base 6 (R7.1) — and 对对胡 5番 + 大字胡 6番
= 11番 (R7.2): 6 × 11 = 66, × 2 for 自摸翻倍 = 132, 封顶 100 (R8.1: doubled first, then capped), × 底分 3 =
300 from each loser (R7.3). The outcome does not depend on the order in which seats deciding together
answer (checked offline both ways).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..support.server import ServerProcess, running_web
from .helpers import Person, first_claim
from .test_browser import PHONE, _no_errors

SEED = 5149
READY_SECONDS = 8


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    env = {
        "PAOHUZI_TESTING": "1",
        "PAOHUZI_TEST_MATCH_SEED": str(SEED),
        "PAOHUZI_READY_SECONDS": str(READY_SECONDS),
    }
    with running_web(tmp_path_factory.mktemp("web-seeded"), env) as srv:
        yield srv


def _create(host: Person, **selects: str) -> str:
    host.page.click("[data-action='create']")
    host.page.fill("input[name='hands']", "1")
    for name, value in selects.items():
        host.page.select_option(f"select[name='{name}']", value)
    host.page.click("[data-action='create-submit']")
    return host.page.inner_text("[data-testid='room-code']").strip()


def _join(guest: Person, code: str) -> None:
    guest.page.click("[data-action='join']")
    guest.page.fill("input[name='code']", code)
    guest.page.click("[data-action='join-submit']")
    guest.page.wait_for_selector("[data-testid='room-code']")


def test_an_unready_seat_is_released_after_the_ready_timeout(
    browser: Any, seeded: ServerProcess, artifacts: Path
) -> None:
    """Issue 12 item 5: a player who sits down and does not say ready within PAOHUZI_READY_SECONDS (8 s
    here) sees the seconds count down by its seat, is then sent to the lobby and told why; the owner (who
    has no clock: it starts the match) sees the seat free."""
    host = Person(browser, seeded.url, artifacts, "owner", viewport={"width": 1280, "height": 800})
    slow = Person(browser, seeded.url, artifacts, "slow", **PHONE)
    try:
        host.open()
        slow.open()
        code = _create(host)
        _join(slow, code)
        for p in (host, slow):
            clock = p.page.locator(".seats li[data-seat='1'] [data-testid='ready-clock'] b")
            clock.wait_for()
            assert 0 <= int(clock.inner_text()) <= READY_SECONDS
            assert p.page.locator(".seats li[data-seat='0'] [data-testid='ready-clock']").count() == 0
        slow.shot("ready-clock")
        host.shot("ready-clock")
        notice = slow.page.locator("[data-testid='kicked-notice']")
        notice.wait_for(timeout=(READY_SECONDS + 20) * 1000)
        assert notice.inner_text().startswith(f"你在 {READY_SECONDS} 秒内没有准备，已离开房间 {code}"), (
            notice.inner_text()
        )
        slow.shot("released")
        host.page.wait_for_selector(".seats li[data-seat='1'].free")
        assert host.page.locator("[data-testid='ready-clock']").count() == 0
        host.shot("seat-free")
        _no_errors(host, slow)
    finally:
        host.close()
        slow.close()


# The claim buttons' boxes against every player name and hand card on the table, and the page's width.
LAYOUT = """() => {
    const box = (e) => e.getBoundingClientRect();
    const shown = (r) => r.width > 0 && r.height > 0;
    const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    const buttons = [...document.querySelectorAll('.table .actions button')].map(box).filter(shown);
    const others = [...document.querySelectorAll('.table [data-pname], .table .hand .card')]
        .map((e) => [e.className + ':' + e.textContent, box(e)]).filter(([, r]) => shown(r));
    const overlaps = [];
    for (const b of buttons) for (const [what, r] of others) if (hit(b, r)) overlaps.push(what);
    return {buttons: buttons.length, overlaps, scroll: document.documentElement.scrollWidth, width: innerWidth};
}"""


def _check_claim_layout(p: Person, shots: set[str]) -> None:
    """While the claim buttons show: none covers a name or a hand card, and nothing scrolls sideways (issue
    12: phone 360×740 and desktop 1280×800). A screenshot of each page's first claim."""
    layout = p.page.evaluate(LAYOUT)
    assert not layout["overlaps"], (p.name, layout)
    assert layout["scroll"] <= layout["width"], (p.name, layout)
    if layout["buttons"] and p.name not in shots:
        shots.add(p.name)
        p.shot("claim")


def _scripted_step(p: Person, shots: set[str]) -> bool:
    """If this page's table asks for a decision, make the policy's choice by clicking; True if it did. Before
    a claim, its buttons' layout is checked."""
    legal = p.legal()
    if not legal:
        return False
    action = first_claim(legal)
    if action.split()[0] in ("hu", "peng", "chi", "pass"):
        _check_claim_layout(p, shots)
    return p.act(action)


def test_capped_and_doubled_win_shown_to_all_three(browser: Any, seeded: ServerProcess, artifacts: Path) -> None:
    """Issue 12 acceptance (R8.1, R7.3): three browsers (the second a 360×740 phone); the owner creates a
    room with 封顶 100 and 自摸翻倍; all three see those rules in the waiting room and at the table; the
    scripted hand ends with seat 2's 自摸 and the settlement reads 6底 × 11番 = 66 × 2 自摸翻倍 = 132 →
    封顶 100 = 100分 × 底分3 = 300, each loser −300 and the winner +600 — on every page and in the API.
    Each time claim buttons show, they cover no name and no hand card, and nothing scrolls sideways."""
    desktop = {"viewport": {"width": 1280, "height": 800}}
    people = [Person(browser, seeded.url, artifacts, f"p{i}", **(PHONE if i == 1 else desktop)) for i in range(3)]
    try:
        for p in people:
            p.open()
        host, first, second = people
        code = _create(host, cap="100", zimo="double")
        _join(first, code)
        host.page.wait_for_selector(".seats li[data-seat='1'].taken")
        _join(second, code)
        for p in people:
            p.page.wait_for_function("() => document.querySelectorAll('.seats li.taken').length === 3")
            line = p.page.get_attribute("[data-testid='rules'] summary", "data-rules") or ""
            assert "封顶100" in line and "自摸翻倍" in line and "1局" in line, line
            p.shot("room-rules")
        for p in people:
            p.page.click("[data-action='ready']")
        for p in people:
            p.page.wait_for_selector(".table .hand .card")
            line = p.page.get_attribute(".topbar [data-testid='rules'] summary", "data-rules") or ""
            assert "封顶100" in line and "自摸翻倍" in line, line
        seats = [p.page.evaluate("() => window.paohuzi.state.game.seat") for p in people]
        assert seats == [0, 1, 2]
        deadline = time.monotonic() + 120
        shots: set[str] = set()
        while not all(p.settled() for p in people):
            assert time.monotonic() < deadline, [
                p.page.evaluate("() => document.body.innerText.slice(0, 300)") for p in people
            ]
            acted = False
            for p in people:
                if not p.settled():
                    acted = _scripted_step(p, shots) or acted
            if not acted:
                people[0].page.wait_for_timeout(40)
        for p in people:
            outcome = p.page.evaluate("() => window.paohuzi.state.handOver.outcome")
            assert (outcome["kind"], outcome["winner"], outcome["zimo"], outcome["huxi"]) == ("hu", 2, True, 30)
            assert (outcome["base"], outcome["fan"], outcome["points"]) == (6, 11, 100)
            assert [(n["name"], n["fan"]) for n in outcome["names"] if n["fan"]] == [("对对胡", 5), ("大字胡", 6)]
            line = p.page.locator(".settle-modal .score-line")
            assert line.get_attribute("data-formula") == "6x11=100x3=300"
            formula = " ".join(line.locator(".formula").inner_text().split())
            assert formula == "6底 × 11番 = 66 × 2 自摸翻倍 = 132 → 封顶 100 = 100分 × 底分3 = 300", formula
            deltas = p.page.eval_on_selector_all(
                ".settle-modal .results tbody td:nth-child(2)", "tds => tds.map(td => Number(td.textContent))"
            )
            assert deltas == [-300, -300, 600], deltas
            p.shot("settlement")
        match_id = people[0].page.evaluate("() => window.paohuzi.state.game.match")
        token = people[0].page.evaluate("() => localStorage.getItem('paohuzi.token')")
        summary = httpx.get(
            f"{seeded.url}/api/matches/{match_id}", headers={"Authorization": f"Bearer {token}"}, timeout=10
        ).json()["match"]
        hand = summary["hands"][0]
        assert (hand["winner"], hand["points"], hand["payments"], hand["huxi"]) == (2, 100, [-300, -300, 600], 30)
        assert [s["score"] for s in summary["seats"]] == [-300, -300, 600]
        _no_errors(*people)
    finally:
        for p in people:
            p.close()
