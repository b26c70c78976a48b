"""双倍积分卡 in the browser (R7.3, issue 13 §3): the lobby shows the cards held and a "use" button; the
day's first hand gives a card; using it shows the time left; the next hand shows "×2" on the player's seat
and "积分 ×2" in the settlement, where the player's own 积分 gain (if it wins) is doubled. Chinese and
English (no Chinese in English mode but card faces and names), 1280x800 and 360x740."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..support.server import ServerProcess
from .helpers import Person
from .test_browser import CJK_OUTSIDE_CARDS_AND_NAMES, PHONE, _no_errors
from .test_economy import _api, _play_hand

DESKTOP = {"viewport": {"width": 1280, "height": 800}}


def _held(page: Any) -> int:
    return int(page.get_attribute("[data-testid=double-card]", "data-held"))


def _quick_hand(person: Person) -> dict[str, Any]:
    made = _api(person.page, "POST", "/api/rooms/quick", {"tier": "practice", "hands": 1, "bot_level": "beginner"})
    assert made["status"] == 201, made
    return _play_hand(person)


def _to_lobby(page: Any) -> None:
    page.click(".settle-modal [data-action='quit'], .settle-modal [data-action='leave']")
    page.wait_for_selector(".lobby .nick")


def test_r7_3_double_card_held_used_shown_on_the_seat_and_in_the_settlement(
    server: ServerProcess, browser: Any, artifacts: Path
) -> None:
    desk = Person(browser, server.url, artifacts, "desk", **DESKTOP)
    phone = Person(browser, server.url, artifacts, "phone", **PHONE)
    try:
        desk.open()
        page = desk.page
        page.wait_for_selector("[data-testid=double-card][data-held='0'][data-active=no]")
        assert page.is_disabled("[data-action=activate-double-card]")
        # the day's first settled hand gives a card (and one per level first reached, R7.4)
        _quick_hand(desk)
        _to_lobby(page)
        page.wait_for_selector("[data-testid=double-card]:not([data-held='0'])")
        held = _held(page)
        assert held >= 1
        page.click("[data-action=activate-double-card]")
        box = page.wait_for_selector("[data-testid=double-card][data-active=yes]")
        assert _held(page) == held - 1 and page.is_disabled("[data-action=activate-double-card]")
        left = page.get_attribute("[data-testid=double-card-left]", "data-seconds")
        assert 3500 < int(left) <= 3600  # one hour of wall-clock time, counting down
        assert page.text_content("[data-testid=double-card-left]").startswith("生效中，还剩 ")
        assert box is not None
        desk.shot("lobby-card-active")

        # a hand that starts while the card is active: "×2" on my seat (only mine), "积分 ×2" in the settlement
        made = _api(page, "POST", "/api/rooms/quick", {"tier": "practice", "hands": 1, "bot_level": "beginner"})
        assert made["status"] == 201, made
        page.wait_for_selector(".table .who [data-testid=seat-double]")
        me = made["data"]["room"]["match"]["double_cards"]
        assert me == [0]
        assert page.locator(".who[data-seat='0'] [data-testid=seat-double]").count() == 1
        assert page.locator("[data-testid=seat-double]").count() == 1
        desk.shot("table-card-on-seat")
        shown = _play_hand(desk)
        assert shown["doubled"] == [0]
        marks = page.locator(".results [data-testid=settle-double]")
        assert marks.count() == 1 and marks.first.text_content() == "积分 ×2"
        assert page.locator(".results tr[data-seat='0'] [data-testid=settle-double]").count() == 1
        if shown["winner"] == shown["me"]:  # R7.3: the holder's own gain doubled, nobody pays more
            pts = shown["points"]
            assert pts[shown["me"]] == -2 * sum(p for s, p in enumerate(pts) if s != shown["me"])
        desk.shot("settlement-card")
        # the cards this hand granted (its ledger rows): one for each level (R7.4) its win first lifted the
        # player to — the deal decides — and none for the day (the first hand had it, unless UTC midnight
        # passed between them)
        ledger = _api(page, "GET", "/api/me/ledger?limit=50")["data"]["entries"]
        held += -1 + sum(e["amount"] for e in ledger if e["currency"] == "cards" and e["hand_id"] == shown["hand"])
        _to_lobby(page)
        page.wait_for_selector(f"[data-testid=double-card][data-active=yes][data-held='{held}']")
        page.click("[data-action='lang']")
        page.wait_for_selector("html[lang='en']")
        assert page.text_content("[data-testid=double-card-left]").startswith("active, ")
        # a toast shown in Chinese before the switch (the card's 已生效, when the hand was short) stays until it
        # goes by itself (2.6 s): the scan is of the page in English
        page.wait_for_selector("#toasts .toast", state="detached")
        assert not page.evaluate(CJK_OUTSIDE_CARDS_AND_NAMES)
        desk.shot("lobby-card-en")

        # the same account on a phone (it takes the session over from the desktop), in English: the card is
        # still active, so the next hand has it too
        token = page.evaluate("() => localStorage.getItem('paohuzi.token')")
        phone.open()
        mobile = phone.page
        mobile.evaluate("t => localStorage.setItem('paohuzi.token', t)", token)
        phone.open()
        mobile.wait_for_selector("[data-testid=double-card][data-active=yes]")
        assert mobile.text_content("[data-testid=double-card-held]") == str(held)
        mobile.click("[data-action='lang']")
        mobile.wait_for_selector("html[lang='en']")
        phone.shot("lobby-card-active-en")
        made = _api(mobile, "POST", "/api/rooms/quick", {"tier": "practice", "hands": 1, "bot_level": "beginner"})
        assert made["status"] == 201 and made["data"]["room"]["match"]["double_cards"] == [0], made
        mobile.wait_for_selector(".table .who[data-seat='0'] [data-testid=seat-double]")
        phone.shot("table-card-on-seat-en")
        shown = _play_hand(phone)
        assert shown["doubled"] == [0]
        assert mobile.text_content(".results tr[data-seat='0'] [data-testid=settle-double]") == "Points ×2"
        assert not mobile.evaluate(CJK_OUTSIDE_CARDS_AND_NAMES)
        phone.shot("settlement-card-en")
        _no_errors(desk, phone)
    finally:
        desk.close()
        phone.close()
