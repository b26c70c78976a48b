"""A room's options (:class:`paohuzi.server.room_options.RoomOptions`, docs/protocol.md §2): resolved from a
lobby request once, stored and read back unchanged, rooms of older servers included; bad stored options
are refused naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from paohuzi.rules import find_preset
from paohuzi.server import protocol as p
from paohuzi.server.config import Settings
from paohuzi.server.frames import RoomError
from paohuzi.server.room_options import RoomOptions, RoomOptionsError, room_options

SETTINGS = Settings()


def test_a_private_room_s_options_as_stored() -> None:
    body = p.RoomOptionsIn(preset="hunan", four_players=True, hands=6, turn_seconds=7, cap=100, tier="novice")
    options = room_options(SETTINGS, body, quick=False)
    assert options.to_dict() == {
        "preset": "hunan",
        "four_players": True,
        "hands": 6,
        "stake": 1,
        "turn_seconds": 7.0,
        "claim_seconds": 10.0,
        "bots_fill": True,
        "hints": True,
        "bot_level": "normal",
        "tier": "novice",
        "multiplier": 1,
        "minimum": 100,
        "rules": find_preset("hunan").with_options(four_players=True, rounds=6, cap=100).to_dict(),
    }
    assert options.rules.rounds == 6  # R8.1 局数: the stored rules say what the room plays


@pytest.mark.parametrize(
    ("body", "quick"),
    [
        (p.QuickPlayIn(), True),
        (p.QuickPlayIn(preset="hunan", hands=2, bot_level="大师", tier="senior"), True),
        (p.RoomOptionsIn(), False),
        (p.RoomOptionsIn(stake=5, bots_fill=False, hints=False, min_huxi=18, zimo="double", must_hu=True), False),
    ],
)
def test_options_round_trip(body: p.RoomOptionsIn | p.QuickPlayIn, quick: bool) -> None:
    options = room_options(SETTINGS, body, quick)
    assert RoomOptions.from_dict(options.to_dict()) == options
    assert options.hands == (body.hands or (SETTINGS.quick_hands if quick else SETTINGS.room_hands))


def test_a_quick_play_offers_hints_and_fills_seats() -> None:
    options = room_options(SETTINGS, p.QuickPlayIn(bot_level="高手"), quick=True)
    assert (options.hints, options.bots_fill, options.bot_level) == (True, True, "expert")
    public = options.public()
    assert (public.hints, public.bots_fill, public.tier) == (False, True, options.tier)


def test_a_room_stored_by_the_first_server_loads_with_the_defaults_it_played() -> None:
    old: dict[str, Any] = {
        "preset": "qq",
        "four_players": False,
        "hands": 8,
        "stake": 3,
        "turn_seconds": 20,
        "claim_seconds": 10,
        "bots_fill": False,
        "rules": find_preset("qq").to_dict(),
    }
    options = RoomOptions.from_dict(old)
    assert (options.hints, options.bot_level, options.tier, options.multiplier, options.minimum) == (
        True,
        None,
        "practice",
        0,
        0,
    )
    assert (options.turn_seconds, options.bots_fill) == (20.0, False)


def test_bad_request_options_are_refused_naming_them() -> None:
    with pytest.raises(RoomError, match="no tier 'vip'"):
        room_options(SETTINGS, p.QuickPlayIn(tier="vip"), quick=True)
    with pytest.raises(RoomError, match="four_players"):
        room_options(SETTINGS, p.RoomOptionsIn(four_players=True), quick=False)  # qq has no 4 players (R8.1)


GOOD = room_options(SETTINGS, p.RoomOptionsIn(), quick=False).to_dict()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"hands": "8"}, "hands must be an integer, got '8'"),
        ({"hands": True}, "hands must be an integer, got True"),
        ({"hands": 0}, "hands must be positive, got 0"),
        ({"turn_seconds": "fast"}, "turn_seconds must be a number of seconds, got 'fast'"),
        ({"claim_seconds": -1}, "claim_seconds must be positive"),
        ({"hints": 1}, "hints must be true or false, got 1"),
        ({"tier": "vip"}, "tier: no tier 'vip'"),
        ({"bot_level": 3}, "bot_level must be a string or null, got 3"),
        ({"rules": "qq"}, "rules must be an object, got 'qq'"),
        ({"rules": {"name": "qq", "cap": 7}}, "rules: .*cap"),
        ({"colour": "red"}, r"unknown fields \['colour'\]"),
    ],
)
def test_bad_stored_options_are_refused_naming_the_field(change: dict[str, Any], message: str) -> None:
    with pytest.raises(RoomOptionsError, match=f"room options: {message}"):
        RoomOptions.from_dict({**GOOD, **change})


def test_a_missing_field_is_named() -> None:
    data = {k: v for k, v in GOOD.items() if k != "claim_seconds"}
    with pytest.raises(RoomOptionsError, match="room options: claim_seconds is missing"):
        RoomOptions.from_dict(data)
