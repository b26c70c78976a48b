"""Issue 13's browser acceptance: a player claims its account, logs in from a second browser context, sits in
初级场 (multiplier 5), plays a hand with a 双倍积分卡 active and sees both ledgers move as R7.3 says — its
积分 gain doubled (a loss never), its 欢乐豆 moved by points × 5 and never doubled — in the settlement, on
the profile page (title, bean history) and in the ledger the API keeps; then the leaderboards. Screenshots
at 360x740 and 1280x800; English mode shows no Chinese but card faces and names.

The deal is random: the test reads the settlement the page shows and checks it exactly against the
ledger's rows and R7.3's arithmetic (docs/DEVELOPING.md: no luck in the assertions)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import Server
from .helpers import Person
from .test_account import _failed_requests, _submit, _wait_nickname
from .test_browser import CJK_OUTSIDE_CARDS_AND_NAMES, PHONE, _no_errors

DESKTOP = {"viewport": {"width": 1280, "height": 800}}

# What the settlement sheet shows: each seat's 积分 and 欢乐豆 change, my row, the winner's row, the formula.
SETTLEMENT_SHOWN = """() => {
    const rows = [...document.querySelectorAll('.results tbody tr')];
    return {
        points: rows.map(r => Number(r.children[1].textContent)),
        beans: rows.map(r => Number(r.querySelector('[data-beans]')?.dataset.beans ?? 0)),
        beansShown: !!document.querySelector('.results [data-beans]'),
        me: rows.findIndex(r => r.classList.contains('me')),
        winner: rows.findIndex(r => r.classList.contains('winner')),
        formula: document.querySelector('.score-line')?.dataset.formula || null,
        hand: window.paohuzi.state.handOver.hand,
        doubled: window.paohuzi.state.handOver.double_cards || [],
    };
}"""


@pytest.fixture(scope="module")
def economy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of this module's own (log-ins are limited per address; the other browser tests share it)."""
    srv = Server(tmp_path_factory.mktemp("economy-server"), env={"PAOHUZI_LOGIN_BURST": "100"}).start()
    try:
        yield srv
    finally:
        srv.stop()


def _api(page: Any, method: str, path: str, body: Any = None) -> Any:
    """A lobby-API call made by the page itself (its own token), for what the test reads back."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const token = localStorage.getItem("paohuzi.token");
            const r = await fetch(path, {method, headers: {Authorization: `Bearer ${token}`,
                "Content-Type": "application/json"}, body: body === null ? undefined : JSON.stringify(body)});
            return {status: r.status, data: await r.json()};
        }""",
        [method, path, body],
    )


def _play_hand(person: Person) -> dict[str, Any]:
    """Play by clicking until the settlement shows; what it shows: each seat's 积分 and 欢乐豆 change, the
    formula, the winner, my seat."""
    page = person.page
    page.wait_for_selector(".table .hand .card")
    while not person.settled():
        try:
            done = person.step()
        except Exception:  # noqa: BLE001 - the table changed under the click; look again
            done = None
        if done is None and not person.settled():
            person.wait_for_decision(timeout=60_000)
    page.wait_for_selector(".settle-modal .results")
    return dict(page.evaluate(SETTLEMENT_SHOWN))


def _check_r7_3(shown: dict[str, Any], multiplier: int, stake: int, held: int, doubled: bool) -> None:
    """R7.3 on what the settlement shows: the winner's 积分 = what the losers pay (× 2 for a card holder's gain
    only); each seat's beans = its points paid or won ÷ the stake × the multiplier, never doubled; a loser
    pays at most what it holds (the bots' beans are bottomless)."""
    me, pts, beans = shown["me"], shown["points"], shown["beans"]
    if shown["winner"] < 0:  # 荒庄: nothing moves
        assert pts == [0, 0, 0] and beans == [0, 0, 0]
        return
    winner = shown["winner"]
    paid = [-p for s, p in enumerate(pts) if s != winner]
    assert all(x > 0 for x in paid)
    points = int(shown["formula"].split("=")[1].split("x")[0])
    assert paid == [points * stake, points * stake]
    assert pts[winner] == sum(paid) * (2 if doubled and winner == me else 1)
    for s in range(3):
        if s != winner:
            owed = -pts[s] * multiplier // stake
            assert beans[s] == -(min(owed, held) if s == me else owed)
    assert beans[winner] == -sum(beans[s] for s in range(3) if s != winner)  # a hand never makes beans


