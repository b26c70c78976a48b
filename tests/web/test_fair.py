"""可验证发牌 in the browser (issue 32): web/js/fair.js deals exactly what paohuzi/engine/fair.py deals (1,000
seeds, in Chromium with Web Crypto), and a hand played in the browser shows "已验证 ✓" on its settlement and
in its replay; the CLI verifies the same hand by its replay code."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path
from typing import Any

from paohuzi.cards import full_deck
from paohuzi.engine import FairSeed, fair_shuffled

from ..support.server import ServerProcess
from .helpers import Friend, Person, play_by_tuoguan

DECK = tuple(str(c) for c in full_deck())


def _cases(n: int) -> list[dict[str, Any]]:
    """``n`` deterministic seed sets: 3 or 4 seats, client seeds of 0–32 bytes."""
    out = []
    for i in range(n):
        seats = 3 + i % 2
        server = hashlib.sha256(f"js {i}".encode()).digest()
        clients = tuple(hashlib.sha256(f"js {i} {s}".encode()).digest()[: (i * 5 + s * 11) % 33] for s in range(seats))
        dealer, deck = fair_shuffled(FairSeed(server, clients), seats, None, DECK)
        out.append(
            {"server": server.hex(), "clients": [c.hex() for c in clients], "dealer": dealer, "deck": list(deck)}
        )
    return out


def test_js_and_python_deal_the_same_deck_for_1000_seeds(browser: Any, server: ServerProcess, artifacts: Path) -> None:
    person = Person(browser, server.url, artifacts, "js")
    try:
        person.open()
        cases = _cases(1000)
        got = person.page.evaluate(
            """async (cases) => {
              const F = await import("/js/fair.js");
              const out = [];
              for (const c of cases) out.push(await F.deriveDeal(c.server, c.clients));
              const commitment = await F.commitmentOf(cases[0].server);
              return { out, commitment };
            }""",
            cases,
        )
        assert got["commitment"] == hashlib.sha256(bytes.fromhex(cases[0]["server"])).hexdigest()
        wrong = [
            i
            for i, (c, g) in enumerate(zip(cases, got["out"], strict=True))
            if (c["dealer"], c["deck"]) != (g["dealer"], g["deck"])
        ]
        assert not wrong, f"{len(wrong)} of 1000 differ, the first: case {wrong[0]}"
    finally:
        person.close()


def test_a_browser_hand_shows_verified_at_settlement_and_in_its_replay(
    browser: Any, server: ServerProcess, artifacts: Path
) -> None:
    host = Person(browser, server.url, artifacts, "host", viewport={"width": 900, "height": 760})
    friends = [Friend(server.url), Friend(server.url)]
    try:
        host.open()
        host.page.wait_for_selector(".lobby .nick")
        host.page.click("[data-action='create']")
        host.page.fill("input[name='hands']", "1")
        host.page.click("[data-action='create-submit']")
        code = host.page.inner_text("[data-testid='room-code']").strip()
        for f in friends:
            f.join(code)
        host.page.wait_for_function("() => document.querySelectorAll('.seats li.taken').length === 3")
        host.page.click("[data-action='ready']")
        host.page.wait_for_selector(".table .hand .card")
        play_by_tuoguan(host)
        badge = host.page.wait_for_selector(".settle-modal [data-testid='fair'][data-status='ok']", timeout=15_000)
        assert badge.inner_text().startswith("已验证 ✓")
        assert host.page.get_attribute(".settle-modal [data-testid='fair-method']", "href") == "fair.html"
        host.shot("settlement-verified")
        replay_code = host.page.inner_text("[data-testid='replay-code']").strip()

        # the replay, opened by its code, checks the record's deal again
        host.page.goto(f"{server.url}/#/r/{replay_code}")
        badge = host.page.wait_for_selector(".replay-screen [data-testid='fair'][data-status='ok']", timeout=15_000)
        assert badge.inner_text().startswith("已验证 ✓")
        host.shot("replay-verified")

        # the method page is served
        host.page.goto(f"{server.url}/fair.html")
        assert "HMAC-SHA-256" in host.page.inner_text("main")

        # and the CLI verifies the same hand by its code
        done = subprocess.run(
            [sys.executable, "-m", "paohuzi.cli", "verify", "--code", replay_code, "--url", server.url],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0 and done.stdout.startswith("✓ verified (rng_version 2)"), done.stdout + done.stderr
    finally:
        for f in friends:
            f.close()
        host.close()
