"""双倍积分卡 as inventory items (R7.3, R7.4, issue 13 §3) on a real server: none held at first; the day's
first settled hand gives one (and each level reached for the first time one more); activating it makes
every hand that starts within the hour double the holder's own 积分 gain — shown on the seat (the room's
``match.double_cards``) and in the settlement (``hand_over.double_cards``) — never its beans; cards do not
stack; each change is a ``cards`` ledger row."""

from __future__ import annotations

from typing import Any

from paohuzi.scoring import level_number

from ..support.clients import Client
from ..support.server import ServerProcess


def _quick_hand(me: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    """One quick-play hand at the 新手场, played by 托管: (the room as its hand started, the hand_over)."""
    me.frames.clear()
    me.api("POST", "/api/rooms/quick", {"tier": "novice", "hands": 1}, expect=201)
    me.connect()
    me.send({"type": "auto", "on": True})
    room = me.expect("room", where=lambda f: f["room"]["match"] is not None)["room"]
    over = me.expect("hand_over", timeout=60)
    me.expect("match_over", timeout=60)
    me.close()
    return room, over


def test_cards_are_granted_activated_and_double_only_the_holders_gain(server: ServerProcess) -> None:
    me = Client(server)
    assert me.api("GET", "/api/me/double-cards") == {
        "cards": {"held": 0, "active_since": None, "active_until": None, "seconds_left": 0},
        "card_seconds": 3600.0,
    }
    err = me.api("POST", "/api/me/double-cards/activate", expect=409)["error"]
    assert err == {"code": "no_card", "message": "you hold no 双倍积分卡"}

    room, over = _quick_hand(me)
    assert room["match"]["double_cards"] == [] and over["double_cards"] == []
    points = over["deltas"][0]
    levels = max(0, level_number(points) - 1)  # R7.4: a card per level reached for the first time
    cards = me.api("GET", "/api/me/double-cards")["cards"]
    assert cards["held"] == 1 + levels and cards["active_until"] is None
    ledger = [(e["reason"], e["amount"], e["balance_after"], e["hand_id"]) for e in _cards_ledger(me)]
    expect = [("daily", 1, 1, over["hand"])] + ([("level", levels, 1 + levels, over["hand"])] if levels else [])
    assert ledger == list(reversed(expect))

    on = me.api("POST", "/api/me/double-cards/activate")
    assert on["cards"]["held"] == levels and on["cards"]["seconds_left"] == 3600
    assert on["cards"]["active_since"] is not None and on["cards"]["active_until"] > on["cards"]["active_since"]
    err = me.api("POST", "/api/me/double-cards/activate", expect=409)["error"]
    assert err["code"] == "card_active" and "do not stack" in err["message"]
    assert me.api("GET", "/api/me/double-cards")["cards"]["held"] == levels

    # a hand that starts while the card is active: the seat holds it (R7.3), shown on the seat and settled
    room, over = _quick_hand(me)
    assert room["match"]["double_cards"] == [0] and over["double_cards"] == [0]
    deltas, beans = over["deltas"], over["beans"]
    if over["outcome"]["winner"] == 0:
        assert deltas[0] == 2 * -(deltas[1] + deltas[2])  # own gain doubled; the others pay what they owe
        stake = room["options"]["stake"]
        assert beans[0] == -(beans[1] + beans[2]) == -(deltas[1] + deltas[2]) // stake  # beans never doubled
    else:
        assert sum(deltas) == 0 and sum(beans) == 0  # a loss is never doubled
    replay = me.api("GET", f"/api/replays/{over['hand']}?steps=false")["record"]
    assert replay["double_cards"] == [0]
    reasons = [e["reason"] for e in _cards_ledger(me)]
    assert "activate" in reasons and reasons.count("daily") == 1  # one daily card a UTC day

    # a bot never holds a card, and nobody else's cards are readable: the route is only one's own
    other = Client(server)
    assert other.api("GET", "/api/me/double-cards")["cards"]["held"] == 0
    server.api("GET", "/api/me/double-cards", expect=401)


def _cards_ledger(me: Client) -> list[dict[str, Any]]:
    return list(me.api("GET", "/api/me/ledger?currency=cards")["entries"])
