"""Difficulty levels in the browser (issue #16 item 3): quick play lets the player choose the opponents' level
(入门 普通 高手 大师), and the bot seats show it by their names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from paohuzi.bots import levels

from ..support.server import ServerProcess
from .helpers import Person
from .test_browser import _no_errors


def test_quick_play_opponents_show_the_chosen_level(browser: Any, server: ServerProcess, artifacts: Path) -> None:
    me = Person(browser, server.url, artifacts, "levels", viewport={"width": 1280, "height": 800})
    try:
        me.open()
        me.page.wait_for_selector(".lobby .nick")
        options = me.page.eval_on_selector_all("select[name='bot_level'] option", "os => os.map(o => o.textContent)")
        assert options == ["入门", "普通", "高手", "大师"]
        assert me.page.input_value("select[name='bot_level']") == "normal"
        # each level's description, from the server's list (paohuzi.bots.levels), is the option's tooltip
        titles = me.page.eval_on_selector_all("select[name='bot_level'] option", "os => os.map(o => o.title)")
        assert titles == [lv.blurb_zh for lv in levels.LEVELS]
        assert me.page.get_attribute("select[name='bot_level']", "title") == levels.level("normal").blurb_zh
        me.page.select_option("select[name='bot_level']", "expert")
        assert me.page.get_attribute("select[name='bot_level']", "title") == "先推演几十局，再出牌"
        me.page.click("[data-action='quick']")
        me.page.wait_for_selector(".table .hand .card")
        for seat in (2, 3):
            me.page.locator(f".table .who [data-pname]:text-is('电脑{seat}·高手')").wait_for()
        # the server names them as the table does (issue 27: /api/matches said "expert bot")
        match_id = me.page.evaluate("window.paohuzi.state.room.match.id")
        seats = httpx.get(f"{server.url}/api/matches/{match_id}", timeout=10).json()["match"]["seats"]
        assert [s["nickname"] for s in seats[1:]] == ["电脑2·高手", "电脑3·高手"]
        me.shot("expert-opponents")
        _no_errors(me)
    finally:
        me.close()
