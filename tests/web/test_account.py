"""The account page in the browser (issue 13 §1): claim with the server's rules and translated errors, log in
from a second browser context (the guest token replaced), the sessions with revoke (the other device is told
at once), "log out everywhere", export (a JSON download), deletion — at 360x740 and 1280x800, and in English
with no Chinese but names."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..support.server import ServerProcess, running_web
from .helpers import Person
from .test_browser import CJK_OUTSIDE_CARDS_AND_NAMES, PHONE, _no_errors

DESKTOP = {"viewport": {"width": 1280, "height": 800}}


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server of this module's own: log-ins and claims are limited per address (10 at once), and the
    other browser tests log in from the same address."""
    with running_web(tmp_path_factory.mktemp("account-server"), env={"PAOHUZI_LOGIN_BURST": "100"}) as srv:
        yield srv


def _submit(page: Any, form: str, values: dict[str, str]) -> None:
    for name, value in values.items():
        page.fill(f"[data-form='{form}'] [name='{name}']", value)
    page.click(f"[data-form='{form}'] button[type=submit]")


def _form_error(page: Any, form: str, code: str) -> str:
    line = page.wait_for_selector(f"[data-form='{form}'] .form-error[data-code='{code}']")
    return str(line.text_content())


def _wait_nickname(page: Any, nickname: str, same: bool) -> None:
    """Wait until the lobby shows ``nickname`` (``same``), or another player's (a new guest)."""
    test = "===" if same else "!=="
    page.wait_for_function(f"n => document.querySelector('[data-testid=nickname]')?.textContent {test} n", arg=nickname)


def _failed_requests(person: Person) -> list[int]:
    """The HTTP statuses of the failed requests the console logged, taken out of ``person.errors``."""
    failed = [e for e in person.errors if "Failed to load resource: the server responded with a status of" in e]
    person.errors = [e for e in person.errors if e not in failed]
    return [int(e.split("status of ")[1].split()[0]) for e in failed]


def _reopen_account(page: Any) -> None:
    """Back to the lobby and to the account page again (no reload: this page's websocket stays as it is)."""
    page.click("[data-action=page-back]")
    page.click(".lobby [data-action=account]")
    page.wait_for_selector("[data-testid=account-state]")


def _scan_english(person: Person, label: str) -> None:
    found = person.page.evaluate(CJK_OUTSIDE_CARDS_AND_NAMES)
    assert not found, f"{label}: Chinese outside cards and names: {found}"


