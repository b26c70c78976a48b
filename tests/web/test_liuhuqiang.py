"""衡阳六胡抢 in four browsers (R9.3; issue 30 part 2 acceptance): the owner (desktop 1280×800, Chinese) creates
a room of the family in the dialog — which shows its options: who plays, 起胡, 囤, 底, 醒, 一五十, 明偎 … —,
three friends join by code (a phone 360×740 in English, a phone in Chinese, a desktop in English), and all four
play the scripted hand by clicking to a win that settles exactly among four. Late in the hand, with the
opponents' groups and discards out, each table is measured: three opponents' panels side by side on a phone
(no overlap, nothing past the screen's edge, no sideways scroll) and beside the centre on a desktop with
cards of at least 32 px; the room chose 明偎, so a 偎 lies face up on the other seats' screens (R5, R9.3).

The deal is fixed: this module's server runs in testing mode with match seed :data:`SEED`
(``PAOHUZI_TESTING=1``, ``PAOHUZI_TEST_MATCH_SEED``, docs/server.md — never in production), picked offline with
the engine (``Match(rules, SEED, players=4, hands=1, owner=0)`` under the room's rules below) for the policy
every seat follows (``first_claim``: 胡 when offered, else 碰, else the first 吃, else 过, otherwise the first
legal action); the outcome was checked offline with the deciding seats answering in either order.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..support.server import ServerProcess, running_web
from .helpers import Person, first_claim
from .test_browser import PHONE, _no_errors

SEED = 79
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
# Seat 1 deals (R2, drawn). Seat 3 makes a 偎 of 小九 (x9) with 10 cards left in the stock and 自摸s 小八 at 1
# left: 21 胡息 (提 大九 12, 偎 小九 3, 句 壹贰叁 6) with one red card. 三息一囤, 底 1: 囤 1 + ⌊(21 − 6)/3⌋ = 6;
# 随醒: the 醒 card is the card won, 小八, two of them in the 将: 2 醒; 一点红 × 3; 自摸 × 2:
# (6 + 2) × 3 × 2 = 48, paid by each of the three others (R9.3 payment as R9.2; 底分 1).
OUTCOME = {"winner": 3, "zimo": True, "huxi": 21, "tun": 6, "xing": 2, "fan": 3, "points": 48, "xing_card": "x8"}
DELTAS = [-48, -48, -48, 144]
FORMULA = {
    "zh": "(6囤 + 2醒) × 一点红3番 × 自摸2 = 48分 × 底分1",
    "en": "(6 tun + 2 xing) × One red 3 fan × self-drawn 2 = 48 points × stake 1",
}
# The family's options the owner's dialog shows (R9.3: only the family's, each with a choice).
CONTROLS = [
    *("players", "min_huxi", "tun", "di", "zimo", "cap", "first_dealer", "xing"),
    *("must_hu", "hongheidian", "yiwushi", "mingwei"),
]
MEASURE_AT = 9  # stock cards left: the 偎 is out, the groups and discards of the later hand


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    env = {"PAOHUZI_TESTING": "1", "PAOHUZI_TEST_MATCH_SEED": str(SEED)}
    with running_web(tmp_path_factory.mktemp("web-liuhuqiang"), env) as server:
        yield server


def _create(host: Person) -> list[str]:
    """The owner's dialog: 衡阳六胡抢, 1 hand, 随醒 and 明偎; answers the rule options the family box showed."""
    page = host.page
    page.click("[data-action='create']")
    page.select_option(".create-sheet select[name='preset']", "liuhuqiang")
    page.wait_for_selector(".create-sheet[data-family='liuhuqiang']")
    controls = page.eval_on_selector_all(
        "[data-testid='family-options'] select, [data-testid='family-options'] input", "els => els.map(e => e.name)"
    )
    assert page.input_value(".create-sheet select[name='players']") == "4"
    page.fill(".create-sheet input[name='hands']", "1")
    page.select_option(".create-sheet select[name='xing']", "sui")
    page.check(".create-sheet input[name='mingwei']")
    host.shot("create")
    page.click("[data-action='create-submit']")
    page.wait_for_selector("[data-testid='room-code']")
    return list(controls)


