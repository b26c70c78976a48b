"""The regional families at a friend room (R9.1, R9.2, R9.4; issue 29 acceptance): for each new preset the owner
(desktop 1280×800, Chinese) creates the room in the dialog — which shows only that family's options —, a friend
(phone 360×740, English) joins by code, a third player plays over the websocket; the scripted hand ends in a
win that settles exactly: the outcome's 囤, 醒, 醒 card, 名堂 and points, the family's formula in both
languages, the 醒 card shown, each seat's points.

The deal is fixed: this module's server runs in testing mode with match seed :data:`SEED` (``PAOHUZI_TESTING=1``,
``PAOHUZI_TEST_MATCH_SEED``, docs/server.md — never in production), picked offline with the engine
(``Match(rules, SEED, players=3, hands=1, owner=0)`` for each preset with the room's options below) for the
policy every seat follows (``first_claim``: 胡 when offered, else 碰, else the first 吃, else 过, otherwise the
first legal action); each outcome was checked offline with the seats deciding together answering in either
order. One hand per family, the room set up by clicks, the third seat over the websocket: the test stays short.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paohuzi.rules import find_preset

from ..support.server import ServerProcess, running_web
from .helpers import Friend, Person, first_claim, play_scripted
from .test_browser import PHONE, _no_errors

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
MATCH = "qq,changde,shihuka"  # the presets with public tables on these servers (匹配 per preset)

# Per preset: the seed of its server, what the owner chooses in the dialog, the rule options the dialog's
# family box shows (R9: only the family's, each with a choice), and the settlement of the scripted hand.
CASES: dict[str, dict[str, Any]] = {
    # R9.1 Table D: seat 1 自摸s 24 胡息 with one red card: 囤 ⌊(24 − 12)/3⌋ = 4, 自摸 + 1 = 5; 点胡 3番 → 15;
    # 底分 2: each loser pays 30.
    "changde": {
        "seed": 9,
        "stake": 2,
        "choices": {},
        "checks": {},
        "controls": ["min_huxi", "zimo", "cap", "first_dealer", "must_hu", "four_players", "duiduihu"],
        "outcome": {"winner": 1, "zimo": True, "huxi": 24, "tun": 4, "xing": 0, "base": 5, "fan": 3, "points": 15},
        "names": [("点胡", 3)],
        "xing_card": None,
        "deltas": [-30, 60, -30],
        "zh": "(4囤 + 自摸1) × 点胡3番 = 15分 × 底分2",
        "en": "(4 tun + self-drawn 1) × One-red win 3 fan = 15 points × stake 2",
        "line": ("常德红黑点", "Changde red-black"),
    },
    # R9.1 Table E, the same deal: 点胡 6番 → 30; 耍猴 and 黄番 on (neither applies: no drawn hand before).
    "changde_qmt": {
        "seed": 9,
        "stake": 1,
        "choices": {},
        "checks": {"shuahou": True, "huangfan": True},
        "controls": [
            *("min_huxi", "zimo", "cap", "first_dealer", "must_hu", "four_players"),
            *("shuahou", "hanghangxi", "tuanyuan", "huangfan"),
        ],
        "outcome": {"winner": 1, "zimo": True, "huxi": 24, "tun": 4, "xing": 0, "base": 5, "fan": 6, "points": 30},
        "names": [("点胡", 6)],
        "xing_card": None,
        "deltas": [-30, 60, -30],
        "zh": "(4囤 + 自摸1) × 点胡6番 = 30分 × 底分1",
        "en": "(4 tun + self-drawn 1) × One-red win 6 fan = 30 points × stake 1",
        "line": ("耍猴 · 黄番", "Monkey (single wait) · Drawn-hands bonus"),
    },
    # R9.2 + R9.4 随醒: seat 0 自摸s 柒 completing a 跑 of 柒 with 10 胡息 — 卡胡, 3 囤; the 醒 card is the card
    # won, 柒, four of them in the 跑: 4 醒; 平胡 1番; × 2 for 自摸: (3 + 4) × 1 × 2 = 14 from each loser.
    "shihuka": {
        "seed": 124,
        "stake": 1,
        "choices": {"xing": "sui"},
        "checks": {},
        "controls": ["zimo", "cap", "first_dealer", "xing", "base_bonus", "must_hu", "hongheidian", "tiandi_haidi"],
        "outcome": {"winner": 0, "zimo": True, "huxi": 10, "tun": 3, "xing": 4, "base": 7, "fan": 1, "points": 14},
        "names": [("平胡", 1)],
        "xing_card": "d7",
        "deltas": [28, -14, -14],
        "zh": "卡胡 (3囤 + 4醒) × 平胡1番 × 自摸2 = 14分 × 底分1",
        "en": "Ka Hu (3 tun + 4 xing) × Plain win 1 fan × self-drawn 2 = 14 points × stake 1",
        "line": ("随醒", "Xing on the card won"),
    },
}


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[int, ServerProcess]]:
    """One testing-mode server per seed of :data:`CASES`."""
    with contextlib.ExitStack() as stack:
        out = {}
        for seed in sorted({case["seed"] for case in CASES.values()}):
            env = {"PAOHUZI_TESTING": "1", "PAOHUZI_TEST_MATCH_SEED": str(seed), "PAOHUZI_MATCH_PRESETS": MATCH}
            out[seed] = stack.enter_context(running_web(tmp_path_factory.mktemp(f"web-families-{seed}"), env))
        yield out


def _create(host: Person, preset: str, case: dict[str, Any]) -> list[str]:
    """The owner's dialog: the preset (the dialog redraws with its family's options), 1 hand, the stake, the
    family's choices; answers the rule options the family box showed."""
    page = host.page
    page.click("[data-action='create']")
    page.select_option(".create-sheet select[name='preset']", preset)
    page.wait_for_selector(f".create-sheet[data-family='{find_preset(preset).family}']")
    controls = page.eval_on_selector_all(
        "[data-testid='family-options'] select, [data-testid='family-options'] input", "els => els.map(e => e.name)"
    )
    page.fill(".create-sheet input[name='hands']", "1")
    page.fill(".create-sheet input[name='stake']", str(case["stake"]))
    for name, value in case["choices"].items():
        page.select_option(f".create-sheet select[name='{name}']", value)
    for name, on in case["checks"].items():
        page.set_checked(f".create-sheet input[name='{name}']", on)
    host.shot(f"create-{preset}")
    page.click("[data-action='create-submit']")
    page.wait_for_selector("[data-testid='room-code']")
    return list(controls)



