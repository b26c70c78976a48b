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

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..support.server import ServerProcess, running_web
from .helpers import Friend, Person, first_claim
from .test_browser import PHONE, _no_errors

SEED = 0  # filled in below with the searched seed

DESKTOP = {"viewport": {"width": 1280, "height": 800}}

# Per preset: what the owner chooses in the dialog, the options the dialog shows for the family, and the
# settlement expected of the scripted hand.
CASES: dict[str, dict[str, Any]] = {}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    env = {"PAOHUZI_TESTING": "1", "PAOHUZI_TEST_MATCH_SEED": str(SEED)}
    with running_web(tmp_path_factory.mktemp("web-families"), env) as srv:
        yield srv


def _create(host: Person, preset: str, choices: dict[str, str], checks: dict[str, bool], stake: int) -> str:
    """The owner's dialog: the preset (the dialog redraws with its family's options), 1 hand, the stake, the
    family's choices; answers the room code."""
    page = host.page
    page.click("[data-action='create']")
    page.select_option(".create-sheet select[name='preset']", preset)
    page.wait_for_selector(f".create-sheet[data-family] select[name='preset'] >> xpath=..")
    page.fill(".create-sheet input[name='hands']", "1")
    page.fill(".create-sheet input[name='stake']", str(stake))
    for name, value in choices.items():
        page.select_option(f".create-sheet select[name='{name}']", value)
    for name, on in checks.items():
        page.set_checked(f".create-sheet input[name='{name}']", on)
    return page


def _family_controls(host: Person) -> list[str]:
    """The names of the rule options the dialog shows in its family box."""
    return list(
        host.page.eval_on_selector_all(
            "[data-testid='family-options'] select, [data-testid='family-options'] input", "els => els.map(e => e.name)"
        )
    )


def _play(people: list[Person], timeout: float = 120.0) -> None:
    """Both browsers follow the policy by clicking until each sees the settlement."""
    deadline = time.monotonic() + timeout
    while not all(p.settled() for p in people):
        assert time.monotonic() < deadline, [p.page.evaluate("() => document.body.innerText.slice(0, 300)") for p in people]
        acted = False
        for p in people:
            if not p.settled():
                legal = p.legal()
                if legal:
                    acted = p.act(first_claim(legal)) or acted
        if not acted:
            people[0].page.wait_for_timeout(40)