def _join(p: Person, code: str) -> None:
    p.page.click("[data-action='join']")
    p.page.fill("input[name='code']", code)
    p.page.click("[data-action='join-submit']")
    p.page.wait_for_selector("[data-testid='room-code']")


# Each page's table, measured in one go: the opponents' panels and what lies in them, the centre, my area.
MEASURE = """() => {
    const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
    const panels = [...document.querySelectorAll('.table .opponents .panel')];
    return {
        width: innerWidth,
        scroll: document.documentElement.scrollWidth,
        panels: panels.map(p => ({
            seat: Number(p.dataset.seat), place: p.dataset.place, box: box(p),
            cards: [...p.querySelectorAll('.groups .card, .row .card')].map(box),
            widths: [...p.querySelectorAll('.groups .card, .row .card')].map(c => c.getBoundingClientRect().width),
            groups: p.querySelectorAll('.groups .grp').length,
            discards: p.querySelectorAll('.row .card').length,
            wei: [...p.querySelectorAll('.grp-wei .card')]
                .map(c => [c.dataset.card || null, c.classList.contains('back')]),
        })),
        others: [...document.querySelectorAll(
            '.table .center .shown, .table .center .stock, .table .mine, .table > .hand')].map(box),
    };
}"""


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def _check_layout(p: Person, me: int, phone: bool) -> dict[str, Any]:
    """The three opponents' panels (R9.3: all play) side by side, apart, on screen, their cards inside them;
    readable cards (≥ 32 px on a desktop); nothing scrolls sideways."""
    m: dict[str, Any] = p.page.evaluate(MEASURE)
    panels = m["panels"]
    assert m["scroll"] <= m["width"], (p.name, m["scroll"])
    assert sorted(x["seat"] for x in panels) == sorted({0, 1, 2, 3} - {me}), panels
    assert [x["place"] for x in panels] == ["left", "across", "right"], panels
    for i, a in enumerate(panels):
        assert a["box"][0] >= -0.5 and a["box"][2] <= m["width"] + 0.5, (p.name, a["seat"], a["box"])
        for b in panels[i + 1 :]:
            assert not _overlap(a["box"], b["box"]), (p.name, a["seat"], b["seat"])
        for other in m["others"]:
            assert not _overlap(a["box"], other), (p.name, a["seat"], other)
        for card in a["cards"]:  # each card inside its panel: nothing spills over a neighbour
            assert a["box"][0] - 0.5 <= card[0] and card[2] <= a["box"][2] + 0.5, (p.name, a["seat"], card)
            assert a["box"][1] - 0.5 <= card[1] and card[3] <= a["box"][3] + 0.5, (p.name, a["seat"], card)
        assert a["widths"] and min(a["widths"]) >= (17 if phone else 32), (p.name, a["seat"], a["widths"])
    return m


def _play(people: list[Person], measured: dict[str, dict[str, Any]], timeout: float = 180.0) -> None:
    """Everyone follows the policy by clicking until each sees the settlement; each table is measured once
    the stock is down to :data:`MEASURE_AT` (every seat waits for the clicks, so each page shows it)."""
    deadline = time.monotonic() + timeout
    while not all(p.settled() for p in people):
        assert time.monotonic() < deadline, [
            p.page.evaluate("() => document.body.innerText.slice(0, 300)") for p in people
        ]
        for seat, p in enumerate(people):
            if p.name in measured or p.settled():
                continue
            stock = p.page.evaluate("() => window.paohuzi.state.game ? window.paohuzi.state.game.view.stock : 99")
            if stock <= MEASURE_AT:
                measured[p.name] = _check_layout(p, seat, "phone" in p.name)
                p.shot("table-late")
        acted = False
        for p in people:
            if not p.settled():
                legal = p.legal()
                if legal:
                    acted = p.act(first_claim(legal)) or acted
        if not acted:
            people[0].page.wait_for_timeout(40)


