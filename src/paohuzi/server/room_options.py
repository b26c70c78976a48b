"""A room's options (:class:`RoomOptions`): a lobby request (``POST /api/rooms``, ``/api/rooms/quick``, a
public table) resolved against its preset (R8), the house options (R8.1), the tier (R7.3) and the server's
defaults, validated once, then read by attribute everywhere (the room, its game, hints, the lobby).

The stored rules say what the room plays: their ``rounds`` (R8.1 局数) is the room's ``hands``, not the
preset's default. :meth:`RoomOptions.to_dict` is the JSON stored with the room and sent in its state
(docs/protocol.md §2); :meth:`RoomOptions.from_dict` reads it back, rooms stored by older servers included
(their missing fields take the defaults those servers played with).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from paohuzi.bots import BotError, levels
from paohuzi.rules import RuleSet, RuleSetError, find_preset
from paohuzi.server import economy
from paohuzi.server import protocol as p
from paohuzi.server.config import Settings
from paohuzi.server.frames import RoomError, RoomOptionsData

__all__ = ["RoomOptions", "RoomOptionsData", "RoomOptionsError", "bot_level", "room_options"]


class RoomOptionsError(ValueError):
    """Stored room options that cannot be read: the message names the bad field."""


@dataclass(frozen=True, slots=True)
class RoomOptions:
    """What a room plays and how (docs/protocol.md §2 RoomOptions): the rule set (R8, R8.1 house options),
    its 局数, the decision clocks, who fills free seats (and at which level), 提示, and the tier (场次, R7.3).

    >>> options = RoomOptions.from_dict({"preset": "qq", "four_players": False, "hands": 8, "stake": 3,
    ...     "turn_seconds": 20.0, "claim_seconds": 10.0, "bots_fill": True, "rules": {"name": "qq"}})
    >>> options.hands, options.tier, options.hints, options.rules.name
    (8, 'practice', True, 'qq')
    >>> RoomOptions.from_dict({**options.to_dict(), "hands": "8"})
    Traceback (most recent call last):
    ...
    paohuzi.server.room_options.RoomOptionsError: room options: hands must be an integer, got '8'
    """

    preset: str
    four_players: bool
    hands: int  # R8.1 局数
    stake: int  # 底分 (R7.3)
    turn_seconds: float  # a discard decision's clock
    claim_seconds: float  # a claim decision's clock (胡/碰/吃/过)
    bots_fill: bool  # start with computers in the free seats
    hints: bool  # 提示 offered (a friend room's choice; issue #16)
    bot_level: str | None  # the computers' level; None (a room of an older server): the server's bot
    tier: str  # 场次 (issue 13 §2)
    multiplier: int  # the tier's 场次倍数
    minimum: int  # beans needed to sit down at this tier
    rules: RuleSet

    def to_dict(self) -> RoomOptionsData:
        """The options as stored and sent (docs/protocol.md §2)."""
        return {
            "preset": self.preset,
            "four_players": self.four_players,
            "hands": self.hands,
            "stake": self.stake,
            "turn_seconds": self.turn_seconds,
            "claim_seconds": self.claim_seconds,
            "bots_fill": self.bots_fill,
            "hints": self.hints,
            "bot_level": self.bot_level,
            "tier": self.tier,
            "multiplier": self.multiplier,
            "minimum": self.minimum,
            "rules": self.rules.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> RoomOptions:
        """Options stored by :meth:`to_dict` (or by an older server, which wrote no ``hints``, ``bot_level``
        or tier). :raises RoomOptionsError: naming the first bad, missing or unknown field."""
        unknown = sorted(set(data) - _FIELDS)
        if unknown:
            raise RoomOptionsError(f"room options: unknown fields {unknown}")
        raw = data.get("rules")
        if not isinstance(raw, dict):
            raise RoomOptionsError(f"room options: rules must be an object, got {raw!r}")
        try:
            rules = RuleSet.from_dict(raw)
        except RuleSetError as exc:
            raise RoomOptionsError(f"room options: rules: {exc}") from None
        tier = _read(data, "tier", str, "practice")
        try:
            economy.find_tier(tier)
        except KeyError as exc:
            raise RoomOptionsError(f"room options: tier: {exc.args[0]}") from None
        bot = data.get("bot_level")
        if bot is not None and not isinstance(bot, str):
            raise RoomOptionsError(f"room options: bot_level must be a string or null, got {bot!r}")
        return cls(
            preset=_read(data, "preset", str),
            four_players=_read(data, "four_players", bool),
            hands=_positive(_read(data, "hands", int), "hands"),
            stake=_read(data, "stake", int),
            turn_seconds=_positive(_seconds(data, "turn_seconds"), "turn_seconds"),
            claim_seconds=_positive(_seconds(data, "claim_seconds"), "claim_seconds"),
            bots_fill=_read(data, "bots_fill", bool),
            hints=_read(data, "hints", bool, True),
            bot_level=bot,
            tier=tier,
            multiplier=_read(data, "multiplier", int, 0),
            minimum=_read(data, "minimum", int, 0),
            rules=rules,
        )

    def public(self) -> RoomOptions:
        """The same options at a public table (匹配): no 提示, computers in every free seat."""
        return dataclasses.replace(self, hints=False, bots_fill=True)


_FIELDS = frozenset(f.name for f in dataclasses.fields(RoomOptions))
_NAMES = {str: "a string", bool: "true or false", int: "an integer"}
_MISSING = object()
T = TypeVar("T")
N = TypeVar("N", int, float)


def _read(data: Mapping[str, object], name: str, kind: type[T], default: object = _MISSING) -> T:
    value = data.get(name, default)
    if value is _MISSING:
        raise RoomOptionsError(f"room options: {name} is missing")
    # bool is an int to Python, not to the options: ``hands: true`` is refused
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RoomOptionsError(f"room options: {name} must be {_NAMES[kind]}, got {value!r}")
    return value


def _seconds(data: Mapping[str, object], name: str) -> float:
    value = data.get(name, _MISSING)
    if value is _MISSING:
        raise RoomOptionsError(f"room options: {name} is missing")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RoomOptionsError(f"room options: {name} must be a number of seconds, got {value!r}")
    return float(value)


def _positive(value: N, name: str) -> N:
    if value <= 0:
        raise RoomOptionsError(f"room options: {name} must be positive, got {value!r}")
    return value


def room_options(settings: Settings, body: p.RoomOptionsIn | p.QuickPlayIn, quick: bool) -> RoomOptions:
    """The options of a new room (docs/protocol.md §2). :raises RoomError: ``invalid`` (422) naming the bad
    option, tier or computer level."""
    s = settings
    hands = body.hands or (s.quick_hands if quick else s.room_hands)
    private = body if isinstance(body, p.RoomOptionsIn) else None
    try:
        rules = find_preset(body.preset)
        stake = private.stake if private is not None else None
        house = {k: getattr(private, k) for k in p.HOUSE_OPTIONS if getattr(private, k, None) is not None}
        rules = rules.with_options(
            four_players=private is not None and private.four_players,
            stake=rules.stake if stake is None else stake,
            rounds=hands,
            **house,
        )
    except RuleSetError as exc:
        raise RoomError("invalid", str(exc), 422) from None
    try:
        tier = economy.find_tier(body.tier)
    except KeyError as exc:
        raise RoomError("invalid", str(exc.args[0]), 422) from None
    turn = private.turn_seconds if private is not None else None
    claim = private.claim_seconds if private is not None else None
    return RoomOptions(
        preset=rules.name,
        four_players=rules.four_players,
        hands=hands,
        stake=rules.stake,
        turn_seconds=s.turn_seconds if turn is None else turn,
        claim_seconds=s.claim_seconds if claim is None else claim,
        bots_fill=private is None or private.bots_fill,
        hints=private is None or private.hints,
        bot_level=bot_level(settings, body.bot_level),
        tier=tier.name,
        multiplier=tier.multiplier,
        minimum=tier.minimum,
        rules=rules,
    )


def bot_level(settings: Settings, name: str | None) -> str:
    """The computers' level (issue #16: 入门 普通 高手 大师, :mod:`paohuzi.bots.levels`) by key or name;
    none given: the server's ``bot_name``. :raises RoomError: ``invalid`` (422) for an unknown level."""
    if name is None:
        return settings.bot_name
    try:
        return levels.level(name).key
    except BotError as exc:
        raise RoomError("invalid", str(exc), 422) from None
