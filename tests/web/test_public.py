"""匹配 in the browser (issue 13 §4, R7.3): the lobby's tiers (a tier you cannot afford is disabled), the
waiting screen with its counting time and cancel, then — computers filling after the fill time — a 初级场
table showing its tier and 倍数 without 提示 or 解散, played to the settlement, where beans move by points ×
5, and the lobby's beans after it. Phone (360×740) and desktop (1280×800), Chinese and English."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..support.server import ServerProcess, running_web
from .helpers import Person, play_by_tuoguan
from .test_browser import CJK_OUTSIDE_CARDS_AND_NAMES, PHONE, _no_errors

DESKTOP = {"viewport": {"width": 1280, "height": 800}}


@pytest.fixture(scope="module")
def slow_fill(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Nobody is seated with computers while the test looks at the waiting screen."""
    with running_web(tmp_path_factory.mktemp("web-public-slow"), {"PAOHUZI_MATCH_FILL_SECONDS": "600"}) as srv:
        yield srv


@pytest.fixture(scope="module")
def fast_fill(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_web(tmp_path_factory.mktemp("web-public-fast"), {"PAOHUZI_MATCH_FILL_SECONDS": "1"}) as srv:
        yield srv


def _tiers(page: Any) -> dict[str, bool]:
    """Each tier button of the lobby: enabled or not."""
    return page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('.tier-btn')].map(b => [b.dataset.tier, !b.disabled]))"
    )


def test_the_tiers_the_waiting_screen_and_cancel_on_a_phone(
    browser: Any, slow_fill: ServerProcess, artifacts: Path
) -> None:
    me = Person(browser, slow_fill.url, artifacts, "phone", **PHONE)
    page = me.page
    try:
        me.open()
        page.wait_for_selector("[data-testid='match'] .tier-btn")
        assert page.text_content("[data-testid='beans']") == "1000"
        # a new player holds 1,000 beans: 中级场 (5,000) and 高级场 (20,000) are out of reach
        assert _tiers(page) == {"practice": True, "novice": True, "junior": True, "middle": False, "senior": False}
        page.evaluate("() => document.querySelector('[data-testid=match]').scrollIntoView()")
        me.shot("lobby-tiers")
        page.click(".tier-btn[data-tier='novice']")
        page.wait_for_selector("[data-testid='queue'][data-tier='novice']")
        assert "新手场" in page.text_content(".queue-tier") and "1倍" in page.text_content(".queue-tier")
        assert page.text_content(".queue-place") == "排第1位，共1人"
        page.wait_for_function("() => Number(document.querySelector('[data-testid=waited]').textContent) >= 1")
        me.shot("waiting")
        _no_errors(me)
        page.click("[data-action='lang']")
        page.wait_for_selector("html[lang='en']")
        assert page.text_content(".queue-place") == "Place 1 of 1"
        assert page.evaluate(CJK_OUTSIDE_CARDS_AND_NAMES) == []
        me.shot("waiting-en")
        page.click("[data-action='queue-cancel']")
        page.wait_for_selector("[data-testid='match'] .tier-btn")
        assert page.evaluate(CJK_OUTSIDE_CARDS_AND_NAMES) == []
        page.evaluate("() => document.querySelector('[data-testid=match]').scrollIntoView()")
        me.shot("lobby-en")
        state = page.evaluate(
            """() => fetch('/api/queue', {headers: {Authorization: 'Bearer ' + localStorage.getItem('paohuzi.token')}})
                .then(r => r.json())"""
        )
        assert state["queue"] is None
        _no_errors(me)
    finally:
        me.close()


