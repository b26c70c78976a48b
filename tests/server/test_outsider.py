"""An outsider walks every route of /openapi.json (issue 13, security): with no token and with a token of
its own, every method, path parameters filled with the victim's ids. No answer may reveal the victim's
session (token, session ids, user agent), password hash, username, bean history (ledger) or the code of
the victim's private room."""

from __future__ import annotations

import re
from typing import Any

import httpx

from ..support.clients import Client
from ..support.server import HTTP, ServerProcess

VICTIM_AGENT = "VictimBrowser/9.9 (secret-device)"


def _strings(data: Any) -> list[tuple[str, str]]:
    """Every (key, string value) in a JSON document (key '' for list items)."""
    out: list[tuple[str, str]] = []

    def walk(node: Any, key: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str):
            out.append((key, node))

    walk(data, "")
    return out


def _keys(data: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(data, dict):
        for k, v in data.items():
            found.add(k)
            found |= _keys(v)
    elif isinstance(data, list):
        for v in data:
            found |= _keys(v)
    return found


def _rows_with(data: Any, key: str) -> list[dict[str, Any]]:
    """Every object in a JSON document that has ``key``."""
    found: list[dict[str, Any]] = []
    if isinstance(data, dict):
        if key in data:
            found.append(data)
        for v in data.values():
            found += _rows_with(v, key)
    elif isinstance(data, list):
        for v in data:
            found += _rows_with(v, key)
    return found


def test_no_route_reveals_another_players_secrets(server: ServerProcess) -> None:
    with httpx.Client(timeout=30, limits=httpx.Limits(max_keepalive_connections=0)) as outsider_http:
        _no_route_reveals(server, outsider_http)


def _no_route_reveals(server: ServerProcess, outsider_http: httpx.Client) -> None:
    # the victim: a claimed account with two sessions, a finished match in a private room, bean history
    victim = Client(server, nickname="受害者")
    victim.api("POST", "/api/me/claim", {"username": "victim_zz", "password": "a long secret pw"})
    login = HTTP.post(
        server.url + "/api/login",
        json={"username": "victim_zz", "password": "a long secret pw"},
        headers={"User-Agent": VICTIM_AGENT},
    ).json()
    second_token = login["token"]
    room = victim.api("POST", "/api/rooms", {"hands": 1, "tier": "novice"}, expect=201)["room"]
    code = room["code"]
    victim.connect()
    victim.send({"type": "start"})
    victim.send({"type": "auto", "on": True})
    over = victim.expect("hand_over", timeout=60)
    victim.expect("match_over", timeout=60)
    victim.close()
    account = victim.api("GET", "/api/me/account")
    session_ids = {s["id"] for s in account["sessions"]}
    ledger_ids = {e["id"] for e in victim.api("GET", "/api/me/ledger")["entries"]}
    assert len(ledger_ids) >= 2  # there is a bean history to protect
    match_id = victim.api("GET", "/api/me/history")["matches"][0]["id"]
    victim_id = victim.id
    ids = {
        "player_id": victim_id,
        "match_id": match_id,
        "hand_id": over["hand"],
        "session_id": min(session_ids),
        "code": "000000" if code != "000000" else "000001",  # an outsider does not know the code
    }

    outsider = Client(server)
    spec = server.api("GET", "/openapi.json")
    calls = 0
    routes = [(path, method) for path, methods in spec["paths"].items() for method in methods]
    last = ("delete", "logout")  # the outsider logs itself out or deletes itself at the end only
    routes.sort(key=lambda r: (any(w in r[0] + r[1] for w in last), r))
    for path, method in routes:
        url = re.sub(r"\{(\w+)\}", lambda m: str(ids.get(m.group(1), 1)), path)
        for token in (None, outsider.token):
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            # One client for the ~140 calls (a client per call built a TLS context each: ~3 s of CPU here),
            # with nothing kept from one call to the next, as a fresh client would: no cookie, no connection.
            outsider_http.cookies.clear()
            r = outsider_http.request(method.upper(), server.url + url, headers=headers)
            calls += 1
            text = r.text
            for secret in (victim.token, second_token, "$argon2", VICTIM_AGENT, "victim_zz"):
                assert secret not in text, (method, url, secret)
            try:
                data = r.json()
            except ValueError:
                continue
            for key, value in _strings(data):
                assert value != code and f"room={code}" not in value, (method, url, key)
            keys = _keys(data)
            if "balance_after" in keys:  # the outsider's own ledger only (GET /api/me/ledger, /api/me/profile)
                assert not ledger_ids & {e.get("id") for e in _rows_with(data, "balance_after")}, (method, url)
            if "sessions" in keys:
                assert not session_ids & {s.get("id") for s in data.get("sessions", [])}, (method, url)
            assert "password_hash" not in keys and "token_hash" not in keys, (method, url)
    assert calls >= 2 * 25
    # and the victim is untouched: its sessions all live, its room code still its own
    assert {s["id"] for s in victim.api("GET", "/api/me/account")["sessions"]} == session_ids
    assert victim.api("GET", "/api/me/history")["matches"][0]["room_code"] == code