TIERS = {"practice": (0, 0), "junior": (5, 1000)}  # 练习场 ×0, 初级场 ×5 with 1,000 beans to sit down


def _tier_hand(person: Person, tier: str, held: int, points: int, doubled: bool) -> tuple[dict[str, Any], int, int]:
    """A hand at a table of ``tier``: what the settlement showed, checked against R7.3 and the API's ledger;
    the beans held and the 积分 after it."""
    page = person.page
    multiplier, minimum = TIERS[tier]
    made = _api(page, "POST", "/api/rooms/quick", {"tier": tier, "hands": 1, "bot_level": "beginner"})
    assert made["status"] == 201, made
    options = made["data"]["room"]["options"]
    assert (options["tier"], options["multiplier"], options["minimum"]) == (tier, multiplier, minimum)
    shown = _play_hand(person)
    person.shot(f"settlement-{tier}{'-card' if doubled else ''}")
    assert shown["beansShown"] == (multiplier > 0)  # the 欢乐豆 column at a table of beans only
    _check_r7_3(shown, multiplier, options["stake"], held, doubled)
    me = shown["me"]
    held += shown["beans"][me]
    points += shown["points"][me]
    # the ledger the API keeps has exactly what the page showed, for this hand (and the cards it granted)
    ledger = _api(page, "GET", "/api/me/ledger?limit=50")["data"]["entries"]
    rows = [(e["currency"], e["amount"], e["balance_after"]) for e in ledger if e["hand_id"] == shown["hand"]]
    expect = [("points", shown["points"][me], points)]
    if shown["beans"][me]:
        expect.append(("beans", shown["beans"][me], held))
    assert sorted(r for r in rows if r[0] != "cards") == sorted(expect)
    page.click(".settle-modal [data-action='quit'], .settle-modal [data-action='leave']")
    page.wait_for_selector(".lobby .nick")
    page.wait_for_function("n => document.querySelector('[data-testid=lobby-beans]').textContent === n", arg=str(held))
    return shown, held, points


def _scan_english(person: Person, label: str) -> None:
    found = person.page.evaluate(CJK_OUTSIDE_CARDS_AND_NAMES)
    assert not found, f"{label}: Chinese outside cards and names: {found}"


