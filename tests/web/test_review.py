"""复盘 in the browser (issue 34): a hand is played to its end over the websocket (the player takes the first
legal action every time — a poor player, on the fixed deal of ``player_deals``); an outsider opens it by its
replay code on a phone-sized page, picks that seat's view, presses 复盘 and sees the hand's figure and one chip
per mistake; a chip jumps to the step, where the better move is shown. The page's numbers are the API's
(the same review, kept once computed). Waits on the page's state, never on sleeps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..support.clients import Client, play_seat
from ..support.server import ServerProcess
from .helpers import Person

# Text with a CJK character in the review's panel and note, except card faces and players' names (`data-pname`).
CJK_IN_REVIEW = r"""() => {
    const out = [];
    for (const root of document.querySelectorAll('.review-panel, .review-note')) {
        const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let n = walk.nextNode(); n; n = walk.nextNode()) {
            if (n.parentElement.closest('.card, [data-pname]')) continue;
            if (/[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/.test(n.textContent)) out.push(n.textContent.trim());
        }
    }
    return out;
}"""


def test_a_replay_code_holder_reviews_a_seat_and_sees_the_marks(
    browser: Any, player_deals: ServerProcess, artifacts: Path
) -> None:
    me = Client(player_deals)
    me.api("POST", "/api/rooms/quick", {"hands": 1}, expect=201)
    me.connect()
    game = me.expect("game")
    seat, hand_id = game["seat"], game["hand"]
    play_seat(me)
    code = me.api("GET", f"/api/replays/{hand_id}?steps=false")["hand"]["code"]
    outsider = Person(browser, player_deals.url, artifacts, "outsider", viewport={"width": 360, "height": 740})
    try:
        outsider.open(f"/#/r/{code}")
        outsider.page.wait_for_selector(".replay-screen .table")
        outsider.page.click(f".view-pick [data-view='{seat}']")
        outsider.page.click("[data-action='review']")
        outsider.page.wait_for_selector("[data-testid='review-figure']", timeout=60_000)
        review = me.api("GET", f"/api/replays/{hand_id}/review")  # the same review, kept: no second computation
        assert review["cached"] is True and review["seat"] == seat
        data = review["review"]
        marked = [d for d in data["decisions"] if d["marked"]]
        # The first legal action is often a poor one. It flaked twice (0 marks, in `-n 4` runs at 2026-12-06 05:20
        # and 07:40 UTC; never alone): the review is the same for the same record (in a fresh process, after other
        # reviews, pure or compiled), so the hand had differed. The likely cause: `play_seat` answered a view
        # overtaken meanwhile (a claim window closed by a computer's 碰, the next opened on another card) and
        # the server played that stale 过/碰 on the new card; an `act` now names its view (`seq`, stale_view).
        # The message carries the whole replay if it comes back.
        if not data["marked"] == len(marked) >= 1:  # in full (an assert's message is cut short)
            record = me.api("GET", f"/api/replays/{hand_id}")
            pytest.fail(f"no mark: review {json.dumps(data)}\nreplay {json.dumps(record, ensure_ascii=False)}")
        figure = outsider.page.inner_text("[data-testid='review-figure']")
        assert f"准确率 {round(data['accuracy'] * 1000) / 10:g}%" in figure
        assert f"失误 {data['marked']}/{data['judged']}" in figure
        chips = outsider.page.locator(".review-chip")
        assert chips.count() == len(marked)
        assert [chips.nth(k).get_attribute("data-decision") for k in range(chips.count())] == [
            str(d["index"]) for d in marked
        ]
        outsider.shot("review-figure")
        first = marked[0]
        chips.nth(0).click()
        note = outsider.page.wait_for_selector(f"[data-testid='review-mark'][data-index='{first['index']}']")
        assert note is not None and "更好的一步" in note.inner_text()
        assert outsider.page.get_attribute(".step-no", "data-step") == str(first["index"] + 1)
        outsider.shot("review-mark")
        # no part of the panel is wider than the phone
        width = outsider.page.evaluate("() => document.querySelector('.review-panel').scrollWidth")
        assert width <= 360, width
        # English: the same review in English words; no Chinese outside the cards and the players' names
        outsider.page.click("[data-action='lang']")
        outsider.page.wait_for_selector("html[lang='en']")
        figure = outsider.page.inner_text("[data-testid='review-figure']")
        assert f"accuracy {round(data['accuracy'] * 1000) / 10:g}%" in figure, figure
        assert "Better:" in outsider.page.inner_text("[data-testid='review-mark']")
        chinese = outsider.page.evaluate(CJK_IN_REVIEW)
        assert not chinese, chinese
        outsider.shot("review-english")
        assert not outsider.errors, outsider.errors
    finally:
        outsider.close()
        me.close()
