"""提示 in the browser (issue #16 item 4): the 提示 button shows the server's suggestion, outlines the suggested
card or claim and lists the 听牌 of each discard, in quick play and in a friend room that allows hints; a
friend room whose owner turned hints off has no button. Every wait is on the page's state.

The deal is fixed (``player_deals``, conftest.py): the player deals, so its first decision is a discard that
nothing else can take away. (With a random deal the first decision could be a 吃 that a computer's 碰 closes
while the test asks for its hint.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..support.server import ServerProcess
from .helpers import Person
from .test_browser import _no_errors


def _ask_hint(me: Person) -> str:
    """At a decision of this person: click 提示, and return the suggested action once the panel shows it."""
    me.wait_for_decision()
    me.page.click("[data-action='hint']")
    panel = me.page.locator("[data-testid='hint']")
    panel.wait_for()
    suggest = panel.get_attribute("data-suggest") or ""
    assert suggest and me.page.locator("[data-hinted='true']").count() == 1
    kind = suggest.split(" ")[0]
    if kind == "discard":
        card = suggest.split(" ")[1]
        assert me.page.get_attribute(".hand .card[data-hinted='true']", "data-card") == card
        assert "".join(me.page.locator(".hint-panel .hint-suggest").inner_text().split()).startswith("提示：打出")
    else:
        assert me.page.get_attribute(".actions .act[data-hinted='true']", "data-action") == kind
    for row in me.page.locator(".hint-waits li").all():
        assert int(row.get_attribute("data-waits") or 0) >= 1 and "听牌" in row.inner_text()
    return suggest


def test_quick_play_hint_outlines_the_suggested_move(
    browser: Any, player_deals: ServerProcess, artifacts: Path
) -> None:
    me = Person(browser, player_deals.url, artifacts, "hint-quick", viewport={"width": 1280, "height": 800})
    try:
        me.open()
        me.page.wait_for_selector(".lobby .nick")
        me.page.click("[data-action='quick']")
        me.page.wait_for_selector(".table .hand .card")
        me.play_until_discard()
        suggest = _ask_hint(me)
        assert suggest.startswith("discard ")
        me.shot("hint")
        # the hint belongs to its position: once the card is played it is gone
        me.page.click(".hand .card[data-hinted='true']")
        me.page.click(".hand .card[data-hinted='true']")
        me.page.wait_for_selector("[data-testid='hint']", state="detached")
        _no_errors(me)
    finally:
        me.close()


def _friend_room(me: Person, hints: bool) -> None:
    me.open()
    me.page.wait_for_selector(".lobby .nick")
    me.page.click("[data-action='create']")
    me.page.fill("input[name='hands']", "1")
    if not hints:
        me.page.uncheck("input[name='hints']")
    me.page.click("[data-action='create-submit']")
    me.page.click("[data-action='start']")  # the free seats get computers
    me.page.wait_for_selector(".table .hand .card")


def test_friend_room_hint_shown_when_allowed_absent_when_not(
    browser: Any, player_deals: ServerProcess, artifacts: Path
) -> None:
    on = Person(browser, player_deals.url, artifacts, "hint-room-on", viewport={"width": 1280, "height": 800})
    off = Person(browser, player_deals.url, artifacts, "hint-room-off", viewport={"width": 1280, "height": 800})
    try:
        _friend_room(on, hints=True)
        _ask_hint(on)
        on.shot("hint")
        _friend_room(off, hints=False)
        off.wait_for_decision()
        assert off.page.locator("[data-action='auto']").count() == 1  # the top bar is drawn …
        assert off.page.locator("[data-action='hint']").count() == 0  # … without 提示
        off.shot("no-hint")
        _no_errors(on, off)
    finally:
        on.close()
        off.close()
