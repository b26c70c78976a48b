"""The browser part of deploy/walk.sh: Chromium opens the site on nginx's port (a self-signed certificate:
the one thing a real visitor would have been asked to accept), and a script of that page — under the page's
own Content-Security-Policy, with the URL the web client builds (``location.host``, port included) — plays a
quick-play match against the computers over the websocket, reconnecting at once whenever the socket is
closed (a rolling restart). Prints one JSON line: hands played, reconnect times, CSP violations.

    python deploy/walk_browser.py https://localhost:18443 /tmp/playing   # the file appears once dealt

Needs Playwright (the dev extra) and Chromium (/usr/bin/chromium or $CHROMIUM).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

PLAYER = """
async ([hands]) => {
  const j = async (method, path, token, body) => {
    const r = await fetch(path, {method, headers: Object.assign({"content-type": "application/json"},
      token ? {authorization: "Bearer " + token} : {}), body: body ? JSON.stringify(body) : undefined});
    if (!r.ok) throw new Error(method + " " + path + ": " + r.status + " " + await r.text());
    return r.json();
  };
  const guest = await j("POST", "/api/guests", null, {nickname: "walk"});
  const token = guest.token;
  await j("POST", "/api/rooms/quick", token, {hands});
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;  // as net.js
  const out = {url, overs: 0, reconnects: [], closes: [], frames: 0, errors: []};
  let id = 0;
  return await new Promise((resolve, reject) => {
    const open = (lostAt) => {
      const ws = new WebSocket(url);
      ws.onopen = () => ws.send(JSON.stringify({type: "hello", token}));
      ws.onerror = () => {};
      ws.onclose = (ev) => {
        if (out.done) return;
        out.closes.push(ev.code);
        open(lostAt === null ? performance.now() : lostAt);  // at once, as often as needed
      };
      ws.onmessage = (msg) => {
        const f = JSON.parse(msg.data);
        out.frames += 1;
        if (f.type === "welcome" && lostAt !== null) { out.reconnects.push(performance.now() - lostAt); lostAt = null; }
        if (f.type === "game") window.walkPlaying(f.hand);
        if (f.type === "error") out.errors.push(f.code);
        if (f.type === "hand_over") out.overs += 1;
        if (f.type === "match_over") { out.done = true; ws.close(); resolve(out); return; }
        if ((f.type === "game" || f.type === "update") && f.view.legal.length) {
          const action = f.view.legal.find((a) => a !== "hu") || f.view.legal[0];
          ws.send(JSON.stringify({type: "act", action, hand: f.hand, id: ++id}));
        }
      };
    };
    open(null);
    setTimeout(() => reject(new Error("no match_over within 10 minutes: " + JSON.stringify(out))), 600000);
  });
}
"""


def main(origin: str, marker: str) -> int:
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"])
        context = browser.new_context(ignore_https_errors=True)  # the walk's self-signed certificate
        page = context.new_page()
        page.add_init_script(
            "window.__csp = []; document.addEventListener('securitypolicyviolation',"
            " (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
        )
        page.expose_function("walkPlaying", lambda hand: Path(marker).write_text(str(hand)))
        response = page.goto(origin + "/")
        assert response is not None and response.ok, response
        csp = response.headers.get("content-security-policy", "")
        result = page.evaluate(PLAYER, [2])
        result["csp_violations"] = page.evaluate("window.__csp")
        result["connect_src"] = next((p.strip() for p in csp.split(";") if p.strip().startswith("connect-src")), "")
        result["reconnects"] = [round(ms) for ms in result["reconnects"]]
        browser.close()
    print(json.dumps(result))
    return 0 if result["overs"] == 2 and not result["csp_violations"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
