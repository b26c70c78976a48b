"""Phone and desktop layout (issue 27 item 4, English fonts from item 5), measured in Chromium on a real server
at 360×740 and 1280×800: the rules list, the top bar, the 总结算 table, the share PNG and English headings.

Each test plays in a friend room with computers (``player_deals``: the player deals, so its first decision is
a discard and 提示 is on the top bar); a match of one hand is played to its 总结算 by 托管. Every wait is on
the page's state (a selector, a function), never on a sleep.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..support.server import ServerProcess
from .helpers import Person
from .test_browser import _no_errors

PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
SIZES = {"phone": PHONE, "desktop": DESKTOP}


def _open(me: Person, *, english: bool = False) -> None:
    """Open the client at its lobby (switched to English when ``english``)."""
    me.open()
    me.page.wait_for_selector(".lobby .nick")
    if english:
        me.page.click("[data-action='lang']")
        me.page.wait_for_selector("html[lang='en']")


def _friend_room(me: Person, *, four: bool = False) -> None:
    """Create a one-hand room — with four seats (守醒, the hunan preset, R8.1) when ``four`` — and wait in it."""
    me.page.click("[data-action='create']")
    me.page.fill("input[name='hands']", "1")
    if four:
        me.page.select_option(".create-sheet select[name='preset']", "hunan")
        me.page.check(".create-sheet input[name='four_players']")
    me.page.click("[data-action='create-submit']")
    me.page.wait_for_selector("[data-action='start']")


def _start(me: Person) -> None:
    me.page.click("[data-action='start']")  # the free seats get computers
    me.page.wait_for_selector(".table .hand .card")


def _inside(page: Any, selector: str) -> list[Any]:
    """The elements of ``selector`` (visible ones) whose box leaves the viewport: [[what, left, top, right,
    bottom, width, height]]."""
    out: list[Any] = page.evaluate(
        """sel => [...document.querySelectorAll(sel)].filter(e => e.getClientRects().length).map(e => {
               const r = e.getBoundingClientRect();
               return [e.outerHTML.slice(0, 80), r.left, r.top, r.right, r.bottom, innerWidth, innerHeight];
           }).filter(([, l, t, r, b, w, h]) => l < -0.5 || t < -0.5 || r > w + 0.5 || b > h + 0.5)""",
        selector,
    )
    return out


# ---- the rules list ------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_rules_list_opened_in_the_waiting_room_is_closed_on_the_table(
    browser: Any, player_deals: ServerProcess, artifacts: Path, size: str
) -> None:
    """The list opened in the waiting room is not carried onto the table (it lay over the 上家's panel on a
    phone, over the hint panel and the 下家's groups on a desktop); opened on the table it is a popover fully
    on screen, closed by a tap elsewhere."""
    me = Person(browser, player_deals.url, artifacts, f"rules-{size}", viewport=SIZES[size])
    try:
        _open(me)
        _friend_room(me)
        me.page.click("[data-testid='rules'] summary")
        me.page.wait_for_selector("[data-testid='rules'][open] .rules-list", state="visible")
        _start(me)
        me.play_until_discard()  # frames have redrawn the table meanwhile
        me.page.wait_for_selector("[data-action='hint']")
        assert me.page.locator("[data-testid='rules'][open]").count() == 0
        assert me.page.locator(".rules-list:visible").count() == 0
        me.shot("table")
        # opened on the table: inside the screen
        me.page.click(".topbar [data-testid='rules'] summary")
        me.page.wait_for_selector(".topbar [data-testid='rules'][open] .rules-list", state="visible")
        listed = me.page.locator(".topbar .rules-list").inner_text()
        assert "QQ" in listed and "15" in listed, listed
        assert _inside(me.page, ".topbar .rules-list, .topbar .rules-list dt, .topbar .rules-list dd") == []
        me.shot("rules-open")
        # … kept across a redraw (a frame), and closed by a tap anywhere else
        me.page.evaluate("() => window.paohuzi.rerender()")
        me.page.wait_for_selector(".topbar [data-testid='rules'][open] .rules-list", state="visible")
        me.page.click(".table .center")
        me.page.wait_for_selector(".topbar [data-testid='rules']:not([open])")
        assert me.page.locator(".rules-list:visible").count() == 0
        _no_errors(me)
    finally:
        me.close()


# ---- the top bar ---------------------------------------------------------------------------------------

# Each button of the top bar: its label's lines (a text node wrapping gives one client rect per line), its
# box, and whether its content is wider than the button.
TOP_BUTTONS = """() => [...document.querySelectorAll('.topbar button')].map(b => {
    const tops = new Set();
    for (const node of b.childNodes) {
        if (node.nodeType !== Node.TEXT_NODE || !node.textContent.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
    }
    const r = b.getBoundingClientRect();
    return {action: b.dataset.action, text: b.textContent, lines: tops.size, left: r.left, right: r.right,
            top: r.top, bottom: r.bottom, width: r.width, height: r.height,
            lineHeight: parseFloat(getComputedStyle(b).lineHeight) || 0,
            clipped: b.scrollWidth > b.clientWidth + 1};
})"""


TOP_BAR = frozenset({"leave-table", "auto", "chat", "dissolve", "sound", "lang"})


def _check_top_bar(me: Person, where: str, need: frozenset[str] = TOP_BAR) -> list[dict[str, Any]]:
    width, height = me.page.evaluate("() => [innerWidth, innerHeight]")
    buttons: list[dict[str, Any]] = me.page.evaluate(TOP_BUTTONS)
    actions = {b["action"] for b in buttons}
    assert need <= actions, (where, actions)
    for b in buttons:
        # one line, never a narrow column of characters, the label not cut
        assert b["lines"] <= 1, (where, b)
        assert b["width"] >= b["height"] * 0.9, (where, b)
        assert not b["clipped"], (where, b)
        # every button — the 中文/EN switch above all — on screen
        assert b["left"] >= 0 and b["right"] <= width and b["top"] >= 0 and b["bottom"] <= height, (where, b)
    assert me.page.evaluate("() => document.documentElement.scrollWidth") <= width, where
    return buttons


def _boxes(me: Person, *selectors: str) -> list[dict[str, float]]:
    """The boxes of the first element of each selector, measured at one moment (in one evaluation: a frame
    redraws the table, and a box read element by element could come from a detached one)."""
    boxes: list[dict[str, float]] = me.page.evaluate(
        """sels => sels.map(s => { const r = document.querySelector(s).getBoundingClientRect();
                                   return {x: r.x, y: r.y, width: r.width, height: r.height}; })""",
        list(selectors),
    )
    return boxes


def _below_the_top_bar(me: Person, selector: str) -> None:
    bar, panel = _boxes(me, ".topbar", selector)
    assert panel["y"] >= bar["y"] + bar["height"] - 1, (selector, bar, panel)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_top_bar_labels_on_one_line_and_the_language_switch_on_screen(
    browser: Any, player_deals: ServerProcess, artifacts: Path, lang: str
) -> None:
    """托管/聊天/解散/提示 wrapped into two-line vertical text on a phone, and in English the 中文 switch went
    off the screen when 提示 appeared: now at 360×740 and 1280×800, with 提示 and with 托管 on (a lit
    toggle), each label is on one line, every button is on screen and the room code stays whole."""
    me = Person(browser, player_deals.url, artifacts, f"topbar-{lang}", viewport=PHONE)
    try:
        _open(me, english=lang == "en")
        if lang == "en":
            _same_family_as_the_body(me, ".brand-text b, .lobby h2, .lobby h3")
        _friend_room(me)
        _start(me)
        me.play_until_discard()
        me.page.wait_for_selector(".topbar [data-action='hint']")
        rules_text = me.page.text_content(".topbar [data-testid='rules'] summary") or ""
        if lang == "en":  # a one-hand room: "1 hand", never "1 hands"
            assert " 1 hand " in f" {rules_text} ".replace("·", " ") and "1 hands" not in rules_text, rules_text
        else:
            assert "1局" in rules_text, rules_text
        for size, viewport in SIZES.items():
            me.page.set_viewport_size(viewport)
            me.page.wait_for_function("w => innerWidth === w", arg=viewport["width"])
            buttons = _check_top_bar(me, f"{lang} {size} with 提示")
            assert "hint" in {b["action"] for b in buttons}
            me.shot(f"{size}-hint")
            # the 提示 and 聊天 panels open under the whole top bar (on a phone it has two rows)
            me.page.click(".topbar [data-action='hint']")
            me.page.wait_for_selector("[data-testid='hint']")
            _below_the_top_bar(me, ".hint-panel")
            me.page.click(".topbar [data-action='chat']")
            me.page.wait_for_selector(".chat-panel")
            _below_the_top_bar(me, ".chat-panel")
            me.page.click(".topbar [data-action='chat'][aria-expanded='true']")
            me.page.wait_for_selector(".chat-panel", state="detached")
            # the rules line keeps room to be read on a phone too (it shrank to "▸ QQ游…")
            (rules,) = _boxes(me, ".topbar [data-testid='rules'] summary")
            assert rules["width"] >= 0.3 * viewport["width"], rules
        # 托管 on (a lit toggle; its label once grew to 取消托管 / Stop auto-play), on a phone
        me.page.set_viewport_size(PHONE)
        me.page.wait_for_function("() => innerWidth === 360")
        me.page.click(".topbar [data-action='auto']")
        me.page.wait_for_selector(".topbar [data-action='auto'][aria-pressed='true']")
        # 托管 may play the one-hand match to its end by now (computers 0.03 s a move): 解散 is then gone
        _check_top_bar(me, f"{lang} phone with 托管 on", TOP_BAR - {"dissolve"})
        # the room code stays whole beside the four buttons (friends read it off the screen to join; the hand
        # number after it may be cut at 360 px in English when 提示 shows too)
        info, code = me.page.evaluate(
            """() => ['.topbar .top-info', '.topbar .top-code'].map(s => {
                       const r = document.querySelector(s).getBoundingClientRect(); return [r.left, r.right]; })"""
        )
        assert info[0] - 0.5 <= code[0] and code[1] <= info[1] + 0.5, (lang, info, code)
        me.shot("phone-auto")
        _no_errors(me)
    finally:
        me.close()


# ---- 总结算, the share PNG, English headings ---------------------------------------------------------------

# Record what the page draws on a canvas (the browser's own API, wrapped before the client loads): each
# fillText's text and the font it was drawn with.
RECORD_CANVAS = """(() => {
    const fill = CanvasRenderingContext2D.prototype.fillText;
    window.__drawn = [];
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
        window.__drawn.push({text: String(text), font: this.font});
        return fill.call(this, text, ...rest);
    };
})();"""

# For a drawn text, the family of its font that draws each character: the first family of the font's list
# that has it. A family has a character when the character measures the same with that family in front of
# two different generic fallbacks (monospace, serif); without it, the fallbacks draw it, at other widths.
FONTS_OF_CHARS = """([font, text]) => {
    const m = font.match(/^(.*?\\d+(?:\\.\\d+)?px)\\s+(.*)$/);
    const size = m[1], families = m[2].split(',').map(f => f.trim());
    const c = document.createElement('canvas').getContext('2d');
    const width = (f, ch) => { c.font = `${size} ${f}`; return c.measureText(ch).width; };
    const has = (family, ch) => ['sans-serif', 'serif', 'monospace', 'system-ui'].includes(family)
        || width(`${family}, monospace`, ch) === width(`${family}, serif`, ch);
    return [...text].map(ch => families.find(f => has(f, ch)) || 'none');
}"""


def _summary_layout(me: Person, where: str) -> None:
    """Every cell of the 总结算 inside the viewport from left to right (the sheet scrolls up and down only),
    and nothing in it or its sheet scrolls sideways."""
    out = me.page.evaluate(
        """() => {
            const cells = [...document.querySelectorAll(
                ".settle-modal [data-testid='summary'] :is(th, td, button, .pname)")];
            return {
                count: cells.length,
                outside: cells.map(e => [e.textContent.slice(0, 30), e.getBoundingClientRect()])
                    .filter(([, r]) => r.left < -0.5 || r.right > innerWidth + 0.5)
                    .map(([t, r]) => [t, r.left, r.right]),
                scrolls: [...document.querySelectorAll('.settle-modal .sheet, .settle-modal .sheet *')]
                    .filter(e => e.scrollWidth > e.clientWidth + 1
                                 && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
                    .map(e => e.className),
                table: (() => { const t = document.querySelector('.settle-modal .summary-table');
                                return [t.scrollWidth, t.parentElement.clientWidth]; })(),
            };
        }"""
    )
    assert out["count"] > 0
    assert out["outside"] == [], (where, out)
    assert out["scrolls"] == [], (where, out)
    assert out["table"][0] <= out["table"][1], (where, out)


@pytest.mark.parametrize(("players", "lang"), [(3, "zh"), (4, "en")])
def test_summary_fits_the_screen_and_the_share_png(
    browser: Any, player_deals: ServerProcess, artifacts: Path, players: int, lang: str
) -> None:
    """The 总结算 of a one-hand match (played by 托管) fits 360×740 and 1280×800 with 3 and with 4 players
    (the seats' columns were behind a sideways scroll on a phone, the third cut at 1280×800); the share PNG
    draws each score's sign and digits from one font (the card font has digits and no minus sign) and marks
    自摸 on the winner's line as the page does (R6.3); in English the headings are in the page's sans-serif.

    The fixed deal (``player_deals``) is won by 自摸 with 托管 at the wheel in both rooms: the test asserts it,
    so that the mark is really looked for."""
    me = Person(browser, player_deals.url, artifacts, f"summary-{players}-{lang}", viewport=DESKTOP)
    me.page.add_init_script(RECORD_CANVAS)
    try:
        _open(me, english=lang == "en")
        _friend_room(me, four=players == 4)
        _start(me)
        me.page.click(".topbar [data-action='auto']")
        summary = me.page.locator(".settle-modal [data-testid='summary']")
        summary.wait_for(timeout=120_000)
        for size, viewport in SIZES.items():
            me.page.set_viewport_size(viewport)
            me.page.wait_for_function("w => innerWidth === w", arg=viewport["width"])
            summary.scroll_into_view_if_needed()
            _summary_layout(me, f"{players} players, {size}")
            me.shot(f"summary-{size}")
        assert summary.locator("th.sum-seat").count() == players
        # the share PNG
        me.page.evaluate("() => document.fonts.ready.then(() => true)")
        me.page.click("[data-testid='summary'] [data-action='share']")
        png = me.page.evaluate("() => window.paohuzi.lastShare")
        assert png.startswith("data:image/png;base64,") and len(png) > 5000
        drawn: list[dict[str, str]] = me.page.evaluate("() => window.__drawn")
        scores = [d for d in drawn if d["text"].lstrip("+-").isdigit()]
        totals = me.page.evaluate("() => window.paohuzi.state.summary.seats.map(s => s.score)")
        assert sorted(int(d["text"]) for d in scores) == sorted(totals), (scores, totals)
        assert any(d["text"].startswith("-") for d in scores), scores  # a loser's minus sign is drawn
        for d in scores:
            fonts = me.page.evaluate(FONTS_OF_CHARS, [d["font"], d["text"]])
            assert len(set(fonts)) == 1 and "none" not in fonts, (d, fonts)
        hands = me.page.evaluate("() => window.paohuzi.state.summary.hands")
        assert [h["kind"] for h in hands] == ["hu"]
        assert [h["zimo"] for h in hands] == [True], hands  # the fixed deal's win (see the docstring)
        for hand in hands:  # the page marks 自摸 on the hand's line
            marks = summary.locator(f"tr[data-hand-line='{hand['id']}'] [data-zimo]").count()
            assert marks == (1 if hand["zimo"] else 0), hand
        zimo_word = "自摸" if lang == "zh" else "Self-drawn"
        for hand in hands:
            line = next(d["text"] for d in drawn if d["text"].startswith("第1局" if lang == "zh" else "Hand 1 "))
            assert (zimo_word in line) == bool(hand["zimo"]), line
        if lang == "en":
            _english_headings(me)
        _no_errors(me)
    finally:
        me.close()


def _same_family_as_the_body(me: Person, selector: str) -> None:
    body = me.page.evaluate("() => getComputedStyle(document.body).fontFamily")
    families = me.page.eval_on_selector_all(selector, "els => els.map(e => getComputedStyle(e).fontFamily)")
    assert families and all(f == body for f in families), (selector, body, families)


def _english_headings(me: Person) -> None:
    """English headings in the page's sans-serif family (they were in the card font, whose missing Latin
    letters fell back to a serif): the same computed family as the body, and no serif face rendering them."""
    _same_family_as_the_body(me, ".settle-modal :is(h1, h2, h3, .settle-title)")
    cdp = me.context.new_cdp_session(me.page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    for selector in (".settle-modal .settle-title", ".settle-modal .summary h3"):
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        used = [f["familyName"] for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]]
        assert used and not [f for f in used if "serif" in f.lower() and "sans" not in f.lower()], (selector, used)
    cdp.detach()