def _board(page: Any, board: str, period: str) -> dict[str, int]:
    """The board on screen, opened by its tabs: nickname → value."""
    page.click(f"[data-action=board-{board}]")
    page.click(f"[data-action=period-{period}]")
    page.wait_for_selector(f"[data-testid=board][data-board={board}][data-period={period}]")
    rows = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid=board] li[data-player]')].map(li =>
            [li.querySelector('.b-name').textContent, Number(li.querySelector('.b-points').dataset.value)])"""
    )
    return {name: value for name, value in rows}


def _check_boards(person: Person, points: int, beans_moved: int, held: int) -> None:
    page = person.page
    nickname = str(page.text_content("[data-testid=profile-nick]"))
    page.click("[data-action=boards]")
    page.wait_for_selector("[data-testid=board]")
    everyone = _board(page, "points", "all")
    assert everyone[nickname] == points
    assert not [n for n in everyone if n.startswith("电脑")]  # bots have no account
    assert _board(page, "beans", "all")[nickname] == held
    week = _board(page, "beans", "week")
    assert week.get(nickname, 0) == beans_moved
    person.shot("boards-desktop")
    assert _board(page, "points", "week")[nickname] == points


def test_claim_log_in_elsewhere_junior_table_double_card_both_ledgers(
    browser: Any, economy_server: Server, artifacts: Path
) -> None:
    url = economy_server.url
    phone = Person(browser, url, artifacts, "phone", **PHONE)
    desk = Person(browser, url, artifacts, "desk", **DESKTOP)
    try:
        # claim on the phone
        page = phone.open().page
        page.wait_for_selector(".lobby .nick")
        nickname = str(page.text_content("[data-testid=nickname]"))
        page.click("[data-action=account]")
        _submit(page, "claim", {"username": "chu_ji", "password": "junior table", "password2": "junior table"})
        page.wait_for_selector("[data-testid=account-state][data-claimed=yes]")
        # log in from a second browser context: the same player, its beans
        desk.open("/#/account")
        dpage = desk.page
        dpage.wait_for_selector("[data-testid=account-state][data-claimed=no]")
        _submit(dpage, "login", {"login-username": "chu_ji", "login-password": "junior table"})
        _wait_nickname(dpage, nickname, True)
        assert dpage.text_content("[data-testid=lobby-beans]") == "1000"
        dpage.wait_for_function("() => window.paohuzi.state.conn === 'online'")
        # a first hand at the practice table (×0: 积分 only) — the day's first settled hand grants a 双倍积分卡
        # (with 1,000 beans, the 初级场 minimum, a hand lost at a table of beans would keep us out of it)
        first, held, points = _tier_hand(desk, "practice", 1000, 0, doubled=False)
        assert held == 1000
        cards = _api(dpage, "GET", "/api/me/double-cards")["data"]["cards"]
        assert cards["held"] >= 1 and cards["active_until"] is None
        # the card is activated, and a second 初级场 hand starts with it: 积分 gain × 2, beans never
        activated = _api(dpage, "POST", "/api/me/double-cards/activate")
        assert activated["status"] == 200 and activated["data"]["cards"]["held"] == cards["held"] - 1
        # (a 荒庄 moves nothing: the table is taken again, with the same beans and the card still active)
        played = []
        for _try in range(8):
            second, held, points = _tier_hand(desk, "junior", held, points, doubled=True)
            assert second["doubled"] == [second["me"]]
            played.append(second)
            if second["winner"] >= 0:
                break
        assert second["winner"] >= 0 and second["beans"][second["me"]] != 0
        # the profile page shows the same: hands, 积分, beans, the bean history's newest rows
        dpage.click("[data-action=profile]")
        dpage.wait_for_selector("[data-testid=level]")
        assert dpage.text_content("[data-testid=stat-hands]") == str(1 + len(played))
        assert dpage.text_content("[data-testid=stat-points]") == str(points)
        assert dpage.text_content("[data-testid=beans]") == str(held)
        moved = [h for h in (first, *played) if h["beans"][h["me"]]]  # 荒庄 and practice move nothing
        shown = dpage.locator("[data-testid=bean-history] tbody tr")
        for i, hand in enumerate(reversed(moved)):  # newest first
            assert shown.nth(i).get_attribute("data-hand") == str(hand["hand"])
            assert shown.nth(i).locator("td").nth(1).text_content() == f"{hand['beans'][hand['me']]:+d}"
        desk.shot("profile-desktop")
        won = [h for h in (first, *played) if h["winner"] == h["me"]]
        best = dpage.locator("[data-testid=best-hand]")
        assert best.count() == (1 if won else 0)
        if won:  # the best hand's replay opens from the profile (a quick-play hand: by id)
            assert best.get_attribute("data-hand") in {str(h["hand"]) for h in won}
            dpage.click("[data-action=best-replay]")
            dpage.wait_for_selector(".replay-screen")
            dpage.go_back()
            dpage.wait_for_selector("[data-testid=level]")
        # leaderboards: by 积分 and by beans, all time and this week; bots have no account, never listed
        _check_boards(desk, points, held - 1000, held)
        # the phone (the same account) sees the same profile; English: nothing Chinese but names and cards
        page.goto(url + "/#/me")
        page.wait_for_selector("[data-testid=level]")
        assert page.text_content("[data-testid=beans]") == str(held)
        phone.shot("profile-phone")
        page.click("[data-action=lang]")
        page.wait_for_selector("html[lang='en']")
        _scan_english(phone, "profile")
        page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        phone.shot("profile-phone-en-bottom")
        page.goto(url + "/#/boards/beans/week")
        page.wait_for_selector("[data-testid=board][data-board=beans][data-period=week]")
        _scan_english(phone, "boards")
        phone.shot("boards-phone-en")
        me_id = _api(page, "GET", "/api/me")["data"]["player"]["id"]
        page.goto(url + f"/#/player/{me_id}")
        page.wait_for_selector("[data-page=player] [data-testid=level]")
        assert page.locator("[data-testid=bean-history]").count() == 0  # never on a public profile
        _scan_english(phone, "public profile")
        phone.shot("player-phone-en")
        page.goto(url + "/#/player/999999")
        missing = page.wait_for_selector("[data-testid=page-error][data-code=not_found]")
        assert missing.text_content() == "No such player (or the account was deleted)"
        assert _failed_requests(phone) == [404]
        _no_errors(phone, desk)
    finally:
        phone.close()
        desk.close()
