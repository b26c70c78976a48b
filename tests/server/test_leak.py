"""Hidden information never leaks (R5, issue #5 acceptance): over 200 bot-played hands, no frame sent to a
seat carries another seat's hand cards, a 偎's kind or the stock — checked against the referee's state,
rebuilt from each hand's stored record, at the exact action each frame was sent after.

Four tables of three real websocket clients each play a 50-hand match in 托管 (the server's bots make every
decision), and every frame each seat received is checked."""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paohuzi.engine import Hand
from paohuzi.rules import RuleSet
from paohuzi.scoring import scored_waits

from ..support.clients import Client
from ..support.server import ServerProcess, running
from .play import seed_of

TABLES = 4
HANDS = 50
CARD = re.compile(r"^[xd](10|[1-9])$")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir: Path = tmp_path_factory.mktemp("server")
    # the random bot: these hands are about what each seat is sent, not about how well they are played
    env = {"PAOHUZI_BOT_DELAY": "0", "PAOHUZI_BETWEEN_HANDS": "0", "PAOHUZI_BOT_NAME": "random"}
    with running(workdir, env=env) as proc:
        yield proc


def _table(server: ServerProcess) -> list[Client]:
    clients = [Client(server) for _ in range(3)]
    code = clients[0].api("POST", "/api/rooms", {"hands": HANDS}, expect=201)["room"]["code"]
    for c in clients[1:]:
        c.api("POST", f"/api/rooms/{code}/join")
    for c in clients:
        c.connect()
    return clients


def _watch(client: Client, errors: list[BaseException]) -> None:
    """Turn 托管 on as soon as the match starts, then just read every frame until the match is over."""
    try:
        client.send({"type": "ready", "ready": True})
        client.expect("game", timeout=60)
        client.send({"type": "auto", "on": True})
        client.expect("match_over", timeout=240)
    except BaseException as exc:  # noqa: BLE001
        errors.append(exc)


def _tokens(value: Any, out: Counter[str]) -> None:
    """Every card token anywhere in a frame (inside action strings too)."""
    if isinstance(value, str):
        for token in re.split(r"[\s|]+", value):
            if CARD.match(token):
                out[token] += 1
    elif isinstance(value, dict):
        for v in value.values():
            _tokens(v, out)
    elif isinstance(value, list):
        for v in value:
            _tokens(v, out)


def _visible(ref: dict[str, Any], seat: int) -> Counter[str]:
    """What ``seat`` may see of the cards now (R5): its hand, every discard row, every table group except
    another seat's 偎, the card on offer."""
    seen: Counter[str] = Counter(ref["hands"][seat])
    for row in ref["rows"]:
        seen.update(x["card"] for x in row)
    for s, groups in enumerate(ref["tables"]):
        for g in groups:
            if g["kind"] == "wei" and s != seat:
                continue
            seen.update(g["cards"])
    if ref["pending"] is not None:
        seen[ref["pending"]["card"]] += 1
    return seen


def _view_cards(view: dict[str, Any]) -> Counter[str]:
    shown: Counter[str] = Counter(view["hand"])
    for row in view["rows"]:
        shown.update(x["card"] for x in row)
    for groups in view["tables"]:
        for g in groups:
            if g["cards"] is not None:
                shown.update(g["cards"])
    if view["pending"] is not None:
        shown[view["pending"]["card"]] += 1
    return shown


def _check_frame(frame: dict[str, Any], seat: int, ref: dict[str, Any], hand: Hand) -> None:
    view = frame["view"]
    where = f"hand {frame['hand']} seq {frame['seq']} seat {seat}"
    # another seat's claim timer would tell that it may 碰/吃 (R5): only discard timers are shared
    assert all(t["seat"] == seat or t["kind"] == "discard" for t in frame["timers"]), where
    assert view["seat"] == seat, where
    assert "hands" not in view and "stock_cards" not in view, where
    assert view["hand"] == ref["hands"][seat], where
    # the view holds exactly the cards the seat may see, no more
    assert _view_cards(view) == _visible(ref, seat), where
    for s, groups in enumerate(view["tables"]):
        for g in groups:
            if g["kind"] == "wei" and s != seat:
                assert g["cards"] is None, f"{where}: a 偎's kind shown"
    for event in frame.get("events", []):
        kind = event["type"]
        if kind == "deal":
            assert all(h is None for s, h in enumerate(event["hands"]) if s != seat), f"{where}: dealt hands"
        elif kind == "draw" and event["seat"] != seat:
            assert event["card"] is None, f"{where}: another seat's draw"
        elif kind == "wei" and event["seat"] != seat and not event["chou"]:
            assert event["card"] is None, f"{where}: a 偎's kind in an event"
        assert kind not in ("hu", "draw_game", "escape"), f"{where}: end-of-hand event before the end"
    # no card kind the seat cannot see at all (every copy hidden) appears anywhere in the frame
    seen = _visible(ref, seat)
    seen[ref["liangzhang"]] += 1
    hidden = {k for k in ("x" + str(p) for p in range(1, 11))} | {"d" + str(p) for p in range(1, 11)}
    hidden -= set(seen)
    # the 听牌 hint comes from the seat's own cards only (it may name any kind: what would complete them)
    expected = [
        {"card": str(c), "huxi": w.huxi, "points": w.points}
        for c, w in scored_waits(hand.hand_of(seat), hand.table_of(seat), hand.rules)
    ]
    assert frame["waits"] == expected, where
    found: Counter[str] = Counter()
    _tokens({k: v for k, v in frame.items() if k != "waits"}, found)
    leaked = hidden & set(found)
    assert not leaked, f"{where}: cards {sorted(leaked)} are hidden from this seat"


