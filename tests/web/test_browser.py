"""Browser tests of the web client (issue #6) against the real server, in Debian's headless Chromium.

Each test saves screenshots under ``test-artifacts/web/<test>/`` and fails on any console error.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import Server
from .helpers import Friend, Person, play_to_settlement

# No reruns (issue 12): every wait is on the page's state, and the client takes each tap once.

PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


def _no_errors(*people: Person) -> None:
    errors = {p.name: p.errors for p in people if p.errors}
    assert not errors, f"console errors: {errors}"


def _table_state(page: Any) -> dict[str, Any]:
    """What a person sees of the table: hand, stock, every group and discard row, whose turn."""
    return page.evaluate(
        """() => ({
            hand: [...document.querySelectorAll('.hand .card')].map(c => c.dataset.card),
            stock: document.querySelector('.stock-n')?.dataset.stock,
            groups: [...document.querySelectorAll('.groups')].map(g =>
                g.dataset.seat + ':' + [...g.querySelectorAll('.grp')].map(x => x.dataset.kind).join(',')),
            rows: [...document.querySelectorAll('.row')].map(r =>
                [...r.querySelectorAll('.card')].map(c => c.dataset.card).join(' ')),
            counts: [...document.querySelectorAll('.count')].map(c => c.dataset.count),
            huxi: document.querySelector('.huxi')?.dataset.huxi,
            myTurn: !!document.querySelector('.hand.my-turn'),
        })"""
    )


def test_quick_play_a_whole_hand_to_the_settlement(browser: Any, server: Server, artifacts: Path) -> None:
    """(1) Quick play against the computer, by clicking only, through a hand to the settlement screen."""
    me = Person(browser, server.url, artifacts, "desktop", viewport={"width": 1280, "height": 800})
    try:
        me.open()
        me.page.wait_for_selector(".lobby .nick")
        me.shot("lobby")
        me.page.click("[data-action='quick']")
        me.page.wait_for_selector(".table .hand .card")
        me.shot("table-start")
        play_to_settlement([me])
        me.shot("settlement")
        text = me.page.inner_text(".settle-modal")
        assert any(word in text for word in ("胡了", "荒庄")), text
        # Each seat's result for the hand and in total is shown.
        assert me.page.locator(".settle-modal .results tbody tr").count() == 3
        # The replay viewer steps through the hand just played (this browser's record of it).
        me.page.click(".settle-modal [data-action='replay']")
        me.page.wait_for_selector(".replay-screen .table")
        steps = int(me.page.get_attribute("input[type='range']", "max") or 0) + 1
        assert steps > 5
        for _ in range(4):
            me.page.click("[data-action='next']")
        assert me.page.get_attribute(".step-no", "data-step") == "4"
        me.page.click("[data-action='prev']")
        assert me.page.get_attribute(".step-no", "data-step") == "3"
        me.shot("replay")
        me.page.click("[data-action='last']")
        me.shot("replay-end")
        me.page.click(".replay-head button")
        me.page.click(".settle-modal [data-action='next']")
        me.page.wait_for_selector(".settle-modal", state="detached")
        me.page.wait_for_function("() => document.querySelector('.top-hand')?.textContent.includes('2/2')")
        me.shot("next-hand")
        # English switch
        me.page.click("[data-action='lang']")
        me.page.wait_for_selector("html[lang='en']")
        me.shot("english")
        _no_errors(me)
    finally:
        me.close()


def test_three_people_play_a_private_room_by_code(browser: Any, server: Server, artifacts: Path) -> None:
    """(2) Three browser contexts: one creates a private room, two join by its code; one hand to the end."""
    people = [Person(browser, server.url, artifacts, f"p{i}", viewport={"width": 900, "height": 760}) for i in range(3)]
    try:
        host, *guests = people
        for p in people:
            p.open()
            p.page.wait_for_selector(".lobby .nick")
        host.page.click("[data-action='create']")
        host.page.fill("input[name='hands']", "1")
        host.shot("create-dialog")
        host.page.click("[data-action='create-submit']")
        code = host.page.inner_text("[data-testid='room-code']").strip()
        assert len(code) == 6 and code.isdigit(), code
        for g in guests:
            g.page.click("[data-action='join']")
            g.page.fill("input[name='code']", code)
            g.page.click("[data-action='join-submit']")
            g.page.wait_for_selector("[data-testid='room-code']")
        host.page.wait_for_function("() => document.querySelectorAll('.seats li.taken').length === 3")
        host.shot("room-full")
        for p in people:
            p.page.click("[data-action='ready']")
        for p in people:
            p.page.wait_for_selector(".table .hand .card")
        play_to_settlement(people, timeout=120)
        for p in people:
            p.shot("settlement")
        hands = {p.page.get_attribute(".table", "data-hand") for p in people}
        assert len(hands) == 1, hands
        results = [p.page.inner_text(".settle-modal .results") for p in people]
        assert results[0].count("\n") >= 3
        for p in people:  # a one-hand match ends: everyone is offered another
            p.page.wait_for_selector(".settle-modal [data-action='rematch']")
        _no_errors(*people)
    finally:
        for p in people:
            p.close()


def test_reload_mid_hand_restores_the_same_table(browser: Any, artifacts: Path, tmp_path: Path) -> None:
    """(3) A reload in the middle of a hand shows the same table again (the server's snapshot).

    The two other players are people too (scripted websocket clients), and computers wait 5 s before they
    play, so that the 托管 that covers a dropped connection (docs/protocol.md §3.4) cannot play the seat
    during the reload.
    """
    server = Server(tmp_path, {"PAOHUZI_BOT_DELAY": "5"}).start()
    me = Person(browser, server.url, artifacts, "reload", viewport={"width": 1024, "height": 768})
    friends = [Friend(server.url), Friend(server.url)]
    try:
        me.open()
        me.page.click("[data-action='create']")
        me.page.fill("input[name='hands']", "1")
        me.page.click("[data-action='create-submit']")
        code = me.page.inner_text("[data-testid='room-code']").strip()
        for f in friends:
            f.join(code)
        me.page.wait_for_function("() => document.querySelectorAll('.seats li.ready').length === 2")
        me.page.click("[data-action='ready']")
        me.page.wait_for_selector(".table .hand .card")
        # Play until my second discard decision, then stop there: nothing moves while I think.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if me.discards >= 2 and me.page.locator(".hand.my-turn .card.playable").count():
                break
            assert not me.settled(), "the hand ended before the reload"
            if me.step() is None:
                me.wait_for_decision()
        me.page.wait_for_selector(".hand.my-turn .card.playable")
        before = _table_state(me.page)
        me.shot("before-reload")
        me.page.reload()
        me.page.wait_for_selector(".hand.my-turn .card.playable")
        me.page.wait_for_selector(".conn-online")
        after = _table_state(me.page)
        me.shot("after-reload")
        assert after == before
        assert me.page.locator("[data-action='auto'][aria-pressed='false']").count() == 1  # no 托管 left on
        _no_errors(me)
    finally:
        me.close()
        for f in friends:
            f.close()
        server.stop()


def test_phone_layout_shows_all_21_cards_without_scrolling(browser: Any, server: Server, artifacts: Path) -> None:
    """(4) On a 360×740 phone the dealer's 21 cards all show, with no horizontal scrolling."""
    me = Person(browser, server.url, artifacts, "phone", **PHONE)
    try:
        me.open()
        me.page.wait_for_selector(".lobby .nick")
        me.shot("lobby")
        for _attempt in range(40):
            me.page.click("[data-action='quick']")
            me.page.wait_for_selector(".table .hand .card")
            if me.page.get_attribute(".hand", "data-count") == "21":
                break
            me.page.click("[data-action='leave-table']")  # the confirm() is accepted
            me.page.wait_for_selector(".lobby [data-action='quick']")
        assert me.page.get_attribute(".hand", "data-count") == "21"
        me.shot("dealer-21")
        layout = me.page.evaluate(
            """() => ({
                scrollWidth: document.documentElement.scrollWidth,
                bodyScroll: document.body.scrollWidth,
                width: window.innerWidth,
                height: window.innerHeight,
                boxes: [...document.querySelectorAll('.topbar, .panel, .center, .mine, .hand')].map(e => {
                    const r = e.getBoundingClientRect();
                    return [e.className, r.left, r.right];
                }),
                cards: [...document.querySelectorAll('.hand .card')].map(c => {
                    const r = c.getBoundingClientRect();
                    return [r.left, r.right, r.top, r.bottom];
                }),
            })"""
        )
        assert layout["width"] == 360
        assert layout["scrollWidth"] <= 360 and layout["bodyScroll"] <= 360, layout
        for name, left, right in layout["boxes"]:
            assert left >= 0 and right <= 360, (name, left, right)
        assert len(layout["cards"]) == 21
        for left, right, top, bottom in layout["cards"]:
            assert 0 <= left and right <= 360 and 0 <= top and bottom <= 740, layout["cards"]
        # Each card is big enough to read and to touch.
        assert min(right - left for left, right, _t, _b in layout["cards"]) >= 26
        # Play the hand on, with taps, until a claim or a few discards, for the screenshots.
        for _ in range(300):
            if me.discards >= 3 or me.settled():
                break
            if me.page.locator(".actions").count():
                me.shot("phone-claim")
            if me.step() is None:
                me.wait_for_decision()
        me.shot("phone-later")
        _no_errors(me)
    finally:
        me.close()


def _press_across_a_redraw(page: Any, key: str) -> None:
    """Press the hand card at `key`, redraw the whole table while the button is down, let go: one tap whose
    pointerdown and pointerup land on two different elements (what a frame arriving mid-tap does)."""
    card = page.locator(f".hand.my-turn .card.playable[data-key='{key}']")
    card.evaluate("el => { el.dataset.before = '1'; }")
    box = card.bounding_box()
    assert box
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.evaluate("() => window.paohuzi.rerender()")
    assert page.locator(".hand [data-before]").count() == 0  # the pressed element is gone
    page.mouse.up()


def test_a_lifted_card_stays_lifted_across_frames(browser: Any, server: Server, artifacts: Path) -> None:
    """(5) Tap a card, a frame redraws the table, tap it again: the discard goes out. Taps split by a redraw
    count too. The lifted card is dropped when it is no longer the player's discard (here: 托管 plays it)."""
    me = Person(browser, server.url, artifacts, "lifted", viewport={"width": 1024, "height": 768})
    sent: list[dict[str, Any]] = []
    me.page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(json.loads(payload))))
    page = me.page
    try:
        me.open()
        page.click("[data-action='quick']")
        page.wait_for_selector(".table .hand .card")
        me.play_until_discard()
        card = page.locator(".hand.my-turn .card.playable").last
        key, kind = card.get_attribute("data-key"), card.get_attribute("data-card")
        assert key and kind
        selected = page.locator(f".hand.my-turn .card.selected[data-key='{key}'][data-card='{kind}']")

        # First tap, split by a redraw: the card is lifted.
        _press_across_a_redraw(page, key)
        selected.wait_for()
        # A real frame (a full snapshot the client asks for) redraws the table: the card stays lifted.
        page.evaluate("() => { window.__game = window.paohuzi.state.game; window.paohuzi.send({type: 'sync'}); }")
        page.wait_for_function("() => window.paohuzi.state.game !== window.__game")
        assert page.locator(".hand [data-before]").count() == 0
        assert selected.count() == 1 and page.locator(".hand .card.selected").count() == 1
        me.shot("lifted-after-frame")
        assert not [f for f in sent if f.get("type") == "act" and f["action"].startswith("discard")]

        # Second tap, again split by a redraw: the discard goes out, and nothing is lifted any more.
        _press_across_a_redraw(page, key)
        page.wait_for_function("() => window.paohuzi.state.selected === null")
        discards = [f["action"] for f in sent if f.get("type") == "act" and f["action"].startswith("discard")]
        assert discards == [f"discard {kind}"], sent
        page.wait_for_selector(".hand.my-turn", state="detached")
        me.discards += 1
        me.shot("discarded")

        # The next discard: lift a card, then 托管 plays the turn. The lifted card goes with the decision.
        me.play_until_discard()
        page.locator(".hand.my-turn .card.playable").first.click()
        page.locator(".hand.my-turn .card.selected").wait_for()
        page.click("[data-action='auto']")
        page.wait_for_selector(".hand.my-turn", state="detached")
        # 托管 would play on (the settlement may soon cover the table): switch it off as its button would.
        page.evaluate("() => window.paohuzi.send({type: 'auto', on: false})")
        assert page.evaluate("() => window.paohuzi.state.selected") is None
        assert page.locator(".hand .card.selected").count() == 0
        me.shot("after-auto")
        _no_errors(me)
    finally:
        me.close()