def test_junior_table_with_two_computers_to_the_settlement_beans_times_five(
    browser: Any, fast_fill: ServerProcess, artifacts: Path
) -> None:
    me = Person(browser, fast_fill.url, artifacts, "desktop", **DESKTOP)
    page = me.page
    try:
        me.open()
        page.wait_for_selector("[data-testid='match'] .tier-btn")
        me.shot("lobby")
        page.click(".tier-btn[data-tier='junior']")
        # after the fill time (1 s here) two computers take the other seats and the hand starts
        page.wait_for_selector(".table .hand .card", timeout=30_000)
        assert page.text_content("[data-testid='table-tier'][data-tier='junior']") == "初级场 5倍"
        room = page.evaluate("() => window.paohuzi.state.room")
        assert room["kind"] == "public"
        assert [s["bot"] for s in room["seats"]] == [None, "normal", "normal"]
        assert page.locator(".hint-btn").count() == 0  # no 提示 at a public table
        assert page.locator("[data-action='dissolve']").count() == 0  # no 解散 either
        me.shot("table")
        play_by_tuoguan(me)  # the beans after the hand are checked here; test_browser.py clicks through one
        page.wait_for_selector(".settle-modal [data-action='rematch']")
        over = page.evaluate("() => window.paohuzi.state.handOver")
        stake = room["options"]["stake"]
        deltas = over["deltas"]
        # R7.3: each loser pays its points × 5 (积分 lost / stake × 5); the computers pay in full, the player
        # at most its 1,000
        expected = [0, 0, 0]
        held = [1000, 10**9, 10**9]
        for s, pay in enumerate(deltas):
            if pay < 0:
                expected[s] = -min(-pay * 5 // stake, held[s])
        winners = [s for s, pay in enumerate(deltas) if pay > 0]
        if winners:
            expected[winners[0]] = -sum(expected)
        assert over["beans"] == expected
        shown = page.evaluate(
            "() => [...document.querySelectorAll('.results td[data-beans]')].map(td => Number(td.dataset.beans))"
        )
        assert shown == expected
        assert "欢乐豆 ×5" in page.text_content(".results thead")
        me.shot("settlement")
        page.click(".settle-modal [data-action='leave']")
        page.wait_for_selector("[data-testid='match'] .tier-btn")
        page.wait_for_function(
            "(n) => document.querySelector('[data-testid=beans]').textContent === String(n)", arg=1000 + expected[0]
        )
        assert _tiers(page)["junior"] == (1000 + expected[0] >= 1000)
        me.shot("lobby-after")
        _no_errors(me)
    finally:
        me.close()


def test_a_public_table_on_a_phone_then_change_table(browser: Any, fast_fill: ServerProcess, artifacts: Path) -> None:
    """360×740: the tier and 倍数 in the top bar without sideways scrolling; after the hand (played by 托管)
    the settlement offers 继续 / 换桌 / 返回大厅; 换桌 leaves the table and waits in the same tier again:
    a new table (computers after the fill time) with a new hand."""
    me = Person(browser, fast_fill.url, artifacts, "phone", **PHONE)
    page = me.page
    try:
        me.open()
        page.click(".tier-btn[data-tier='novice']")
        page.wait_for_selector(".table .hand .card", timeout=30_000)
        assert page.text_content("[data-testid='table-tier'][data-tier='novice']") == "新手场 1倍"
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
        # shown in full, not cut by the top bar (the rules line gives way on a phone)
        shown = page.evaluate(
            """() => { const t = document.querySelector('[data-testid=table-tier]').getBoundingClientRect();
                       const box = document.querySelector('.top-info').getBoundingClientRect();
                       return t.width > 0 && t.left >= box.left && t.right <= box.right + 0.5; }"""
        )
        assert shown
        first = page.evaluate("() => window.paohuzi.state.room.code")
        me.shot("table")
        page.click("[data-action='auto']")
        page.wait_for_selector(".settle-modal [data-action='change-table']", timeout=120_000)
        buttons = page.evaluate(
            "() => [...document.querySelectorAll('.settle-buttons button')].map(b => b.dataset.action)"
        )
        assert buttons[:3] == ["rematch", "change-table", "leave"]
        me.shot("settlement")
        page.click(".settle-modal [data-action='change-table']")
        page.wait_for_function(
            "(old) => { const s = window.paohuzi.state; return s.room && s.room.code !== old && s.game; }",
            arg=first,
            timeout=30_000,
        )
        page.wait_for_selector(".table .hand .card")
        assert page.text_content("[data-testid='table-tier']") == "新手场 1倍"
        me.shot("new-table")
        _no_errors(me)
    finally:
        me.close()
