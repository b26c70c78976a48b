"""The rule options every ``paohuzi`` command takes (RULES.md R8, R8.1).

``--rules`` is a preset name or alias (``qq``, ``hunan``, ``湖南`` …) or a JSON object
(``'{"name": "hunan", "four_players": true, "cap": 100}'``); each ``--option name=value`` then overrides one
option (``--option cap=100 --option zimo=double --option must_hu=on``). A bad preset, option name or value
is a :class:`~paohuzi.rules.RuleSetError` naming it and what is allowed; the commands exit with status 2.
"""

from __future__ import annotations

import argparse
from typing import Any

from paohuzi.rules import RuleSet, find_preset, parse_rules

__all__ = ["add_rules_arguments", "rules_from_args", "option_changes", "describe_options"]

_HELP_OPTION = (
    "override one rule option, name=value (repeatable): min_huxi=18, zimo=double, cap=100, must_hu=on, "
    "win_on_discard=on, discarder_pays=on, stake=5, rounds=8, four_players=on, first_dealer=owner …"
)


def add_rules_arguments(parser: argparse.ArgumentParser, *, default: str | None = "qq", what: str = "") -> None:
    """Add ``--rules`` and ``--option`` to a command's parser."""
    parser.add_argument(
        "--rules",
        default=default,
        help="rules preset (qq, hengyang, hunan, huayang; R9: changde, changde_qmt, shihuka, liuhuqiang) or a JSON "
        "object of options "
        + (f"({what})" if what else f"(default: {default})"),
    )
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help=_HELP_OPTION)


def rules_from_args(args: argparse.Namespace, base: str | dict[str, Any] | RuleSet | None = None) -> RuleSet:
    """The rule set of ``--rules`` (or ``base`` when ``--rules`` was not given) with every ``--option``.

    :raises paohuzi.rules.RuleSetError: for a bad preset, option or value.
    """
    spec = args.rules if args.rules is not None else base
    return parse_rules("qq" if spec is None else spec, args.option)


def option_changes(rules: RuleSet) -> dict[str, Any]:
    """The options of ``rules`` that differ from its preset's, in field order (what a room changed, R8.1)."""
    preset = find_preset(rules.name).to_dict()
    return {k: v for k, v in rules.to_dict().items() if k != "title" and preset.get(k) != v}


def describe_options(rules: RuleSet) -> str:
    """``"cap=100, zimo=double"`` for the options changed from the preset, or ``""``.

    >>> describe_options(parse_rules("hunan", ["cap=100", "zimo=double"]))
    'zimo=double, cap=100'
    """
    parts = []
    for key, value in option_changes(rules).items():
        text = ("on" if value else "off") if isinstance(value, bool) else str(value)
        parts.append(f"{key}={text}")
    return ", ".join(parts)
