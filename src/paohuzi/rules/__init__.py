"""Rule sets (R8): the named options of RULES.md as one immutable value, and the presets as data files.

Every preset is a TOML file beside this module (``qq.toml``, ``hengyang.toml`` …). Nothing else in the
package branches on a region: code reads the option fields of :class:`RuleSet`.

>>> rules = find_preset("qq")
>>> rules.name, rules.min_huxi, rules.stake, rules.chou_blocks_peng
('qq', 15, 3, True)
>>> find_preset("湖南").fan_table
'hunan'
>>> find_preset("hunan").with_options(four_players=True).players_at_table
4
>>> parse_rules("hunan", ["cap=100", "zimo=double"]).cap
100
>>> parse_rules('{"name": "hunan", "four_players": true, "cap": 100}').players_at_table
4
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from paohuzi.cards import PaohuziError
from paohuzi.rules.families import FAMILIES, FAMILY_FIELDS, HAND_FIELDS, Family

__all__ = [
    "RuleSet",
    "RuleSetError",
    "find_preset",
    "preset_names",
    "parse_rules",
    "FAN_TABLES",
    "HUAYANG_LEVELS",
    "MIN_HUXI_VALUES",
    "ZIMO_MODES",
    "CAP_VALUES",
    "FIRST_DEALER_MODES",
    "FAMILIES",
    "TUN_FUNCTIONS",
    "XING_MODES",
    "BASE_BONUS_MODES",
    "family_options",
]

FAN_TABLES = ("qq", "hunan", "huayang", "changde", "changde_qmt", "shihuka", "liuhuqiang")  # R7.2 A–C; R9 D–G
HUAYANG_LEVELS = ("basic", "half")
MIN_HUXI_VALUES = (15, 18, 21)  # R8.1 起胡
ZIMO_MODES = ("plus_one", "double", "none")  # R8.1 自摸: base + 1, 自摸翻倍, no bonus
CAP_VALUES = (0, 50, 100, 200, 300, 600)  # R8.1 封顶 (0 = none)
FIRST_DEALER_MODES = ("draw", "owner")  # R8.1: R2 draw, or the room's creator deals first
# 囤: R7.1 ⌊(胡息 − 12)/3⌋; the 十胡卡 table of R9.2; 六胡抢 (R9.3) 底 + ⌊(胡息 − 6)/3⌋ (三息一囤) or 胡息 (一息一囤)
TUN_FUNCTIONS = ("classic", "shihuka", "3xi1tun", "1xi1tun")
XING_MODES = ("none", "fan", "sui")  # R9.4 醒: none, 翻醒, 随醒
BASE_BONUS_MODES = ("none", "plus_one", "double")  # R9.2 底分 on 囤 + 醒


class RuleSetError(PaohuziError):
    """Unknown preset, or options that are not valid (all bad options are listed in one message)."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The options of RULES.md that vary between presets (R8). Immutable; build with :func:`find_preset`.

    :ivar name: the preset this rule set came from.
    :ivar four_players: 湖南 守醒 — four at the table, the dealer's opposite sits the hand out (R2).
    :ivar min_huxi: the 胡息 a win needs (R6.1).
    :ivar chou_blocks_peng: a kind declined for 碰/吃 may not be 碰'd later (R4.7).
    :ivar win_on_discard: a discarded card may be won (R4.2).
    :ivar tianhu_on_liangzhang: a hand complete with the 亮张 is 天胡 (R6.4).
    :ivar tianhu_double_huxi: 天胡 base is floor((2 × 胡息 − 12) / 3) (R7.1).
    :ivar fan_table: the 名堂 table of R7.2: ``qq`` (A), ``hunan`` (B) or ``huayang`` (C).
    :ivar huayang_level: table C level, ``basic`` or ``half``.
    :ivar stake: room stake d (R7.3), 0–1000 (R8.1 底分; 0 = points only).
    :ivar rounds: hands in a match, 1–64 (R8.1 局数; 荒庄 hands count).
    :ivar zimo: R8.1 自摸: ``plus_one`` (base + 1, R7.1), ``double`` (自摸翻倍: points × 2, no +1) or ``none``.
    :ivar cap: R8.1 封顶 on a hand's points (after 自摸, before × stake); 0 = none.
    :ivar must_hu: R8.1 有胡必胡: an offered 胡 is made at once, as a forced move, before any other claim.
    :ivar discarder_pays: R8.1 放炮包赔: with ``win_on_discard``, the discarder pays the whole hand.
    :ivar first_dealer: R8.1: ``draw`` (R2) or ``owner`` (the room's creator deals the first hand).
    :ivar family: the rule family (R9): ``classic``, ``changde`` or ``shihuka``; set by the preset file only
        (:mod:`paohuzi.rules.families` says which options each family offers).
    :ivar tun: the 囤 function: ``classic`` (R7.1) or ``shihuka`` (the 十胡卡 table with 卡胡, R9.2).
    :ivar xing: 醒 (R9.4): ``none``, ``fan`` (翻醒) or ``sui`` (随醒).
    :ivar base_bonus: 底分 (R9.2): ``none``, ``plus_one`` (囤 + 1) or ``double`` (囤 × 2), on 囤 + 醒.
    :ivar hongheidian: 红黑点 (R9.2): table F's red 名堂 apply.
    :ivar duiduihu: 对对胡 (R9.1 table D; always on in table E).
    :ivar tiandi_haidi: 天胡, 地胡, 海底 2 番 each (R9.2).
    :ivar shuahou: 耍猴 (R9.1 table E). :ivar hanghangxi: 行行息. :ivar tuanyuan: 团圆. :ivar huangfan: 黄番.
    :ivar players: the players who play a hand (R9.3 六胡抢: 4, or 3); the classic families always 3 (守醒's
        fourth sits out: :attr:`players_at_table`).
    :ivar dealer_cards: the dealer's dealt cards, 亮张 included; the others get one fewer (R2: 21; R9.3: 15).
    :ivar di: 底 of the 三息一囤 囤 (R9.3: 1 or 2).
    :ivar yiwushi: 一五十 / 壹伍拾 is a 句 like 二七十 (R9.3). :ivar mingwei: 明偎, a 偎 is shown face up (R9.3).
    """

    name: str = "qq"
    title: str = "QQ游戏"
    four_players: bool = False
    min_huxi: int = 15
    chou_blocks_peng: bool = True
    win_on_discard: bool = False
    tianhu_on_liangzhang: bool = True
    tianhu_double_huxi: bool = True
    fan_table: str = "qq"
    huayang_level: str = "half"
    stake: int = 1
    rounds: int = 8
    zimo: str = "plus_one"
    cap: int = 0
    must_hu: bool = False
    discarder_pays: bool = False
    first_dealer: str = "draw"
    # Issue 29, R9 (written by to_dict only for a non-classic family: the old presets' dicts stay as they were)
    family: str = "classic"
    tun: str = "classic"
    xing: str = "none"
    base_bonus: str = "none"
    hongheidian: bool = False
    duiduihu: bool = False
    tiandi_haidi: bool = False
    shuahou: bool = False
    hanghangxi: bool = False
    tuanyuan: bool = False
    huangfan: bool = False
    # Issue 30, R9.3 衡阳六胡抢 (also written by to_dict only for a non-classic family)
    players: int = 3
    dealer_cards: int = 21
    di: int = 1
    yiwushi: bool = False
    mingwei: bool = False

    def __post_init__(self) -> None:
        problems = _problems(self)
        if problems:
            raise RuleSetError("invalid rule options: " + "; ".join(problems))

    @property
    def players_at_table(self) -> int:
        """People at the table: 4 with ``four_players`` (one sits out each hand, R2), else :attr:`players`
        (R9.3 六胡抢: all four play)."""
        return 4 if self.four_players else self.players

    @property
    def active_players(self) -> int:
        """The players who play a hand: :attr:`players` (3, or 4 in 六胡抢, R9.3); 守醒's fourth sits out (R2)."""
        return self.players

    @property
    def deal_sizes(self) -> tuple[int, int]:
        """(the dealer's cards with the 亮张, each other player's): (21, 20) (R2), (15, 14) in 六胡抢 (R9.3)."""
        return self.dealer_cards, self.dealer_cards - 1

    @property
    def stock_size(self) -> int:
        """The stock after the deal: 19 (R2); 23 with 4 players, 37 with 3 on 15-card hands (R9.3)."""
        return 80 - self.dealer_cards - (self.players - 1) * (self.dealer_cards - 1)

    @property
    def complete_groups(self) -> int:
        """门子 in a complete hand (R6.1): 7 (七方门子), 5 on 15-card hands (R9.3)."""
        return self.dealer_cards // 3

    @property
    def discard_base(self) -> int:
        """R4.6: a player discards exactly when (hand + table cards) > this + max(0, n − 1), n the 提/跑
        count: 20 (R4.6), 14 on 15-card hands (R9.3)."""
        return self.dealer_cards - 1

    def with_options(self, **options: Any) -> RuleSet:
        """A copy with some options changed.

        :raises RuleSetError: listing every unknown option or bad value.
        """
        unknown = sorted(set(options) - _OPTION_NAMES)
        if unknown:
            raise RuleSetError(
                "unknown rule options: " + ", ".join(unknown) + f" (known: {', '.join(sorted(_OPTION_NAMES))})"
            )
        return dataclasses.replace(self, **options)

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-ready dict (what replays and the server store). The R9 fields
        (:data:`~paohuzi.rules.families.FAMILY_FIELDS`) are written only for a non-classic family, so a
        classic rule set's dict is the one it always was."""
        # Every field is a bool, int or str: ``dataclasses.asdict``'s deep copy is this, at a tenth of its CPU (it
        # runs twice a hand on the server, issue 33; tests/rules holds the two equal for every rule set).
        out = {name: getattr(self, name) for name in _FIELD_NAMES}
        if self.family == "classic":
            for name in FAMILY_FIELDS:
                del out[name]
        family = FAMILIES.get(self.family)
        if family is None or not family.hand_fields:  # R9.3's fields: only where the family has them
            for name in HAND_FIELDS:
                del out[name]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """A rule set from :meth:`to_dict`'s output: the preset named by ``name``, with the options given.

        :raises RuleSetError: for an unknown preset, unknown option or bad value.
        """
        if not isinstance(data, dict):
            raise RuleSetError(f"rules must be an object, got {type(data).__name__}")
        base = find_preset(str(data.get("name", "qq")))
        family = data.get("family", base.family)
        if family != base.family:  # a family is the preset's, never an option (R9)
            raise RuleSetError(f"family of the {base.name} rules is {base.family!r}, not {family!r}")
        options = {k: v for k, v in data.items() if k not in ("name", "title", "family")}
        return base.with_options(**options)


_FIELD_NAMES = tuple(f.name for f in dataclasses.fields(RuleSet))  # in the order asdict writes them
_OPTION_NAMES = frozenset(f.name for f in dataclasses.fields(RuleSet)) - {"name", "title", "family"}
_BOOL_OPTIONS = (
    "four_players",
    "chou_blocks_peng",
    "win_on_discard",
    "tianhu_on_liangzhang",
    "tianhu_double_huxi",
    "must_hu",
    "discarder_pays",
    "hongheidian",
    "duiduihu",
    "tiandi_haidi",
    "shuahou",
    "hanghangxi",
    "tuanyuan",
    "huangfan",
    "yiwushi",
    "mingwei",
)
# Value checks that do not depend on the family (the family's own values are checked in _family_problems).
_CHOICES: dict[str, tuple[object, ...]] = {
    "cap": CAP_VALUES,
    "first_dealer": FIRST_DEALER_MODES,
    "huayang_level": HUAYANG_LEVELS,
    "tun": TUN_FUNCTIONS,
    "xing": XING_MODES,
    "base_bonus": BASE_BONUS_MODES,
}
# Options whose allowed values depend on the family (R8.1, R9): checked against the family's table.
_FAMILY_CHOICES: dict[str, tuple[object, ...]] = {
    "min_huxi": (6, 9, 10, *MIN_HUXI_VALUES),
    "zimo": ZIMO_MODES,
    "fan_table": FAN_TABLES,
}
_RANGES = {"stake": (0, 1000), "rounds": (1, 64)}


def _problems(rules: RuleSet) -> list[str]:
    """Every bad option value, each naming the option, the value and the allowed values (R8.1, R9)."""
    problems = []
    for name in _BOOL_OPTIONS:
        if not isinstance(getattr(rules, name), bool):
            problems.append(f"{name} must be true or false, got {getattr(rules, name)!r}")
    for name, (low, high) in _RANGES.items():
        value = getattr(rules, name)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            problems.append(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    for name, allowed in _CHOICES.items():
        value = getattr(rules, name)
        if not _allowed(value, allowed):
            problems.append(f"{name} must be one of {', '.join(map(str, allowed))}, got {value!r}")
    family = FAMILIES.get(rules.family) if isinstance(rules.family, str) else None
    if family is None:
        problems.append(f"family must be one of {', '.join(FAMILIES)}, got {rules.family!r}")
        return problems
    return problems + _family_problems(rules, family, {p.split()[0] for p in problems})


def _allowed(value: object, allowed: tuple[object, ...]) -> bool:
    """``value`` is one of ``allowed`` and of its type (True must not pass for 1, nor 15.0 for 15)."""
    return value in allowed and type(value) is type(allowed[0])


def _family_problems(rules: RuleSet, family: Family, seen: set[str]) -> list[str]:
    """The options the family (R9) does not let this rule set have: a value it does not allow, a fixed option
    changed, an option it does not offer changed from its default. ``seen``: options already reported."""
    problems: list[str] = []
    where = f"the {family.name} family"
    if not _allowed(rules.fan_table, family.fan_tables):
        tables = ", ".join(family.fan_tables)
        suffix = "" if family.name == "classic" else f" in {where}"
        problems.append(f"fan_table must be one of {tables}{suffix}, got {rules.fan_table!r}")
    offered = family.options(rules.fan_table, rules.name)
    if "tun" not in seen:
        problems += _tun_problems(rules, family, offered)
    fixed = family.fixed_options(rules.fan_table)
    for name in _GOVERNED:
        value = getattr(rules, name)
        if name in seen:
            continue
        if name in fixed:
            want, why = fixed[name]
            if not _allowed(value, (want,)):
                verb = "cannot be turned " + ("on" if want is False else "off") if isinstance(want, bool) else ""
                text = f"{name} {verb} in {where}" if verb else f"{name} must be {want} in {where}"
                problems.append(f"{text} ({why})")
        elif name in offered:
            allowed = offered[name]
            if not _allowed(value, allowed):
                values = ", ".join(map(str, allowed))
                if family.name == "classic":
                    problems.append(f"{name} must be one of {values}, got {value!r}")
                elif len(allowed) == 1:
                    problems.append(f"{name} must be {values} in {where} ({family.rule}), got {value!r}")
                else:
                    problems.append(f"{name} must be one of {values} in {where} ({family.rule}), got {value!r}")
        elif value != _DEFAULTS[name] or type(value) is not type(_DEFAULTS[name]):
            if name == "four_players" and family.name == "classic":  # R8.1: 守醒 is a 湖南 custom
                problems.append(f"four_players is offered with the hunan rules only (R8.1), not with {rules.name!r}")
            else:
                problems.append(_not_offered(name, rules, family, offered))
    return problems


def _tun_problems(rules: RuleSet, family: Family, offered: dict[str, tuple[object, ...]]) -> list[str]:
    """The 囤 function: the family's own, or one of those it offers (R9.3: 三息一囤 or 一息一囤)."""
    where = _where(family)
    if "tun" in offered:
        if _allowed(rules.tun, offered["tun"]):
            return []
        tuns = ", ".join(map(str, offered["tun"]))
        return [f"tun must be one of {tuns} in {where} ({family.rule}), got {rules.tun!r}"]
    if rules.tun != family.tun:
        return [f"tun must be {family.tun} in {where} ({family.rule}), got {rules.tun!r}"]
    return []


def _not_offered(name: str, rules: RuleSet, family: Family, offered: dict[str, tuple[object, ...]]) -> str:
    """The message for an option this rule set's family (or its 名堂 table) does not offer."""
    tables = [t for t, extra in family.by_table.items() if name in extra]
    if tables:
        return f"{name} is an option of the {', '.join(tables)} rules of {_where(family)} only, not of {rules.name}"
    return f"{name} is not an option of {_where(family)} (its options: {', '.join(offered)})"


def _where(family: Family) -> str:
    """The family as messages name it: ``the changde family``."""
    return f"the {family.name} family"


# The options a family governs (offers, fixes, or leaves at their default), and those defaults.
_GOVERNED = tuple(
    f.name
    for f in dataclasses.fields(RuleSet)
    if f.name not in ("name", "title", "family", "tun", "fan_table", "huayang_level", "stake", "rounds")
)
_DEFAULTS: dict[str, object] = {f.name: f.default for f in dataclasses.fields(RuleSet)}


def family_options(rules: RuleSet) -> dict[str, tuple[object, ...]]:
    """The options a player may set for this rule set's family (R8.1, R9), each with its allowed values
    (bools: ``(False, True)``): what the server and the client offer. ``stake`` and ``rounds`` (ranges, R8.1)
    apply to every family and are not listed.

    >>> sorted(family_options(find_preset("changde_qmt")))[:4]
    ['cap', 'chou_blocks_peng', 'first_dealer', 'four_players']
    >>> family_options(find_preset("shihuka"))["min_huxi"], family_options(find_preset("shihuka"))["xing"]
    ((10,), ('none', 'fan', 'sui'))
    >>> "four_players" in family_options(find_preset("qq")), "four_players" in family_options(find_preset("hunan"))
    (False, True)
    """
    return FAMILIES[rules.family].options(rules.fan_table, rules.name)


def _option_value(text: str) -> object:
    """A ``--option`` value: JSON (``100``, ``true``), ``on``/``off``, or else the text itself (``double``)."""
    word = text.strip()
    if word.lower() in ("on", "yes"):
        return True
    if word.lower() in ("off", "no"):
        return False
    try:
        return json.loads(word)
    except json.JSONDecodeError:
        return word


def parse_rules(spec: str | dict[str, Any] | RuleSet, options: Iterable[str] = ()) -> RuleSet:
    """A rule set from the command line or a request (R8, R8.1): ``spec`` is a preset name or alias, a JSON
    object text or dict (``{"name": "hunan", "four_players": true, "cap": 100}``), or a rule set; each
    ``options`` entry ``name=value`` then overrides one option (``cap=100``, ``zimo=double``,
    ``must_hu=on``).

    :raises RuleSetError: naming the unknown preset, option or bad value and what is allowed.

    >>> parse_rules("qq", ["must_hu=on", "min_huxi=18"]).must_hu
    True
    >>> parse_rules("qq", ["cap=99"])
    Traceback (most recent call last):
    ...
    paohuzi.rules.RuleSetError: invalid rule options: cap must be one of 0, 50, 100, 200, 300, 600, got 99
    """
    if isinstance(spec, RuleSet):
        rules = spec
    elif isinstance(spec, dict):
        rules = RuleSet.from_dict(spec)
    elif isinstance(spec, str) and spec.strip().startswith("{"):
        try:
            data = json.loads(spec)
        except json.JSONDecodeError as exc:
            raise RuleSetError(f"rules {spec!r} is not a preset name or a JSON object: {exc}") from None
        rules = RuleSet.from_dict(data)
    elif isinstance(spec, str):
        rules = find_preset(spec)
    else:
        raise RuleSetError(f"rules must be a preset name or an object, got {spec!r}")
    changes: dict[str, Any] = {}
    for entry in options:
        name, sep, value = str(entry).partition("=")
        if not sep or not name.strip():
            raise RuleSetError(f"an option is name=value (e.g. cap=100), got {entry!r}")
        changes[name.strip()] = _option_value(value)
    return rules.with_options(**changes) if changes else rules


def _load_presets() -> tuple[dict[str, RuleSet], dict[str, str]]:
    presets: dict[str, RuleSet] = {}
    aliases: dict[str, str] = {}
    for entry in sorted(resources.files(__name__).iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".toml"):
            continue
        data = tomllib.loads(entry.read_text(encoding="utf-8"))
        names = data.pop("aliases", [])
        rules = RuleSet(**data)
        presets[rules.name] = rules
        for alias in [rules.name, *names]:
            aliases[alias.lower()] = rules.name
    return presets, aliases


_PRESETS, _ALIASES = _load_presets()


def preset_names() -> tuple[str, ...]:
    """The names of the shipped presets, default first."""
    return ("qq", *sorted(n for n in _PRESETS if n != "qq"))


def find_preset(name: str) -> RuleSet:
    """The preset with this name or alias (case-insensitive).

    :raises RuleSetError: naming the unknown preset and listing the known ones.
    """
    key = _ALIASES.get(name.strip().lower()) if isinstance(name, str) else None
    if key is None:
        raise RuleSetError(f"unknown rules preset {name!r} (known: {', '.join(preset_names())})")
    return _PRESETS[key]