def test_r9_3_four_browsers_play_a_liuhuqiang_room_to_an_exact_settlement(
    browser: Any, seeded: ServerProcess, artifacts: Path
) -> None:
    host = Person(browser, seeded.url, artifacts, "s0-zh-desktop", **DESKTOP)
    en_phone = Person(browser, seeded.url, artifacts, "s1-en-phone", **PHONE)
    zh_phone = Person(browser, seeded.url, artifacts, "s2-zh-phone", **PHONE)
    en_desk = Person(browser, seeded.url, artifacts, "s3-en-desktop", **DESKTOP)
    people = [host, en_phone, zh_phone, en_desk]
    langs = ["zh", "en", "zh", "en"]
    try:
        for p, lang in zip(people, langs, strict=True):
            p.open()
            if lang == "en":
                p.page.click("[data-action='lang']")
                p.page.wait_for_selector("html[lang='en']")
        # quick play of this preset is against three computers
        en_phone.page.select_option(".quick-opts select[name='preset']", "liuhuqiang")
        assert en_phone.page.inner_text("[data-testid='quick-sub']") == "You and three computer players"
        assert _create(host) == CONTROLS
        code = host.page.inner_text("[data-testid='room-code']").strip()
        for p in people[1:]:
            _join(p, code)
        for p, words in ((host, "明偎"), (en_phone, "Open wei")):
            p.page.wait_for_function("() => document.querySelectorAll('.seats li.taken').length === 4")
            line = p.page.get_attribute("[data-testid='rules'] summary", "data-rules") or ""
            assert words in line, (p.name, line)
        en_phone.shot("room")
        for p in people:
            p.page.click("[data-action='ready']")
        for p in people:
            p.page.wait_for_selector(".table .hand .card")
        assert [p.page.evaluate("() => window.paohuzi.state.game.seat") for p in people] == [0, 1, 2, 3]
        for p in people:  # R9.3: the dealer 15 cards, the others 14; all four play, nobody sits out
            assert p.page.locator(".table .opponents .panel").count() == 3
            assert p.page.locator(".badge.out").count() == 0
        measured: dict[str, dict[str, Any]] = {}
        _play(people, measured)
        assert sorted(measured) == sorted(p.name for p in people)
        # 明偎: seat 3's 偎 of 小九 lies face up on the three other screens
        for p in people[:3]:
            panel = next(x for x in measured[p.name]["panels"] if x["seat"] == 3)
            assert panel["wei"] == [["x9", False]] * 3, (p.name, panel["wei"])
        for p, lang in zip(people, langs, strict=True):
            outcome = p.page.evaluate("() => window.paohuzi.state.handOver.outcome")
            assert outcome["kind"] == "hu" and {k: outcome[k] for k in OUTCOME} == OUTCOME, outcome
            formula = " ".join(p.page.locator(".settle-modal .score-line.family .formula").inner_text().split())
            assert formula == FORMULA[lang], (p.name, formula)
            deltas = p.page.eval_on_selector_all(
                ".settle-modal .results tbody td:nth-child(2)", "tds => tds.map(td => Number(td.textContent))"
            )
            assert deltas == DELTAS, (p.name, deltas)
            assert p.page.locator(".settle-modal .results tbody tr").count() == 4
            p.shot("settlement")
        # 总结算 with four columns, and its share PNG
        summary = zh_phone.page.locator(".settle-modal [data-testid='summary']")
        summary.locator("th.sum-seat").nth(3).wait_for()  # drawn when match_over comes, after the hand's settlement
        assert summary.locator("th.sum-seat").count() == 4
        zh_phone.page.click("[data-testid='summary'] [data-action='share']")
        png = zh_phone.page.evaluate("() => window.paohuzi.lastShare")
        assert png.startswith("data:image/png;base64,") and len(png) > 5000
        # the replay: four seats, three opponents' panels, seat 3's 偎 face up (the record's rules: 明偎)
        host.page.click(".settle-modal [data-action='replay']")
        host.page.wait_for_selector(".replay-screen .table")
        host.page.click("[data-action='last']")
        assert host.page.locator(".replay-screen .opponents .panel").count() == 3
        wei = host.page.eval_on_selector_all(
            ".replay-screen .panel[data-seat='3'] .grp-wei .card",
            "cs => cs.map(c => [c.dataset.card || null, c.classList.contains('back')])",
        )
        assert wei == [["x9", False]] * 3, wei
        host.shot("replay-end")
        _no_errors(*people)
    finally:
        for p in people:
            p.close()
