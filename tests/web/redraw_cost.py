"""What a redraw of the table costs Chromium (docs/client.md "Drawing"; the figures are in docs/DEVELOPING.md).

    PYTHONPATH=$PWD/src .venv/bin/python -m tests.web.redraw_cost [--redraws 60] [--pairs 2]

A testing-mode server deals seed 1 (the player deals: its first decision is a discard, and the table waits
for it); a person opens quick play at 1280×800 and at 360×740 and, once the table asks for the discard, the
page redraws the unchanged table ``--redraws`` times a frame apart (``window.paohuzi.rerender()``, then a
``requestAnimationFrame``), against as many idle frames. The CPU of Chromium's renderer and GPU processes
over each (user + system, from ``/proc``: only the processes this run started) less the idle frames', per
redraw, is what a redraw costs: its script, style, layout, paint and raster.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

from ..support.server import running_web
from .conftest import CHROMIUM, PLAYER_DEALS_SEED
from .contexts import Contexts
from .helpers import Person

FRAMES = """async ([n, redraw]) => {
    for (let i = 0; i < n; i++) {
        if (redraw) window.paohuzi.rerender();
        await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
    }
}"""
TICK = os.sysconf("SC_CLK_TCK")


def _descends_from_us(pid: str) -> bool:
    for _ in range(8):
        try:
            pid = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
        except OSError:
            return False
        if pid == str(os.getpid()):
            return True
        if pid in ("0", "1"):
            return False
    return False


def chromium_cpu() -> dict[str, float]:
    """CPU seconds so far of this run's Chromium processes by type (renderer, gpu-process, browser …)."""
    out: dict[str, float] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").replace("\0", " ").split()
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if not args or "chrom" not in args[0] or not _descends_from_us(pid):
            continue
        kind = next((a.split("=", 1)[1] for a in args if a.startswith("--type=")), "browser")
        out[kind] = out.get(kind, 0.0) + (int(fields[11]) + int(fields[12])) / TICK
    return out


def frames_cost(page: Any, frames: int, redraw: bool) -> float:
    """CPU seconds of the renderer and GPU processes over ``frames`` frames, each with a redraw or not."""
    before = chromium_cpu()
    page.evaluate(FRAMES, [frames, redraw])
    after = chromium_cpu()
    return sum(after.get(k, 0.0) - before.get(k, 0.0) for k in ("renderer", "gpu-process"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redraws", type=int, default=60)
    parser.add_argument("--pairs", type=int, default=2)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    env = {"PAOHUZI_TESTING": "1", "PAOHUZI_TEST_MATCH_SEED": str(PLAYER_DEALS_SEED)}
    with tempfile.TemporaryDirectory() as tmp, running_web(Path(tmp), env) as server, sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
        )
        contexts = Contexts(chromium)
        for width, height in ((1280, 800), (360, 740)):
            me = Person(contexts, server.url, Path(tmp), "redraw", viewport={"width": width, "height": height})
            me.open()
            me.page.click("[data-action='quick']")
            me.page.wait_for_selector(".hand.my-turn .card.playable")
            for _ in range(args.pairs):
                idle = frames_cost(me.page, args.redraws, redraw=False)
                drawn = frames_cost(me.page, args.redraws, redraw=True)
                print(
                    f"{width}x{height}: {1000 * (drawn - idle) / args.redraws:.1f} ms of CPU a redraw "
                    f"({drawn:.2f} s for {args.redraws} frames with a redraw, {idle:.2f} s idle)"
                )
            me.close()
        contexts.close()
        chromium.close()


if __name__ == "__main__":
    main()
