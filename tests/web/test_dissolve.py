"""解散房间 in the browser (R8.2; issue 12 item 2, issue 27 item 1): the proposal is a bar above the hand that
never covers the hand or the claim buttons, and the hand goes on while it is open. Waits on the page's
state, never on sleeps.

The friend-room test needs a known deal: its server runs in testing mode with match seed 1
(``PAOHUZI_TESTING=1``, ``PAOHUZI_TEST_MATCH_SEED``, docs/server.md — never in production). Checked
offline with the engine (``Match(find_preset("qq"), 1, players=3, owner=0)``): the owner (seat 0) deals
and its first decision is a discard; when it discards the first card of its ``legal`` (x2), the guest
(seat 1, next in turn) may 吃 it (``chi x2 d2``) and the computer (seat 2) has no claim.

``PAOHUZI_DISSOLVE_SHOTS=<folder>`` (opt-in) saves the bar as proposer and voter at 360×740 and 1280×800,
in Chinese and English, for a person to look at.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..support.server import ServerProcess, running_web, web_server
from .helpers import Person
from .test_browser import PHONE

DESKTOP = {"width": 1280, "height": 800}
SMALL = {"width": 360, "height": 740}

# The bar's box against every hand card, the hand itself and each claim button; where it is; sideways scroll.
LAYOUT = """() => {
    const box = (e) => e.getBoundingClientRect();
    const shown = (r) => r.width > 0 && r.height > 0;
    const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    const bar = document.querySelector("[data-testid='dissolve-panel']");
    if (!bar) return null;
    const b = box(bar);
    const others = [...document.querySelectorAll('.table .hand, .table .hand .card, .table .actions button')]
        .map((e) => [e.tagName + '.' + e.className + ':' + (e.dataset.card || e.dataset.action || ''), box(e)])
        .filter(([, r]) => shown(r));
    const overlaps = others.filter(([, r]) => hit(b, r)).map(([what]) => what);
    const buttons = document.querySelectorAll('.table .actions button').length;
    const cards = document.querySelectorAll('.table .hand .card').length;
    return {overlaps, buttons, cards, top: b.top, bottom: b.bottom, height: b.height, width: innerWidth,
            inner: innerHeight, scroll: document.documentElement.scrollWidth};
}"""


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # A proposal that cannot lapse during a test, however loaded the machine; 60 s between hands.
    env = {
        "PAOHUZI_TESTING": "1",
        "PAOHUZI_TEST_MATCH_SEED": "1",
        "PAOHUZI_DISSOLVE_SECONDS": "600",
        "PAOHUZI_BETWEEN_HANDS": "60",
    }
    with running_web(tmp_path_factory.mktemp("web-dissolve"), env) as srv:
        yield srv


def _layout(p: Person) -> dict[str, Any]:
    """The bar clear of the hand and the claim buttons, inside the screen, nothing scrolling sideways."""
    layout: dict[str, Any] | None = p.page.evaluate(LAYOUT)
    assert layout is not None, p.name
    assert not layout["overlaps"], (p.name, layout)
    assert layout["cards"] > 0, (p.name, layout)
    assert 0 <= layout["top"] and layout["bottom"] <= layout["inner"], (p.name, layout)
    assert layout["scroll"] <= layout["width"], (p.name, layout)
    return layout


def _shoot(p: Person, label: str) -> None:
    """A screenshot in the test's artifacts, and in ``PAOHUZI_DISSOLVE_SHOTS`` when asked for."""
    p.shot(label)
    folder = os.environ.get("PAOHUZI_DISSOLVE_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        p.page.screenshot(path=str(Path(folder) / f"dissolve-{label}.png"), animations="disabled")


def _no_tuoguan(p: Person) -> None:
    auto = p.page.evaluate("() => window.paohuzi.state.room.seats.map((s) => !!s.auto)")
    assert auto == [False, False, False], (p.name, auto)
    assert p.page.locator("[data-action='auto'][aria-pressed='true']").count() == 0


def _friend_table(host: Person, guest: Person) -> None:
    """The owner creates a room, the guest joins, the owner seats a computer, both say ready: the deal."""
    for p in (host, guest):
        p.open()
    host.page.click("[data-action='create']")
    host.page.click("[data-action='create-submit']")
    code = host.page.inner_text("[data-testid='room-code']").strip()
    guest.page.click("[data-action='join']")
    guest.page.fill("input[name='code']", code)
    guest.page.click("[data-action='join-submit']")
    guest.page.wait_for_selector("[data-testid='room-code']")
    host.page.wait_for_selector(".seats li[data-seat='1'].taken")
    host.page.click(".seats li[data-seat='2'] [data-action='add-bot']")
    host.page.wait_for_selector(".seats li[data-seat='2'].taken")
    for p in (host, guest):
        p.page.click("[data-action='ready']")
    for p in (host, guest):
        p.page.wait_for_selector(".table .hand .card")


def test_r8_2_the_bar_never_blocks_the_hand_withdraw_then_agreed_mid_hand(
    browser: Any, seeded: ServerProcess, artifacts: Path
) -> None:
    """A friend room of two people and a computer. The owner proposes while it must discard; both see the
    bar above the hand — clear of every hand card and claim button at 1280×800 and at 360×740, as proposer
    (who agreed, the countdown, 撤回) and as voter (同意/拒绝). Meanwhile the owner discards by tapping, and
    the guest answers the 吃 with its button and discards too. The owner withdraws: the bar goes on both
    pages. The guest proposes, the owner agrees: its bar closes, and both see the room dissolved with the hand
    in play void. Nobody was put on 托管 all along."""
    host = Person(browser, seeded.url, artifacts, "owner", viewport=DESKTOP)
    guest = Person(browser, seeded.url, artifacts, "guest", **PHONE)
    people = (host, guest)
    try:
        _friend_table(host, guest)
        assert host.legal()[0] == "discard x2", host.legal()  # the known deal (the module's docstring)

        # The owner proposes while it is to move.
        host.page.click("[data-action='dissolve']")
        host.page.wait_for_selector(
            "[data-testid='dissolve-panel'][data-state='proposer'] [data-action='dissolve-withdraw']"
        )
        guest.page.wait_for_selector(
            "[data-testid='dissolve-panel'][data-state='asked'] [data-action='dissolve-agree']"
        )
        assert host.page.locator("[data-testid='dissolve-panel'] [data-action='dissolve-agree']").count() == 0
        assert guest.page.locator("[data-testid='dissolve-panel'] [data-action='dissolve-withdraw']").count() == 0
        votes = host.page.eval_on_selector_all(
            "[data-testid='dissolve-panel'] [data-vote]", "els => els.map((e) => e.dataset.vote)"
        )
        assert votes == ["yes", "wait", "yes"], votes  # the proposer and the computer agree at once
        assert 590 <= int(host.page.inner_text("[data-testid='dissolve-left'] b")) <= 600
        assert "申请解散" in guest.page.inner_text("[data-testid='dissolve-panel']")
        assert host.page.locator(".modal").count() == 0 and guest.page.locator(".modal").count() == 0
        # both roles at both sizes, in both languages
        for lang in ("zh", "en"):
            for size in ("desktop", "phone"):
                host.page.set_viewport_size(DESKTOP if size == "desktop" else SMALL)
                guest.page.set_viewport_size(SMALL if size == "desktop" else DESKTOP)
                for p, role in ((host, "proposer"), (guest, "voter")):
                    _layout(p)
                    width = p.page.viewport_size["width"]
                    _shoot(p, f"{role}-{width}-{lang}")
            for p in people:
                p.page.click("[data-action='lang']")
            host.page.wait_for_selector("[data-testid='dissolve-panel'] [data-action='dissolve-withdraw']")
        host.page.set_viewport_size(DESKTOP)
        guest.page.set_viewport_size(SMALL)

        # The hand goes on: the owner discards by tapping (its bar stays clear of the hand) …
        assert host.act("discard x2")
        # … and the guest answers the 吃 with its button, the bar clear of the claim buttons.
        guest.page.wait_for_selector(".table .actions button[data-action='chi']")
        layout = _layout(guest)
        assert layout["buttons"] >= 2, layout
        _shoot(guest, "voter-claim-360-zh")
        assert guest.act("chi x2 d2")
        guest.page.wait_for_selector(".hand.my-turn .card.playable")
        legal = guest.legal()
        _layout(guest)
        assert guest.act(legal[0])  # and discards, by tapping
        for p in people:
            p.page.wait_for_selector("[data-testid='dissolve-panel']")
            _no_tuoguan(p)

        # The owner withdraws (撤回): the bar goes on both pages, the match goes on.
        host.page.click("[data-testid='dissolve-panel'] [data-action='dissolve-withdraw']")
        for p in people:
            p.page.wait_for_selector("[data-testid='dissolve-panel']", state="detached")
        guest.page.wait_for_selector(".toast:has-text('撤回了解散申请')")
        assert host.page.evaluate("() => window.paohuzi.state.room.status") == "playing"

        # The guest proposes; the owner (a voter) agrees: its bar closes, and the match ends, the hand void.
        guest.page.click("[data-action='dissolve']")
        host.page.click("[data-testid='dissolve-panel'][data-state='asked'] [data-action='dissolve-agree']")
        host.page.wait_for_selector("[data-testid='dissolve-panel']", state="detached")
        for p in people:
            p.page.wait_for_selector("[data-testid='dissolved']")
            note = p.page.inner_text("[data-testid='dissolved-note']")
            assert note == "本局作废，不计逃跑；已结算的局照常有效", note
            assert p.page.evaluate("() => window.paohuzi.state.matchOver.void_hand") is not None
            _no_tuoguan(p)
            p.shot("dissolved")
            assert not p.errors, p.errors
    finally:
        for p in people:
            p.close()


def test_r8_2_agreed_between_hands_voids_no_hand(browser: Any, seeded: ServerProcess, artifacts: Path) -> None:
    """Between hands (the first hand settled; 60 s before the next) no hand is in play: the owner, its
    settlement closed, proposes; the guest, its settlement still open, sees the proposal over it and agrees;
    the dissolved sheet says the settled hands stand and nobody pays 逃跑 — and not that a hand was voided."""
    host = Person(browser, seeded.url, artifacts, "owner", viewport=DESKTOP)
    guest = Person(browser, seeded.url, artifacts, "guest", **PHONE)
    people = (host, guest)
    try:
        _friend_table(host, guest)
        for p in people:  # the computers play both seats to the end of the hand (托管)
            p.page.click("[data-action='auto'][aria-pressed='false']")
        for p in people:
            p.page.click(".settle-modal [data-action='auto-off']", timeout=90_000)
            p.page.wait_for_selector(".settle-modal [data-action='auto-off']", state="detached")
        for p in people:
            p.page.wait_for_function("() => window.paohuzi.state.room.seats.every((s) => !s.auto)")
        host.page.click(".settle-modal [data-action='next']")
        host.page.wait_for_selector(".settle-modal", state="detached")
        host.page.click("[data-action='dissolve']")
        bar = guest.page.locator("[data-testid='dissolve-panel'].floating[data-state='asked']")
        bar.wait_for()
        assert guest.page.locator(".settle-modal").count() == 1  # still between hands, its sheet open
        box = bar.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= SMALL["height"], box
        _shoot(guest, "voter-between-hands-360-zh")
        bar.locator("[data-action='dissolve-agree']").click()
        for p in people:
            p.page.wait_for_selector("[data-testid='dissolved']")
            note = p.page.inner_text("[data-testid='dissolved-note']")
            assert note == "已结算的局照常有效，不计逃跑", note
            assert p.page.evaluate("() => window.paohuzi.state.matchOver.void_hand") is None
            p.shot("dissolved-between-hands")
            assert not p.errors, p.errors
    finally:
        for p in people:
            p.close()


def test_r8_2_refusal_cancels_then_agreed_and_timed_out_dissolves(
    browser: Any, artifacts: Path, tmp_path: Path
) -> None:
    """Three people: a refusal cancels a proposal; a voter who agreed keeps a one-line status with nothing
    to answer; the third, disconnected, agrees when the time is up, and the match ends with its summary and
    nobody pays 逃跑."""
    server = web_server(tmp_path, {"PAOHUZI_DISSOLVE_SECONDS": "8"}).start()
    people = [Person(browser, server.url, artifacts, f"p{i}", viewport={"width": 900, "height": 760}) for i in range(3)]
    try:
        host, g1, g2 = people
        for p in people:
            p.open()
            p.page.wait_for_selector(".lobby .nick")
        host.page.click("[data-action='create']")
        host.page.click("[data-action='create-submit']")
        code = host.page.inner_text("[data-testid='room-code']").strip()
        for g in (g1, g2):
            g.page.click("[data-action='join']")
            g.page.fill("input[name='code']", code)
            g.page.click("[data-action='join-submit']")
            g.page.wait_for_selector("[data-testid='room-code']")
        host.page.wait_for_function("() => document.querySelectorAll('.seats li.taken').length === 3")
        for p in people:
            p.page.click("[data-action='ready']")
        for p in people:
            p.page.wait_for_selector(".table .hand .card")

        # a proposal, and one refusal cancels it
        host.page.click("[data-action='dissolve']")
        for p in (g1, g2):
            p.page.wait_for_selector("[data-testid='dissolve-panel'] [data-action='dissolve-agree']")
        assert "申请解散" in g1.page.inner_text("[data-testid='dissolve-panel'] .dissolve-title")
        assert host.page.locator("[data-testid='dissolve-panel'] [data-action='dissolve-agree']").count() == 0
        g1.shot("dissolve-asked")
        g2.page.click("[data-testid='dissolve-panel'] [data-action='dissolve-refuse']")
        for p in people:
            p.page.wait_for_selector("[data-testid='dissolve-panel']", state="detached")
        host.page.wait_for_selector(".toast-error:has-text('拒绝解散')")
        assert host.screen() == "table"

        # another proposal: one agrees (its bar shrinks to a status line), the third is gone and agrees when
        # the time is up (R8.2)
        g1.page.click("[data-action='dissolve']")
        host.page.click("[data-testid='dissolve-panel'] [data-action='dissolve-agree']")
        host.page.wait_for_selector(
            "[data-testid='dissolve-panel'][data-state='voted'] [data-vote='yes'][data-seat='0']"
        )
        assert host.page.locator("[data-testid='dissolve-panel'] button").count() == 0
        g1.page.wait_for_selector("[data-testid='dissolve-panel'] [data-vote='yes'][data-seat='0']")
        host.shot("dissolve-voted")
        g2.close()
        for p in (host, g1):
            p.page.wait_for_selector("[data-testid='dissolved']", timeout=30_000)
            text = p.page.inner_text("[data-testid='dissolved']")
            assert "房间已解散" in text and "不计逃跑" in text, text
        # with the match's 总结算: the hand in play is listed as 解散, nobody gained or lost
        host.page.wait_for_selector("[data-testid='dissolved'] [data-testid='summary'] tr.kind-void")
        totals = host.page.eval_on_selector_all(
            "[data-testid='dissolved'] tr.totals [data-total]", "els => els.map(e => e.dataset.total)"
        )
        assert totals == ["0", "0", "0"], totals
        host.shot("dissolved")
        history = host.page.evaluate(
            "async () => (await (await fetch('/api/me/history', {headers: {Authorization: 'Bearer ' + "
            "localStorage.getItem('paohuzi.token')}})).json()).matches[0]"
        )
        assert history["status"] == "dissolved", history
        assert all(s["score"] == 0 for s in history["seats"]), history
        host.page.click("[data-action='dissolved-ok']")
        host.page.wait_for_selector("[data-testid='room-code']")
        for p in (host, g1):
            assert not p.errors, p.errors
    finally:
        for p in people:
            try:
                p.close()
            except Exception:  # noqa: BLE001 — g2's context is already closed
                pass
        server.stop()
