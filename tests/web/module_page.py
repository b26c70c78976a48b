"""A page that loads the client's modules without a server: ``src/paohuzi/web`` served by Playwright's
``context.route`` on a made-up origin, for the tests of the client's pure parts (test_reducer.py,
test_morph.py)."""

from __future__ import annotations

import mimetypes
from collections.abc import Iterator
from typing import Any

from .make_font import WEB

ORIGIN = "http://client.test"


def module_page(browser: Any, title: str, harness: str) -> Iterator[Any]:
    """A page of :data:`ORIGIN` in a context of its own (``browser.new_context()``), with ``harness`` (an
    async function's body: its imports put the modules on ``window``) run once; closed after, failing if the
    page raised an error meanwhile. For a fixture: ``yield from module_page(browser, "…", _HARNESS)``."""
    context = browser.new_context()

    def serve(route: Any) -> None:
        path = route.request.url[len(ORIGIN) :].split("?", 1)[0]
        if path == "/blank.html":
            route.fulfill(status=200, content_type="text/html", body=f"<!doctype html><title>{title}</title>")
            return
        file = (WEB / path.lstrip("/")).resolve()
        if WEB not in file.parents or not file.is_file():
            route.fulfill(status=404, body="not found")
            return
        kind = "text/javascript" if file.suffix == ".js" else mimetypes.guess_type(file.name)[0] or "text/plain"
        route.fulfill(status=200, content_type=kind, body=file.read_bytes())

    context.route(f"{ORIGIN}/**", serve)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda err: errors.append(str(err)))
    pg.goto(f"{ORIGIN}/blank.html")
    pg.evaluate(f"async () => {{ {harness} }}")
    yield pg
    context.close()
    assert not errors, errors