@pytest.mark.parametrize("preset", list(CASES))
def test_r9_a_friend_room_of_each_family_settles_its_scripted_win_exactly(
    browser: Any, servers: dict[int, ServerProcess], artifacts: Path, preset: str
) -> None:
    case = CASES[preset]
    server = servers[case["seed"]]
    host = Person(browser, server.url, artifacts, f"{preset}-zh-desktop", **DESKTOP)
    guest = Person(browser, server.url, artifacts, f"{preset}-en-phone", **PHONE)
    third = Friend(server.url, choose=first_claim)
    people = [host, guest]
    try:
        host.open()
        guest.open()
        guest.page.click("[data-action='lang']")  # the friend reads English
        # 匹配 offers the server's presets (PAOHUZI_MATCH_PRESETS), each in the reader's language
        for p, names in (
            (host, ["QQ游戏", "常德红黑点", "衡阳十胡卡"]),
            (guest, ["QQ Games", "Changde red-black", "Hengyang Ten-Hu Ka"]),
        ):
            picker = p.page.locator("select[name='match_preset'] option")
            assert picker.all_inner_texts() == names, p.name
            # the longer preset names (常德全名堂, "Changde all patterns") widen no select past the screen
            boxes = p.page.eval_on_selector_all(
                ".quick-opts select, .match select",
                "els => els.map(e => [e.getBoundingClientRect().left, "
                "e.getBoundingClientRect().right, innerWidth, document.documentElement.scrollWidth])",
            )
            assert all(0 <= left and right <= width and scroll <= width for left, right, width, scroll in boxes), boxes
        guest.shot("lobby")
        assert _create(host, preset, case) == case["controls"]
        # the phone's dialog in English: the family's box (its longer words) stays inside the sheet
        guest.page.click("[data-action='create']")
        guest.page.select_option(".create-sheet select[name='preset']", preset)
        guest.page.wait_for_selector(f".create-sheet[data-family='{find_preset(preset).family}']")
        widths = guest.page.evaluate(
            "() => [...document.querySelectorAll('.sheet, .family-opts')].map(e => [e.scrollWidth, e.clientWidth])"
        )
        assert all(scroll <= client for scroll, client in widths), widths
        guest.shot(f"create-{preset}")
        guest.page.click(".create-sheet button[type='button']")  # 取消
        code = host.page.inner_text("[data-testid='room-code']").strip()
        guest.page.click("[data-action='join']")
        guest.page.fill("input[name='code']", code)
        guest.page.click("[data-action='join-submit']")
        guest.page.wait_for_selector("[data-testid='room-code']")
        host.page.wait_for_selector(".seats li[data-seat='1'].taken")
        third.join(code)
        for p, words in zip(people, case["line"], strict=True):
            p.page.wait_for_function("() => document.querySelectorAll('.seats li.taken').length === 3")
            line = p.page.get_attribute("[data-testid='rules'] summary", "data-rules") or ""
            assert words in line, (p.name, line)
        guest.shot("room")
        for p in people:
            p.page.click("[data-action='ready']")
        for p in people:
            p.page.wait_for_selector(".table .hand .card")
        assert [p.page.evaluate("() => window.paohuzi.state.game.seat") for p in people] == [0, 1]
        play_scripted(people)
        for p, lang in ((host, "zh"), (guest, "en")):
            outcome = p.page.evaluate("() => window.paohuzi.state.handOver.outcome")
            assert outcome["kind"] == "hu"
            assert {k: outcome[k] for k in case["outcome"]} == case["outcome"], outcome
            assert outcome.get("xing_card") == case["xing_card"]
            assert [(n["name"], n["fan"]) for n in outcome["names"] if n["fan"]] == case["names"]
            formula = " ".join(p.page.locator(".settle-modal .score-line.family .formula").inner_text().split())
            assert formula == case[lang], (lang, formula)
            deltas = p.page.eval_on_selector_all(
                ".settle-modal .results tbody td:nth-child(2)", "tds => tds.map(td => Number(td.textContent))"
            )
            assert deltas == case["deltas"], deltas
            xing = p.page.locator(".settle-modal [data-testid='xing-card']")
            if case["xing_card"] is None:
                assert xing.count() == 0
            else:
                assert (xing.get_attribute("data-card"), xing.get_attribute("data-xing")) == (
                    case["xing_card"],
                    str(case["outcome"]["xing"]),
                )
                assert xing.inner_text().split()[0] == ("随醒" if lang == "zh" else "Xing")
            p.shot("settlement")
        _no_errors(*people)
    finally:
        third.close()
        for p in people:
            p.close()
