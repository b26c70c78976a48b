"""A person at a browser: opens the client, clicks what a person can click, and remembers every console
error and uncaught exception of the page (the tests assert there are none)."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .contexts import origin_of

# Screenshots into the test's artifacts (``Person.shot``): on unless PAOHUZI_WEB_SHOTS=0, which make test-fast sets
# (docs/DEVELOPING.md): a shot costs a capture and a PNG, ~130 of them a run, and nothing asserts on them.
SHOTS = os.environ.get("PAOHUZI_WEB_SHOTS", "1") != "0"

# A person's page size unless the test gives one (Playwright's default).
DEFAULT_VIEWPORT = {"width": 1280, "height": 720}

# Which claim a person picks when offered several (the hand always goes on; 胡 ends it sooner).
CLAIM_ORDER = ("hu", "peng", "chi", "pass")

# Anything the table may ask of a person, or the end of the hand.
DECISION = ".chi-modal .chi-option, .actions button:not([disabled]), .hand.my-turn .card.playable, .settle-modal"


class Person:
    def __init__(self, browser: Any, base_url: str, artifacts: Path, name: str, **context_options: Any) -> None:
        self.name = name
        self.artifacts = artifacts
        self.base_url = base_url
        # Reduced motion: no card moves while a test points at it (the dealing animation, the pops); the
        # animations themselves are checked by switching it back (test_browser.py).
        context_options.setdefault("reduced_motion", "reduce")
        context_options.setdefault("locale", "zh-CN")
        # A context lent by the worker's Chromium (``browser``: tests/web/contexts.py), clean, back in close();
        # the viewport is the page's (Playwright's default size unless given), so that one context serves
        # every size.
        viewport = context_options.pop("viewport", DEFAULT_VIEWPORT)
        self.browser = browser
        self.options = context_options
        self.context = browser.lend(**context_options)
        self.page = self.context.new_page()
        self.page.set_viewport_size(viewport)
        self.closed = False
        self.origins: set[str] = set()  # every origin the page showed: their stored data is cleared in close()
        self.page.on("framenavigated", self._navigated)
        self.page.set_default_timeout(15_000)
        self.errors: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        self.page.on("dialog", lambda dialog: dialog.accept())
        self.shots = 0
        self.moves = 0
        self.discards = 0

    def _navigated(self, frame: Any) -> None:
        origin = origin_of(frame.url)
        if origin:
            self.origins.add(origin)

    def _console(self, msg: Any) -> None:
        if msg.type == "error":
            self.errors.append(f"console: {msg.text}")

    def open(self, path: str = "/") -> Person:
        """Open the client and wait until it says it is ready (``body[data-ready]``: its start-up is done —
        identity, route, the lobby's data — and the game connection is up), so no click races the start."""
        self.page.goto(self.base_url + path)
        self.page.wait_for_selector("body[data-ready] [data-screen]")
        return self

    def shot(self, label: str, full_page: bool = False) -> Path:
        """A screenshot into the test's artifacts, for people to look at (nothing asserts on it); its path —
        where it would be when :data:`SHOTS` is off."""
        self.shots += 1
        path = self.artifacts / f"{self.name}-{self.shots:02d}-{label}.png"
        if SHOTS:
            self.page.screenshot(path=str(path), full_page=full_page, animations="disabled")
        return path

    def screen(self) -> str:
        return str(self.page.get_attribute("[data-screen]", "data-screen"))

    def close(self) -> None:
        """Done: the page closed, the context cleared and given back (tests/web/contexts.py); once."""
        if self.closed:
            return
        self.closed = True
        home = origin_of(self.base_url)
        self.browser.take_back(self.context, self.options, self.origins | ({home} if home else set()))

    # ---- playing ---------------------------------------------------------------------------------

    def settled(self) -> bool:
        return self.page.locator(".settle-modal").count() > 0

    def wait_for_decision(self, timeout: float = 15_000) -> None:
        """Wait (on the page's state, not a sleep) until the table asks for a decision or the hand ends."""
        self.page.wait_for_selector(DECISION, timeout=timeout)

    def play_until_discard(self, timeout: float = 180.0) -> None:
        """Make every claim decision until it is this person's turn to discard (and stop there). A hand that
        ends first (the computers win fast) is followed by the next one (or the next match)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.wait_for_decision()
            if self.page.locator(".hand.my-turn .card.playable").count():
                return
            if self.settled():
                self.page.click(".settle-modal [data-action='next'], .settle-modal [data-action='rematch']")
                self.page.wait_for_selector(".settle-modal", state="detached")
                self.page.wait_for_selector(".table .hand .card")
                continue
            # never a discard here: the turn may come between the look above and step's own (a busy machine),
            # and a discard made then would be one the caller did not ask for (CI, 2026-12-07: three where two)
            self.step(discard=False)
        raise TimeoutError("no discard decision")

    def step(self, swipe: bool = False, hu: bool = True, discard: bool = True) -> str | None:
        """Make one decision if the table asks for one; returns what was done, or None — also when the
        decision went away before the click landed (another seat's 碰 closed a 吃 window, the hand ended):
        the caller looks again. ``hu=False`` declines 胡 (R4.4: without 有胡必胡 a seat may always pass):
        for a test that needs the hand to go on, whatever the deal. ``discard=False``: a claim only (None at
        a discard decision)."""
        page = self.page
        if page.locator(".chi-modal .chi-option").count():
            if not _click(page.locator(".chi-modal .chi-option").first):
                return None
            self.moves += 1
            return "chi-option"
        for kind in CLAIM_ORDER if hu else CLAIM_ORDER[1:]:
            button = page.locator(f".actions button[data-action='{kind}']:not([disabled])")
            if button.count():
                if not _click(button.first):
                    return None
                self.moves += 1
                return kind
        playable = page.locator(".hand.my-turn .card.playable")
        if discard and playable.count():
            if swipe:
                box = _box(playable.last)
                if not box:
                    return None
                x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
                page.mouse.move(x, y)
                page.mouse.down()
                page.mouse.move(x, y - 40, steps=3)
                page.mouse.move(x, y - 90, steps=3)
                page.mouse.up()
            elif not _click(playable.last) or not _click(page.locator(".hand.my-turn .card.selected")):
                return None  # lift it … and tap again to discard (unless the turn went meanwhile)
            self.moves += 1
            self.discards += 1
            return "discard"
        return None

    # ---- scripted play (a known deal: the test picks each action from the server's legal list) ----------

    def legal(self) -> list[str]:
        """The actions the table offers this person now (the server's ``legal``), or [] when there is no
        decision — or the last one sent is not yet answered."""
        legal: list[str] | None = self.page.evaluate(
            """() => { const s = window.paohuzi.state, g = s.game;
                       return g && !s.pendingAct && g.view.legal && g.view.legal.length ? g.view.legal : null; }"""
        )
        return legal or []

    def act(self, action: str) -> bool:
        """Make ``action`` (one of :meth:`legal`) by clicking as a person would, and wait until the server
        answered it; False when the decision went away before the click landed (the caller looks again)."""
        page = self.page
        kind = action.split()[0]
        if kind in ("hu", "peng", "chi", "pass"):
            done = _click(page.locator(f".actions button[data-action='{kind}']:not([disabled])"), 3_000)
            if done and kind == "chi" and page.locator(".chi-modal").count():
                done = _click(page.locator(f".chi-modal .chi-option[data-action='{action}']"), 3_000)
        elif kind == "discard":
            card = page.locator(f".hand.my-turn .card.playable[data-card='{action.split()[1]}']").first
            done = _click(card, 3_000) and _click(page.locator(".hand.my-turn .card.selected"), 3_000)
            if done:
                self.discards += 1
        else:  # no button for it in these deals; sent as the client would
            page.evaluate(
                "a => window.paohuzi.send({type: 'act', action: a, hand: window.paohuzi.state.game.hand})", action
            )
            done = True
        if done:
            self.moves += 1
            page.wait_for_function("() => window.paohuzi.state.pendingAct === null")
        return done


def first_claim(legal: list[str], hu: bool = True) -> str:
    """The scripted players' policy the tests' fixed deals were picked for (offline, with the engine): 胡 when
    offered (unless ``hu`` is False), else 碰, else the first 吃, else 过, and otherwise the first action of
    ``legal`` (the first card it may discard)."""
    for kind in ("hu", "peng", "chi") if hu else ("peng", "chi"):
        for action in legal:
            if action.split()[0] == kind:
                return action
    return "pass" if "pass" in legal else legal[0]


def _click(locator: Any, timeout: float = 5_000) -> bool:
    """Click ``locator``; False when it is not there to click within ``timeout`` ms (it went away)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        locator.click(timeout=timeout)
    except PlaywrightTimeout:
        return False
    return True


def _box(locator: Any, timeout: float = 5_000) -> dict[str, float] | None:
    """The bounding box of ``locator``, or None when it went away."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        box: dict[str, float] | None = locator.bounding_box(timeout=timeout)
    except PlaywrightTimeout:
        return None
    return box


def play_to_settlement(people: list[Person], timeout: float = 180.0, shoot_first: bool = True) -> None:
    """Every person plays (by clicking) until each one sees the settlement."""
    deadline = time.monotonic() + timeout
    shot_claim = not shoot_first
    shot_turn = not shoot_first
    while time.monotonic() < deadline:
        if all(p.settled() for p in people):
            return
        acted = False
        for p in people:
            if p.settled():
                continue
            if not shot_claim and p.page.locator(".actions").count():
                p.shot("claim")
                shot_claim = True
            if not shot_turn and p.page.locator(".hand.my-turn").count():
                p.shot("my-turn")
                shot_turn = True
            try:
                done = p.step(swipe=p.discards % 3 == 1)
            except Exception:  # noqa: BLE001 - the table changed under the click; look again
                done = None
            acted = acted or done is not None
        if not acted:
            people[0].page.wait_for_timeout(40)
    states = {p.name: p.page.evaluate("() => document.body.innerText.slice(0, 300)") for p in people}
    raise TimeoutError(f"no settlement within {timeout} s: {states}")


def play_by_tuoguan(person: Person, timeout: float = 90_000) -> None:
    """托管 on (the top bar's toggle, as a person taps it) and wait for the settlement: the server plays the
    seat at the computers' pace. For a test whose subject is what follows a hand (its settlement, code,
    replay, verification), not the clicking through it — the click walks are test_browser.py's. A hand that
    the computers ended first (a dealt 天胡) needs no 托管: its settlement covers the toggle."""
    toggle = person.page.locator("[data-action='auto'][aria-pressed='false']")
    if not person.settled() and not _click(toggle):
        assert person.settled(), "托管 could not be turned on, and the hand is not over"
    person.page.wait_for_selector(".settle-modal", timeout=timeout)


class Friend:
    """Another player at the table, played by the test over the real websocket (no browser): joins a room
    by code, says ready, and plays at once the action ``choose`` picks from each decision's legal actions —
    by default the first one that is not 胡 (it declines when it may: a test's hand goes on whatever the
    deal, as ``never_hu`` in tests/support/clients.py)."""

    def __init__(self, base_url: str, choose: Callable[[list[str]], str] | None = None) -> None:
        from ..support.server import HTTP

        self.base_url = base_url
        self.choose = choose or (lambda legal: next((a for a in legal if a != "hu"), legal[0]))
        made = HTTP.post(base_url + "/api/guests", json={}, timeout=10).json()
        self.token = made["token"]
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def join(self, code: str) -> None:
        from ..support.server import HTTP

        r = HTTP.post(
            f"{self.base_url}/api/rooms/{code}/join",
            json={},
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=10,
        )
        assert r.status_code == 200, r.text
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from websockets.sync.client import connect

        try:
            url = self.base_url.replace("http://", "ws://") + "/ws"
            with connect(url, open_timeout=10) as ws:
                ws.send(json.dumps({"type": "hello", "token": self.token}))
                ws.send(json.dumps({"type": "ready", "ready": True}))
                acted: set[tuple[int, int]] = set()
                while not self.stop.is_set():
                    try:
                        frame = json.loads(ws.recv(timeout=0.2))
                    except TimeoutError:
                        continue
                    if frame.get("type") in ("game", "update") and frame["view"]["legal"]:
                        key = (frame["hand"], frame["seq"])
                        if key not in acted:
                            acted.add(key)
                            action = self.choose(frame["view"]["legal"])
                            ws.send(json.dumps({"type": "act", "action": action, "hand": frame["hand"]}))
        except BaseException as exc:  # noqa: BLE001 - reported by close()
            if not self.stop.is_set():
                self.error = exc

    def close(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(5)
        if self.error is not None:
            raise self.error


def play_scripted(people: list[Person], timeout: float = 120.0) -> None:
    """Every person follows :func:`first_claim` by clicking until each sees the settlement (the tests' fixed
    deals were picked for that policy); on timeout the assertion shows what each page says."""
    deadline = time.monotonic() + timeout
    while not all(p.settled() for p in people):
        assert time.monotonic() < deadline, [
            p.page.evaluate("() => document.body.innerText.slice(0, 300)") for p in people
        ]
        acted = False
        for p in people:
            if not p.settled():
                legal = p.legal()
                if legal:
                    acted = p.act(first_claim(legal)) or acted
        if not acted:
            people[0].page.wait_for_timeout(40)
