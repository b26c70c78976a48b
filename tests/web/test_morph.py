"""The incremental redraw (web/js/dom.js ``morph``), without a server: Chromium loads ``dom.js`` and ``table.js``
from ``src/paohuzi/web`` (Playwright's ``page.route`` on a made-up origin, as test_reducer.py does), draws the
table of a real deal (seed 1, seat 0's view: it deals and discards first) into the page, draws it again from
another state and morphs the page into it, and a MutationObserver tells exactly what the redraw changed.

A redraw of the same state touches no node; lifting a card changes that card's class and ``aria-pressed``
only; a card drawn from the stock changes the stock's number only. The morph's own rules: handlers follow the
latest drawing, a field keeps what the person typed (and the focus) unless the app draws another value, an
opened ``<details>`` stays open, a button that now means something else is another element, and a ``fresh``
element (an entrance animation) is put in anew, once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from paohuzi.engine import Hand
from paohuzi.rules import find_preset

from .module_page import module_page

_HARNESS = """
window.D = await import("/js/dom.js");
window.T = await import("/js/table.js");
const nodes = (root) => {
  const out = [];
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) out.push(n);
  return out;
};
// where a change landed: a hand card by its key, another element by its class, a text by its parent's
const where = (n) => {
  const el = n.nodeType === Node.TEXT_NODE ? n.parentElement : n;
  const name = el.dataset.key ? `card ${el.dataset.key}` : el.getAttribute("class") || el.tagName.toLowerCase();
  return n.nodeType === Node.TEXT_NODE ? `text of ${name}` : name;
};
window.drawTable = (view, selected) => window.T.renderTable(
  { view, seat: 0, hand: 11, timers: [], scores: [0, 0, 0], auto: [false, false, false], number: 1 },
  { room: null, names: ["小明", "电脑2", "阿强"], selected, prev: null,
    onCard() {}, onDragDiscard() {}, onClaim() {}, onChooseChi() {} },
);
// Draw `first` into the page, morph the page into `second`: the changes seen, the nodes before, and how many
// of them are still in the page after (the same objects), and how many nodes are new.
window.redraw = (first, second) => {
  const host = document.createElement("div");
  document.body.replaceChildren(host);
  window.D.mount(host, first());
  const before = nodes(host);
  const seen = new MutationObserver(() => {});
  seen.observe(host, { subtree: true, childList: true, attributes: true, characterData: true });
  window.D.morph(host.firstChild, second());
  const records = seen.takeRecords();
  seen.disconnect();
  const after = new Set(nodes(host));
  const changes = records.map((r) => [r.type, r.attributeName || "", where(r.target)]);
  return { changes, nodes: before.length, kept: before.filter((n) => after.has(n)).length, after: after.size };
};
"""


@pytest.fixture(scope="module")
def page(browser: Any) -> Iterator[Any]:
    """A page of the made-up origin with dom.js (``D``) and table.js (``T``) loaded, and ``redraw``."""
    yield from module_page(browser, "morph", _HARNESS)


@pytest.fixture(scope="module")
def view() -> dict[str, Any]:
    """Seat 0's view of a real deal (seed 1): the dealer, to discard."""
    seen: dict[str, Any] = Hand(find_preset("qq"), seed=1).observation(0).to_dict()
    assert any(a.startswith("discard ") for a in seen["legal"])
    return seen


def redraw(page: Any, first: str, second: str, arg: Any = None) -> dict[str, Any]:
    """Draw the table ``first`` (a JS expression of ``arg``), morph it into ``second``: what changed."""
    out: dict[str, Any] = page.evaluate(f"arg => window.redraw(() => {first}, () => {second})", arg)
    return out


def test_the_same_state_redrawn_changes_no_node(page: Any, view: dict[str, Any]) -> None:
    out = redraw(page, "window.drawTable(arg, null)", "window.drawTable(arg, null)", view)
    assert out["changes"] == []
    assert out["kept"] == out["nodes"] == out["after"]
    assert page.locator(".hand .card").count() == 21  # the whole table was drawn: the dealer's 21 cards
    assert out["nodes"] > 150


def test_a_lifted_card_changes_that_card_only(page: Any, view: dict[str, Any]) -> None:
    card = page.evaluate(
        """view => { document.body.replaceChildren(window.drawTable(view, null));
                     const el = document.querySelector('.hand .card.playable');
                     const [col, idx] = el.dataset.key.split(':').map(Number);
                     return { hand: 11, card: el.dataset.card, col, idx }; }""",
        view,
    )
    out = redraw(page, "window.drawTable(arg[0], null)", "window.drawTable(arg[0], arg[1])", [view, card])
    key = f"card {card['col']}:{card['idx']}"
    assert sorted(out["changes"]) == [["attributes", "aria-pressed", key], ["attributes", "class", key]]
    assert out["kept"] == out["nodes"] == out["after"]
    lifted = page.evaluate("() => [...document.querySelectorAll('.hand .card.selected')].map(c => c.dataset.key)")
    assert lifted == [f"{card['col']}:{card['idx']}"]


