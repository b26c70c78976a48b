"""The rule families (R9) as data: which options each family lets a player set, with which values, and which
options it fixes. Read by :mod:`paohuzi.rules` (validation, :func:`~paohuzi.rules.family_options`); nothing else
branches on a family name.

A family (``RuleSet.family``) is set by its preset files, never by a player:

- ``classic`` — ``qq``, ``hengyang``, ``hunan``, ``huayang`` (R8, R8.1);
- ``changde`` — ``changde`` (红黑点, table D) and ``changde_qmt`` (全名堂, table E) (R9.1);
- ``shihuka`` — ``shihuka`` (衡阳十胡卡, table F) (R9.2);
- ``liuhuqiang`` — ``liuhuqiang`` (衡阳六胡抢, table G; 15-card hands, 4 or 3 players) (R9.3).

Each family lists its **offered** options (what the server and the client show, each with its allowed values)
and its **fixed** options (a value that no player may change, with the rule that fixes it). An option neither
offered nor fixed keeps the dataclass default; changing it is refused with the family's options named.
``stake`` and ``rounds`` (ranges, R8.1) apply to every family and are not listed here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["BOOL", "FAMILIES", "FAMILY_FIELDS", "FAN_TABLE_LETTERS", "HAND_FIELDS", "Family"]

BOOL: tuple[object, ...] = (False, True)

#: The rule-set fields that only the regional families use (issue 29): written by ``RuleSet.to_dict`` only for
#: a non-classic family, so the old presets' dicts stay as they were.
FAMILY_FIELDS = (
    "family",
    "tun",
    "xing",
    "base_bonus",
    "hongheidian",
    "duiduihu",
    "tiandi_haidi",
    "shuahou",
    "hanghangxi",
    "tuanyuan",
    "huangfan",
)

#: The R7.2 / R9 table letter of each ``fan_table`` (for messages and docs).
FAN_TABLE_LETTERS = {
    "qq": "A", "hunan": "B", "huayang": "C", "changde": "D", "changde_qmt": "E", "shihuka": "F", "liuhuqiang": "G"
}  # fmt: skip

#: The rule-set fields of issue 30 (R9.3: hand size, active players, 底, 一五十, 明偎): written by ``RuleSet.to_dict``
#: only for a family that lists them in :attr:`Family.hand_fields`, so the issue 29 families' dicts stay as they were.
HAND_FIELDS = ("players", "dealer_cards", "di", "yiwushi", "mingwei")

# The R8.1 house options every family offers unless it says otherwise.
_HOUSE: dict[str, tuple[object, ...]] = {
    "min_huxi": (15, 18, 21),
    "chou_blocks_peng": BOOL,
    "win_on_discard": BOOL,
    "tianhu_on_liangzhang": BOOL,
    "tianhu_double_huxi": BOOL,
    "zimo": ("plus_one", "double", "none"),
    "cap": (0, 50, 100, 200, 300, 600),
    "must_hu": BOOL,
    "discarder_pays": BOOL,
    "first_dealer": ("draw", "owner"),
}


@dataclass(frozen=True)
class Family:
    """One rule family (R9): its name, its presets' 名堂 tables and 囤 function, and its options.

    :ivar name: ``classic``, ``changde`` or ``shihuka``.
    :ivar rule: the rule-book section, quoted in messages (``R8.1``, ``R9.1`` …).
    :ivar fan_tables: the 名堂 tables its presets use (R7.2, R9).
    :ivar tun: its 囤 function (``classic``: R7.1; ``shihuka``: the 十胡卡 table of R9.2).
    :ivar offered: option → allowed values, for every rule set of the family.
    :ivar by_table: extra options offered only with one 名堂 table (全名堂's 耍猴 … with table E).
    :ivar fixed: option → (value, why) that no player may change.
    :ivar fixed_by_table: as ``fixed``, for one 名堂 table.
    :ivar four_players_presets: presets that may seat four (守醒); None: every preset of the family.
    :ivar hand_fields: whether ``RuleSet.to_dict`` writes :data:`HAND_FIELDS` (R9.3).
    """

    name: str
    rule: str
    fan_tables: tuple[str, ...]
    tun: str
    offered: dict[str, tuple[object, ...]]
    by_table: dict[str, dict[str, tuple[object, ...]]] = field(default_factory=dict)
    fixed: dict[str, tuple[object, str]] = field(default_factory=dict)
    fixed_by_table: dict[str, dict[str, tuple[object, str]]] = field(default_factory=dict)
    four_players_presets: tuple[str, ...] | None = None
    hand_fields: bool = False

    def options(self, fan_table: str, preset: str) -> dict[str, tuple[object, ...]]:
        """The options a player may set for a rule set of this family with this table and preset."""
        out: dict[str, tuple[object, ...]] = {}
        if self.four_players_presets is None or preset in self.four_players_presets:
            out["four_players"] = BOOL
        out.update(self.offered)
        out.update(self.by_table.get(fan_table, {}))
        return out

    def fixed_options(self, fan_table: str) -> dict[str, tuple[object, str]]:
        """The options fixed for a rule set of this family with this table: option → (value, why)."""
        return {**self.fixed, **self.fixed_by_table.get(fan_table, {})}


FAMILIES: dict[str, Family] = {
    # R8, R8.1: the four old presets. 守醒 is a 湖南 custom (R8.1).
    "classic": Family(
        name="classic",
        rule="R8.1",
        fan_tables=("qq", "hunan", "huayang"),
        tun="classic",
        offered=dict(_HOUSE),
        four_players_presets=("hunan",),
    ),
    # R9.1 常德: as hunan, 守醒 allowed, only drawn cards are won; table D or E.
    "changde": Family(
        name="changde",
        rule="R9.1",
        fan_tables=("changde", "changde_qmt"),
        tun="classic",
        offered={k: v for k, v in _HOUSE.items() if k not in ("win_on_discard", "discarder_pays")},
        by_table={
            "changde": {"duiduihu": BOOL},
            "changde_qmt": {"shuahou": BOOL, "hanghangxi": BOOL, "tuanyuan": BOOL, "huangfan": BOOL},
        },
        fixed={
            "win_on_discard": (False, "R9.1: only drawn cards are won"),
            "discarder_pays": (False, "R9.1: only drawn cards are won, so nobody discards a win"),
        },
        fixed_by_table={"changde_qmt": {"duiduihu": (True, "R9.1: 对对胡 is always in table E")}},
    ),
    # R9.2 衡阳十胡卡: as hengyang but 起胡 10, wins on discards paid by the discarder, 自摸 double or none.
    "shihuka": Family(
        name="shihuka",
        rule="R9.2",
        fan_tables=("shihuka",),
        tun="shihuka",
        offered={
            "min_huxi": (10,),
            "chou_blocks_peng": BOOL,
            "tianhu_on_liangzhang": BOOL,
            "zimo": ("double", "none"),
            "cap": _HOUSE["cap"],
            "must_hu": BOOL,
            "first_dealer": _HOUSE["first_dealer"],
            "hongheidian": BOOL,
            "tiandi_haidi": BOOL,
            "xing": ("none", "fan", "sui"),
            "base_bonus": ("none", "plus_one", "double"),
        },
        fixed={
            "win_on_discard": (True, "R9.2: a discard may be won"),
            "discarder_pays": (True, "R9.2: the discarder pays for everybody"),
            "tianhu_double_huxi": (False, "R9.2: 天胡 uses the 囤 table"),
        },
        four_players_presets=(),
    ),
    # R9.3 衡阳六胡抢: 15-card hands, 4 players who all play (or 3), 起胡 6, wins on discards paid by the discarder,
    # 三息一囤 or 一息一囤, table G (multiply) with 红黑点, 自摸 double or none, 一五十 and 明偎 optional, 醒.
    "liuhuqiang": Family(
        name="liuhuqiang",
        rule="R9.3",
        fan_tables=("liuhuqiang",),
        tun="3xi1tun",
        offered={
            "players": (4, 3),
            "min_huxi": (6, 9, 15),
            "tun": ("3xi1tun", "1xi1tun"),
            "di": (1, 2),
            "chou_blocks_peng": BOOL,
            "tianhu_on_liangzhang": BOOL,
            "zimo": ("double", "none"),
            "cap": _HOUSE["cap"],
            "must_hu": BOOL,
            "first_dealer": _HOUSE["first_dealer"],
            "hongheidian": BOOL,
            "yiwushi": BOOL,
            "mingwei": BOOL,
            "xing": ("none", "fan", "sui"),
        },
        fixed={
            "dealer_cards": (15, "R9.3: 15-card hands"),
            "win_on_discard": (True, "R9.3: a discard may be won"),
            "discarder_pays": (True, "R9.3: the discarder pays the shares of all losers"),
            "tianhu_double_huxi": (False, "R9.3: 天胡 uses the 囤 of its 胡息"),
        },
        four_players_presets=(),
        hand_fields=True,
    ),
}