@pytest.mark.soak  # 200 bot hands over websockets
def test_no_frame_leaks_hidden_cards_over_200_bot_hands(server: ServerProcess) -> None:
    tables = [_table(server) for _ in range(TABLES)]
    errors: list[BaseException] = []
    threads = [threading.Thread(target=_watch, args=(c, errors)) for t in tables for c in t]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]

    checked = hands = 0
    for clients in tables:
        match_id = clients[0].frames[-1]["match"]
        summary = server.api("GET", f"/api/matches/{match_id}")["match"]
        hand_ids = {h["id"] for h in summary["hands"]}
        assert len(hand_ids) == HANDS and summary["status"] == "finished"
        for c in clients:
            # every game frame this client got belongs to its own table's match
            assert {f["hand"] for f in c.frames if "hand" in f and f["type"] != "error"} <= hand_ids
        for hand_id in sorted(hand_ids):
            record = clients[0].api("GET", f"/api/replays/{hand_id}?steps=false")["record"]
            frames: dict[int, list[dict[str, Any]]] = {}
            for c in clients:
                mine = [f for f in c.frames if f["type"] in ("game", "update") and f["hand"] == hand_id]
                if mine:
                    frames[mine[0]["view"]["seat"]] = mine
            for seat, mine in frames.items():
                for prev, f in zip(mine, mine[1:], strict=False):
                    # no frame unless something the seat may see changed (another's 过 is not told, R5)
                    assert f["events"] or f["view"] != prev["view"] or "id" in f, f"empty update to {seat}"
            checked += _check_hand(record, frames)
            _seed_hidden_until_over(clients, hand_id, record)
            hands += 1
    assert hands >= 200 and checked > 200 * 20


def _seed_hidden_until_over(clients: list[Client], hand_id: int, record: dict[str, Any]) -> None:
    """可验证发牌 (issue 32): the hand's server seed is in no frame any seat got before its ``hand_over``."""
    secret = record["fair"]["server_seed"]
    for c in clients:
        end = next(i for i, f in enumerate(c.frames) if f["type"] == "hand_over" and f["hand"] == hand_id)
        assert not any(secret in json.dumps(f) for f in c.frames[:end]), f"hand {hand_id}: server seed sent early"
        assert c.frames[end]["deal"]["server_seed"] == secret


def _check_hand(record: dict[str, Any], frames: dict[int, list[dict[str, Any]]]) -> int:
    """Replay the hand from its record; each seat's frames, in order, must each be that seat's view at some
    step (the steps they were sent at), and must pass :func:`_check_frame` against the referee there."""
    hand = Hand(RuleSet.from_dict(record["rules"]), seed_of(record), record["dealer"])
    next_frame = dict.fromkeys(frames, 0)
    checked = 0
    for k in range(len(record["actions"]) + 1):
        if k:
            hand.apply(*record["actions"][k - 1])
        if hand.over:
            break
        ref = hand.referee_view()
        for seat, mine in frames.items():
            i = next_frame[seat]
            if i < len(mine) and mine[i]["view"] == hand.observation(seat).to_dict():
                _check_frame(mine[i], seat, ref, hand)
                next_frame[seat] = i + 1
                checked += 1
    for seat, mine in frames.items():
        left = mine[next_frame[seat] :]
        # only the last update (the one that ends the hand, every hand shown) is not a mid-hand view
        assert all(f["view"]["phase"] == "over" for f in left), f"seat {seat}: frames match no state"
    return checked