def test_a_card_drawn_from_the_stock_changes_the_stock_only(page: Any, view: dict[str, Any]) -> None:
    fewer = {**view, "stock": view["stock"] - 1}
    out = redraw(page, "window.drawTable(arg[0], null)", "window.drawTable(arg[1], null)", [view, fewer])
    assert sorted(out["changes"]) == [["attributes", "data-stock", "stock-n"], ["characterData", "", "text of stock-n"]]
    assert out["kept"] == out["nodes"] == out["after"]
    assert page.text_content(".stock-n") == str(view["stock"] - 1)


def test_handlers_follow_the_latest_drawing(page: Any) -> None:
    """The kept button calls the handler it was last drawn with (one listener per type: the table's)."""
    calls = page.evaluate(
        """() => {
            const calls = [];
            const draw = (n) => window.D.h("div", {}, window.D.h("button", { onclick: () => calls.push(n) }, "ok"));
            const host = document.createElement("div");
            document.body.replaceChildren(host);
            window.D.mount(host, draw(1));
            const button = host.querySelector("button");
            window.D.morph(host.firstChild, draw(2));
            window.D.morph(host.firstChild, draw(3));
            host.querySelector("button").click();
            return { calls, same: host.querySelector("button") === button };
        }"""
    )
    assert calls == {"calls": [3], "same": True}


def test_fields_and_details_keep_what_the_person_did_unless_drawn_otherwise(page: Any) -> None:
    out = page.evaluate(
        """() => {
            const { h, mount, morph } = window.D;
            const draw = (name, level, open) => h("form", {},
                h("input", { name: "nickname", value: name }),
                h("select", { name: "level" },
                  ["a", "b", "c"].map((v) => h("option", { value: v, selected: v === level }, v))),
                h("details", { open }, h("summary", {}, "rules"), "…"));
            const host = document.createElement("div");
            document.body.replaceChildren(host);
            mount(host, draw("小明", "a", false));
            const [input, select, details] = host.querySelectorAll("input, select, details");
            input.focus();
            input.value = "新名字";
            select.value = "c";
            details.open = true;
            morph(host.firstChild, draw("小明", "a", false)); // the same drawing: the person's stays
            const kept = [input.value, select.value, details.open, document.activeElement === input];
            morph(host.firstChild, draw("阿强", "b", false)); // the app draws another value: it wins
            const redrawn = [input.value, select.value, details.open, document.activeElement === input];
            const same = host.querySelector("input") === input && host.querySelector("select") === select;
            return { kept, redrawn, same };
        }"""
    )
    assert out == {"kept": ["新名字", "c", True, True], "redrawn": ["阿强", "b", True, True], "same": True}


def test_a_button_that_means_another_thing_and_a_fresh_card_are_new_elements(page: Any) -> None:
    out = page.evaluate(
        """() => {
            const { h, mount, morph } = window.D;
            const host = document.createElement("div");
            document.body.replaceChildren(host);
            const claims = (kinds) => h("div", {}, kinds.map((k) => h("button", { "data-action": k }, k)));
            mount(host, claims(["hu", "pass"]));
            const pass = host.querySelector("[data-action=pass]");
            morph(host.firstChild, claims(["peng", "pass"]));
            const claimed = [host.querySelector("[data-action=hu]"), host.querySelector("[data-action=pass]") === pass];
            const row = (cards, fresh) => h("div", { class: "row" },
                cards.map((c, i) => h("span", { class: `card${i === fresh ? " fresh" : ""}`, "data-card": c }, c)));
            mount(host, row(["x1", "x2"], -1));
            const [one, two] = host.querySelectorAll(".card");
            morph(host.firstChild, row(["x1", "x2", "d3"], 2)); // a card lands on the row: new, it pops in
            const fresh = host.querySelector(".fresh");
            morph(host.firstChild, row(["x1", "x2", "d3"], 2)); // the same again: not redone
            const cards = [...host.querySelectorAll(".card")];
            return { claimed, kept: cards[0] === one && cards[1] === two, freshKept: cards[2] === fresh };
        }"""
    )
    assert out == {"claimed": [None, True], "kept": True, "freshKept": True}