def test_claim_log_in_elsewhere_revoke_export_delete(browser: Any, own_server: ServerProcess, artifacts: Path) -> None:
    phone = Person(browser, own_server.url, artifacts, "phone", **PHONE)
    desk = Person(browser, own_server.url, artifacts, "desk", **DESKTOP)
    try:
        page = phone.open().page
        page.wait_for_selector(".lobby .nick")
        nickname = page.text_content("[data-testid=nickname]")
        page.click("[data-action=account]")
        page.wait_for_selector("[data-testid=account-state][data-claimed=no]")
        phone.shot("account-guest", full_page=True)
        # the server's rules, each error translated (R: docs/protocol.md §2 Accounts)
        _submit(page, "claim", {"username": "1abc", "password": "secret pass", "password2": "secret pass"})
        assert _form_error(page, "claim", "invalid_username").startswith("用户名不合规则")
        _submit(page, "claim", {"username": "lan_hua", "password": "short", "password2": "short"})
        assert _form_error(page, "claim", "weak_password").startswith("密码不合规则")
        _submit(page, "claim", {"username": "lan_hua", "password": "secret pass", "password2": "secret pasS"})
        assert _form_error(page, "claim", "password_mismatch") == "两次输入的密码不一样"
        phone.shot("claim-error")
        _submit(page, "claim", {"username": "lan_hua", "password": "secret pass", "password2": "secret pass"})
        page.wait_for_selector("[data-testid=account-state][data-claimed=yes]")
        assert page.text_content("[data-testid=username]") == "lan_hua"
        assert page.locator("[data-testid=sessions] li").count() == 1
        # a look-alike of a taken name is refused (1 for l)
        desk.open("/#/account")
        dpage = desk.page
        dpage.wait_for_selector("[data-testid=account-state][data-claimed=no]")
        _submit(dpage, "claim", {"username": "Ian_hua", "password": "another pw!", "password2": "another pw!"})
        assert _form_error(dpage, "claim", "username_taken").startswith("这个用户名已被使用")
        # log in from the second browser context: wrong password first, then right; the guest is replaced
        _submit(dpage, "login", {"login-username": "lan_hua", "login-password": "wrong pass"})
        assert _form_error(dpage, "login", "bad_credentials") == "用户名或密码不对"
        _submit(dpage, "login", {"login-username": "LAN_HUA", "login-password": "secret pass"})
        dpage.wait_for_selector(".lobby .nick")
        _wait_nickname(dpage, nickname, True)
        dpage.wait_for_function("() => window.paohuzi.state.conn === 'online'")
        desk.shot("lobby-after-login")
        # both devices are listed; the phone revokes the desktop's session: the desktop is told at once (its
        # websocket is closed with 4001; the phone's own was replaced by the desktop's: one per player)
        _reopen_account(page)
        page.wait_for_selector("[data-testid=sessions] li:nth-child(2)")
        phone.shot("sessions", full_page=True)
        other = page.locator("[data-testid=sessions] li:not(.current)")
        assert other.count() == 1 and "Chrome" in str(other.text_content())
        other.locator("[data-action=revoke]").click()
        page.wait_for_function("() => document.querySelectorAll('[data-testid=sessions] li').length === 1")
        dpage.wait_for_selector("[data-testid=logged-out]")
        desk.shot("logged-out")
        with dpage.expect_navigation():  # the page starts again as a new guest: wait for the new page …
            dpage.click("[data-action=logged-out-ok]")
        dpage.wait_for_selector("body[data-ready]")  # … to be up (a goto before it would race the reload)
        _wait_nickname(dpage, nickname, False)
        # export: a JSON file of all that is kept about me
        with page.expect_download() as download:
            page.click("[data-action=export]")
        exported = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
        assert exported["player"]["nickname"] == nickname and exported["account"]["username"] == "lan_hua"
        assert len(exported["sessions"]) == 1 and "token" not in json.dumps(exported["sessions"])
        # English mode: no Chinese but names, on every part of the page. A toast shown in Chinese before the
        # switch (the claim's 账号已保存, when the steps above were quick) stays until it fades: wait for it to go.
        page.wait_for_selector("#toasts .toast", state="detached")
        page.click("[data-action=lang]")
        page.wait_for_selector("html[lang='en']")
        _scan_english(phone, "account (claimed)")
        phone.shot("account-en", full_page=True)
        dpage.click("[data-action=lang]")
        dpage.goto(own_server.url + "/#/account")
        dpage.wait_for_selector("[data-testid=account-state][data-claimed=no]")
        _scan_english(desk, "account (guest)")
        desk.shot("account-guest-en", full_page=True)
        # log out everywhere: the desktop logs in again, the phone logs every device out
        _submit(dpage, "login", {"login-username": "lan_hua", "login-password": "secret pass"})
        _wait_nickname(dpage, nickname, True)
        dpage.wait_for_function("() => window.paohuzi.state.conn === 'online'")
        _reopen_account(page)
        page.wait_for_selector("[data-testid=sessions] li:nth-child(2)")
        page.click("[data-action=logout-everywhere]")
        page.wait_for_selector(".lobby .nick")
        _wait_nickname(page, nickname, False)
        dpage.wait_for_selector("[data-testid=logged-out]")
        _scan_english(desk, "logged out")
        with dpage.expect_navigation():  # the page starts again as a new guest: wait for the new page …
            dpage.click("[data-action=logged-out-ok]")
        dpage.wait_for_selector("body[data-ready]")  # … to be up (a goto before it would race the reload)
        _wait_nickname(dpage, nickname, False)
        # deletion wants the password; then the device starts again as a new guest, and the name is gone
        dpage.goto(own_server.url + "/#/account")
        dpage.wait_for_selector("[data-testid=account-state][data-claimed=no]")  # the page, not the lobby
        _submit(dpage, "login", {"login-username": "lan_hua", "login-password": "secret pass"})
        _wait_nickname(dpage, nickname, True)
        dpage.goto(own_server.url + "/#/account")
        dpage.wait_for_selector("[data-testid=account-state][data-claimed=yes]")
        dpage.check("[name=delete-sure]")
        _submit(dpage, "delete", {"delete-password": "wrong pass"})
        assert _form_error(dpage, "delete", "bad_credentials") == "Wrong username or password"
        desk.shot("delete-error", full_page=True)
        _submit(dpage, "delete", {"delete-password": "secret pass"})
        dpage.wait_for_selector(".lobby .nick")
        _wait_nickname(dpage, nickname, False)
        page.goto(own_server.url + "/#/account")
        page.wait_for_selector("[data-testid=account-state][data-claimed=no]")
        _submit(page, "login", {"login-username": "lan_hua", "login-password": "secret pass"})
        _form_error(page, "login", "bad_credentials")
        # the refusals asked for above are the only failed requests (the browser logs each), nothing else
        assert _failed_requests(phone) == [422, 422, 401]
        assert _failed_requests(desk) == [409, 401, 401]
        _no_errors(phone, desk)
    finally:
        phone.close()
        desk.close()
