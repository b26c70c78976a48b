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
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

from paohuzi.cards import PaohuziError

__all__ = ["RuleSet", "RuleSetError", "find_preset", "preset_names", "FAN_TABLES", "HUAYANG_LEVELS"]

FAN_TABLES = ("qq", "hunan", "huayang")  # R7.2 tables A, B, C
HUAYANG_LEVELS = ("basic", "half")


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
    :ivar stake: room stake d (R7.3).
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

    def __post_init__(self) -> None:
        problems = _problems(self)
        if problems:
            raise RuleSetError("invalid rule options: " + "; ".join(problems))

    @property
    def players_at_table(self) -> int:
        """People at the table: 4 with ``four_players`` (one sits out each hand), else 3 (R2)."""
        return 4 if self.four_players else 3

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
        """The options as a JSON-ready dict (what replays and the server store)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """A rule set from :meth:`to_dict`'s output: the preset named by ``name``, with the options given.

        :raises RuleSetError: for an unknown preset, unknown option or bad value.
        """
        if not isinstance(data, dict):
            raise RuleSetError(f"rules must be an object, got {type(data).__name__}")
        base = find_preset(str(data.get("name", "qq")))
        options = {k: v for k, v in data.items() if k not in ("name", "title")}
        return base.with_options(**options)


_OPTION_NAMES = frozenset(f.name for f in dataclasses.fields(RuleSet)) - {"name", "title"}
_BOOL_OPTIONS = ("four_players", "chou_blocks_peng", "win_on_discard", "tianhu_on_liangzhang", "tianhu_double_huxi")


def _problems(rules: RuleSet) -> list[str]:
    problems = []
    for name in _BOOL_OPTIONS:
        if not isinstance(getattr(rules, name), bool):
            problems.append(f"{name} must be true or false, got {getattr(rules, name)!r}")
    for name, low, high in (("min_huxi", 0, 200), ("stake", 0, 1_000_000)):
        value = getattr(rules, name)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            problems.append(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    if rules.fan_table not in FAN_TABLES:
        problems.append(f"fan_table must be one of {', '.join(FAN_TABLES)}, got {rules.fan_table!r}")
    if rules.huayang_level not in HUAYANG_LEVELS:
        problems.append(f"huayang_level must be one of {', '.join(HUAYANG_LEVELS)}, got {rules.huayang_level!r}")
    return problems


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
