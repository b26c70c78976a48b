"""解散房间 in the browser (R8.2, issue 12 item 2): three people in a private room; a refusal cancels a
proposal; a proposal agreed by one and timed out by a disconnected third ends the match with its summary
and nobody pays 逃跑. Waits on the page's state, never on sleeps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import Server
from .helpers import Person


def test_r8_2_refusal_cancels_then_agreed_and_timed_out_dissolves(
    browser: Any, artifacts: Path, tmp_path: Path
) -> None:
    server = Server(tmp_path, {"PAOHUZI_DISSOLVE_SECONDS": "8"}).start()
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
            p.page.wait_for_selector("[data-testid='dissolve-dialog'] [data-action='dissolve-agree']")
        assert "申请解散房间" in g1.page.inner_text("[data-testid='dissolve-dialog'] h3")
        assert host.page.locator("[data-testid='dissolve-dialog'] [data-action='dissolve-agree']").count() == 0
        g1.shot("dissolve-asked")
        g2.page.click("[data-testid='dissolve-dialog'] [data-action='dissolve-refuse']")
        for p in people:
            p.page.wait_for_selector("[data-testid='dissolve-dialog']", state="detached")
        host.page.wait_for_selector(".toast-error:has-text('拒绝解散')")
        assert host.screen() == "table"

        # another proposal: one agrees, the third is gone and agrees when the time is up (R8.2)
        g1.page.click("[data-action='dissolve']")
        host.page.click("[data-testid='dissolve-dialog'] [data-action='dissolve-agree']")
        g1.page.wait_for_selector("[data-testid='dissolve-dialog'] [data-vote='yes'][data-seat='0']")
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
