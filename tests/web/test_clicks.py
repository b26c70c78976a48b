"""A click, or what was typed, is never lost to a redraw (issue 12). Every frame redraws the page, and a click
whose press and release land on two different elements (the pressed button was replaced meanwhile) used to do
nothing — what made the first click on 快速开始 after opening the page (while the lobby's data arrived)
sometimes silently fail. The press is now finished by the button that replaced the pressed one
(``keepClicksAcrossRedraws`` in ``web/js/dom.js``), once. Likewise a redraw used to empty every field but the
focused one (a username typed before the password): what was typed is put back (``restoreFields``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..support.server import ServerProcess
from .helpers import Person


def _press_button_across_a_redraw(page: Any, selector: str) -> None:
    """Press the button, redraw the whole page while the mouse button is down, let go."""
    page.wait_for_selector(selector)
    # the element and where it is, in one go (a frame may redraw the page between two look-ups)
    x, y = page.evaluate(
        """sel => { const el = document.querySelector(sel); window.__pressed = el;
                    const r = el.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }""",
        selector,
    )
    page.mouse.move(x, y)
    page.mouse.down()
    page.evaluate("() => window.paohuzi.rerender()")
    assert page.evaluate("() => !window.__pressed.isConnected")  # the pressed element is gone
    page.mouse.up()


def test_a_button_click_split_by_a_redraw_counts_once(browser: Any, server: ServerProcess, artifacts: Path) -> None:
    me = Person(browser, server.url, artifacts, "split", viewport={"width": 1024, "height": 768})
    quick: list[str] = []
    me.page.on("request", lambda r: quick.append(r.method) if r.url.endswith("/api/rooms/quick") else None)
    page = me.page
    try:
        me.open()
        # 创建房间 pressed across a redraw: the dialog opens.
        _press_button_across_a_redraw(page, "[data-action='create']")
        page.wait_for_selector("[data-action='create-submit']")
        page.click(".create-sheet button[type='button']")  # 取消
        page.wait_for_selector("[data-action='create-submit']", state="detached")
        # 快速开始 pressed across a redraw: one quick-play request, and the table.
        _press_button_across_a_redraw(page, "[data-action='quick']")
        page.wait_for_selector(".table .hand .card")
        assert quick == ["POST"]
        me.shot("after")
        assert not me.errors, me.errors
    finally:
        me.close()


def test_what_was_typed_survives_a_redraw(browser: Any, server: ServerProcess, artifacts: Path) -> None:
    """A frame redraws the page while a person fills a form: what it typed into a field it has left (the
    replay code; the new nickname) is still there, and so is the field it is typing in (with the focus)."""
    me = Person(browser, server.url, artifacts, "typed", viewport={"width": 1024, "height": 768})
    page = me.page
    try:
        me.open()
        page.fill("input[name='replay-code']", "ABCD2345")
        page.click(".lobby [data-action='rename']")  # the rename box opens (and stays open across redraws)
        page.fill("input[name='nickname']", "新名字")
        page.evaluate("() => window.paohuzi.rerender()")
        assert page.input_value("input[name='replay-code']") == "ABCD2345"
        assert page.evaluate("() => document.activeElement.name") == "nickname"
        page.evaluate("() => document.activeElement.blur()")
        page.evaluate("() => window.paohuzi.rerender()")
        assert page.input_value("input[name='nickname']") == "新名字"
        assert page.input_value("input[name='replay-code']") == "ABCD2345"
        assert not me.errors, me.errors
    finally:
        me.close()
