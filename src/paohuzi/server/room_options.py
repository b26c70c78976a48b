"""A room's options: a lobby request (``POST /api/rooms``, ``/api/rooms/quick``, a public table) resolved
against its preset (R8), the house options (R8.1), the tier (R7.3) and the server's defaults.

The stored rules say what the room plays: their ``rounds`` (R8.1 局数) is the room's ``hands``, not the
preset's default.
"""

from __future__ import annotations

from typing import Any

from paohuzi.bots import BotError, levels
from paohuzi.rules import RuleSetError, find_preset
from paohuzi.server import economy
from paohuzi.server import protocol as p
from paohuzi.server.config import Settings
from paohuzi.server.frames import RoomError

__all__ = ["bot_level", "room_options"]


def room_options(settings: Settings, body: p.RoomOptionsIn | p.QuickPlayIn, quick: bool) -> dict[str, Any]:
    """The options of a new room (docs/protocol.md §2). :raises RoomError: ``invalid`` (422) naming the bad
    option, tier or computer level."""
    s = settings
    hands = body.hands or (s.quick_hands if quick else s.room_hands)
    try:
        rules = find_preset(body.preset)
        four = bool(getattr(body, "four_players", False))
        stake = getattr(body, "stake", None)
        house = {k: getattr(body, k) for k in p.HOUSE_OPTIONS if getattr(body, k, None) is not None}
        stake = rules.stake if stake is None else stake
        rules = rules.with_options(four_players=four, stake=stake, rounds=hands, **house)
    except RuleSetError as exc:
        raise RoomError("invalid", str(exc), 422) from None
    try:
        tier = economy.find_tier(body.tier)
    except KeyError as exc:
        raise RoomError("invalid", str(exc.args[0]), 422) from None
    turn = getattr(body, "turn_seconds", None)
    claim = getattr(body, "claim_seconds", None)
    return {
        "preset": rules.name,
        "four_players": rules.four_players,
        "hands": hands,
        "stake": rules.stake,
        "turn_seconds": s.turn_seconds if turn is None else turn,
        "claim_seconds": s.claim_seconds if claim is None else claim,
        "bots_fill": bool(getattr(body, "bots_fill", True)),
        "hints": bool(getattr(body, "hints", True)),
        "bot_level": bot_level(settings, body.bot_level),
        "tier": tier.name,
        "multiplier": tier.multiplier,
        "minimum": tier.minimum,
        "rules": rules.to_dict(),
    }


def bot_level(settings: Settings, name: str | None) -> str:
    """The computers' level (issue #16: 入门 普通 高手 大师, :mod:`paohuzi.bots.levels`) by key or name;
    none given: the server's ``bot_name``. :raises RoomError: ``invalid`` (422) for an unknown level."""
    if name is None:
        return settings.bot_name
    try:
        return levels.level(name).key
    except BotError as exc:
        raise RoomError("invalid", str(exc), 422) from None
