"""The browser contexts of a worker's one Chromium, lent to the tests' people and reused (the fast loop,
docs/DEVELOPING.md).

A person (``helpers.Person``) needs a browser of their own: their own token and language in ``localStorage``,
their own cookies. A new context for each cost a renderer process started and set up for its first page: a
person opened in a new context (the lobby shown, then closed) took 1.65–1.68 s of CPU, Chromium's and
Playwright's driver's together. So a context is lent, and comes back *clean* or not at all: the person's
pages are closed (and with them what was set on a page: emulated media, viewport, routes, init scripts, CDP
sessions, handlers, ``sessionStorage``), the ``localStorage`` of every origin a page showed is cleared and
checked empty — from the context's *parked* page, at the origin's icon, a document that runs no client — and
the cookies are cleared and checked; otherwise the context is closed and never lent again. The parked page
stays on the last origin's icon, so the next person's page of that origin starts in a renderer process that
is already up: a person in a lent context, 0.84–0.90 s of CPU (2026-12-06, load 8–10). What a lent context
keeps is the HTTP cache and the compiled scripts of the origins it showed, as a returning browser does: the
client's files, which the server serves alike to everyone. The client keeps nothing else in the browser
(``localStorage`` only: api.js, i18n.js, replay.js).

A test that needs a context for itself (its own routes, say) asks :meth:`Contexts.new_context`: that one is
never lent.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit


class Contexts:
    """Chromium's contexts, lent by their options (locale, mobile, touch, scale …: what a context cannot change
    once made; the viewport is the page's), each to one person at a time."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self._free: dict[str, list[Any]] = {}
        self._parked: dict[int, Any] = {}  # id(context) → its parked page
        self.made = 0
        self.lent = 0

    def new_context(self, **options: Any) -> Any:
        """A context of one's own, closed by its user (or with the browser), never lent."""
        return self.browser.new_context(**options)

    def lend(self, **options: Any) -> Any:
        """A context with these options, no cookie and no stored data, and only its parked page: a free one,
        else a new one."""
        free = self._free.get(_key(options))
        self.lent += 1
        if free:
            return free.pop()
        self.made += 1
        context = self.browser.new_context(**options)
        self._parked[id(context)] = context.new_page()
        return context

    def take_back(self, context: Any, options: dict[str, Any], origins: set[str]) -> None:
        """End a person's use of ``context``, which showed ``origins``: clean, it is lent again; otherwise (a
        page that would not leave, data that stayed) it is closed."""
        from playwright.sync_api import Error as PlaywrightError

        parked = self._parked.pop(id(context), None)
        try:
            clean = parked is not None and _clean(context, parked, origins)
        except PlaywrightError:
            clean = False
        if clean:
            self._parked[id(context)] = parked
            self._free.setdefault(_key(options), []).append(context)
        else:
            context.close()

    def close(self) -> None:
        """Close the free contexts (the lent ones close with the browser)."""
        for free in self._free.values():
            for context in free:
                context.close()
        self._free.clear()
        self._parked.clear()


def origin_of(url: str) -> str | None:
    """``scheme://host:port`` of an http(s) URL, else None (about:blank, data:)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else None


def _clean(context: Any, parked: Any, origins: set[str]) -> bool:
    """Close the person's pages (the client stops), and from the parked page clear each origin's
    ``localStorage`` — at a document of the origin that runs no client, its icon — and the cookies; True when
    only the parked page is left, and no cookie or ``localStorage`` entry."""
    for page in context.pages:
        if page is not parked:
            page.close()
    left = 0
    for origin in sorted(origins):
        parked.goto(origin + "/favicon.svg", timeout=10_000)  # a server gone: an error, and the context closed
        left += parked.evaluate("() => { localStorage.clear(); return localStorage.length; }")
    context.clear_cookies()
    return not left and context.pages == [parked] and not context.cookies()


def _key(options: dict[str, Any]) -> str:
    return repr(sorted(options.items()))
