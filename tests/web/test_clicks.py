"""A click is never lost to a redraw (issue 12): every frame redraws the page, and a click whose press and
release land on two different elements (the pressed button was replaced meanwhile) used to do nothing — what
made the first click on 快速开始 after opening the page (while the lobby's data arrived) sometimes silently
fail. The press is now finished by the button that replaced the pressed one (``keepClicksAcrossRedraws`` in
``web/js/dom.js``), once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import Server
from .helpers import Person


def _press_button_across_a_redraw(page: Any, selector: str) -> None:
    """Press the button, redraw the whole page while the mouse button is down, let go."""
    button = page.locator(selector)
    button.evaluate("el => { window.__pressed = el; }")
    box = button.bounding_box()
    assert box
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.evaluate("() => window.paohuzi.rerender()")
    assert page.evaluate("() => !window.__pressed.isConnected")  # the pressed element is gone
    page.mouse.up()


def test_a_button_click_split_by_a_redraw_counts_once(browser: Any, server: Server, artifacts: Path) -> None:
    me = Person(browser, server.url, artifacts, "split", viewport={"width": 1024, "height": 768})
    sent: list[dict[str, Any]] = []
    me.page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(json.loads(payload))))
    quick: list[str] = []
    me.page.on("request", lambda r: quick.append(r.method) if r.url.endswith("/api/rooms/quick") else None)
    page = me.page
    try:
        me.open()
        _press_button_across_a_redraw(page, "[data-action='quick']")
        page.wait_for_selector(".table .hand .card")
        assert quick == ["POST"]  # one quick-play request: the click counted once
        # At the table: the 托管 switch pressed across a redraw sends one `auto` frame.
        _press_button_across_a_redraw(page, "[data-action='auto'][aria-pressed='false']")
        page.wait_for_selector("[data-action='auto'][aria-pressed='true']")
        assert [f["on"] for f in sent if f.get("type") == "auto"] == [True]
        page.evaluate("() => window.paohuzi.send({type: 'auto', on: false})")
        me.shot("after")
        assert not me.errors, me.errors
    finally:
        me.close()
