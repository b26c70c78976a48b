"""The ``paohuzi analyze`` request: loose JSON or command-line values checked into the typed arguments of
:func:`paohuzi.scoring.analyze_hand`. The format is in docs/scoring.md (`paohuzi analyze`).

More than 4 of a kind (R1) and groups that cannot lie on a table (坎, 将; R3) are left to the analysis,
which refuses them with the same kind of error.

What the play decided before the win (R9.4, last paragraph) comes with the request as
:class:`paohuzi.scoring.PlayFacts`: ``drawn_before`` (荒庄 in a row before this hand, for 黄番), ``xing_card``
(the 醒 card), ``dihu`` (the win is a 地胡), ``tinghu`` (听胡; absent: derived from the table). A fact the rule
set cannot use (drawn hands without 黄番 here; a 醒 card without 醒 by the scoring) is refused, naming the field
and the family.
"""

from __future__ import annotations

from dataclasses import dataclass

from paohuzi.analysis import Source
from paohuzi.cards import Card, NotationError, PaohuziError, parse_cards
from paohuzi.groups import Group, parse_groups
from paohuzi.rules import RuleSet, family_options, parse_rules
from paohuzi.scoring import PlayFacts

__all__ = ["Request", "RequestError", "make_request", "parse_request"]

_REQUEST_KEYS = (
    "rules", "options", "hand", "table", "card", "source", "last_card", "tianhu",
    "drawn_before", "xing_card", "dihu", "tinghu",
)
_KNOWN_KEYS = frozenset(_REQUEST_KEYS)
_SOURCES = {s.value: s for s in Source}
_SOURCE_NAMES = ", ".join(_SOURCES)
# Groups are immutable and the same few hundred recur in a batch: each (kind, text) is built once.
_GROUPS: dict[tuple[str, str], Group] = {}


class RequestError(PaohuziError):
    """A request that is not well formed (missing hand, unknown key, wrong type …)."""


@dataclass(frozen=True, slots=True)
class Request:
    """One analysis request, validated."""

    rules: RuleSet
    hand: tuple[Card, ...]
    table: tuple[Group, ...]
    card: Card | None
    source: Source
    last_card: bool = False
    tianhu: bool = False
    facts: PlayFacts | None = None


def _rules(value: object, options: object = None) -> RuleSet:
    """The request's rule set: a preset name, JSON object text or object, then ``options`` (R8.1 house
    options, ``{"cap": 100, "zimo": "double"}``) on top."""
    if not isinstance(value, (str, dict, RuleSet)):
        raise RequestError(f"rules must be a preset name or an object, got {value!r}")
    rules = parse_rules(value)
    if options is None:
        return rules
    if not isinstance(options, dict):
        raise RequestError(f'options must be an object like {{"cap": 100}}, got {options!r}')
    return rules.with_options(**options) if options else rules


def _cards(value: object, what: str) -> tuple[Card, ...]:
    if isinstance(value, str):
        return parse_cards(value)
    if not isinstance(value, list):
        raise RequestError(f'{what} must be card text like "x1 x2 d3" or a list of tokens, got {value!r}')
    cards = []
    for i, token in enumerate(value):
        if not isinstance(token, str):
            raise RequestError(f'{what}[{i}] must be a card token like "x7", got {token!r}')
        try:
            cards.append(Card.parse(token))
        except NotationError:
            raise NotationError(f"bad card token {token!r} at position {i} of {what}") from None
    return tuple(cards)


def _table(value: object) -> tuple[Group, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return parse_groups(value, what="table group")  # the analysis refuses 坎/将 on a table (R3)
    if not isinstance(value, list):
        raise RequestError(f'table must be a list of {{"kind", "cards"}} objects, got {value!r}')
    groups = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or set(item) != {"kind", "cards"} or not isinstance(item["kind"], str):
            raise RequestError(
                f'table[{i}] must be {{"kind": "peng|wei|chouwei|ti|pao|chi", "cards": …}}, got {item!r}'
            )
        kind, cards = item["kind"], item["cards"]
        if type(cards) is str:
            group = _GROUPS.get((kind, cards))
            if group is None:
                group = Group.from_kind_name(kind, parse_cards(cards))
                if len(_GROUPS) >= 10_000:
                    _GROUPS.clear()
                _GROUPS[(kind, cards)] = group
        else:
            group = Group.from_kind_name(kind, _cards(cards, f"table[{i}].cards"))
        groups.append(group)
    return tuple(groups)


def _bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise RequestError(f"{name} must be true or false, got {value!r}")
    return value


def _source(source: object, won: Card | None) -> Source:
    if source is None:
        return Source.SELF if won is not None else Source.NONE
    src = _SOURCES.get(source.strip().lower()) if isinstance(source, str) else None
    if src is None:
        raise RequestError(f"source must be one of {_SOURCE_NAMES}, got {source!r}")
    if won is None and src is not Source.NONE:
        raise RequestError(f"source {src.value!r} needs a card")
    if won is not None and src is Source.NONE:
        raise RequestError(f"card {won} needs a source (self, other or discard), not 'none'")
    return src


def _one_card(value: object, name: str) -> Card | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise RequestError(f'{name} must be one card token like "x10", got {value!r}')
    cards = parse_cards(value)
    if len(cards) != 1:
        raise RequestError(f"{name} must be exactly one card, got {value!r}")
    return cards[0]


def _needs_huangfan(n: int, rules: RuleSet) -> RequestError:
    """Drawn hands given to rules without 黄番: the engine always passes them, but a request that gives them means
    黄番 (docs/scoring.md, decision). The message names the field, the family and how to turn 黄番 on."""
    if "huangfan" not in family_options(rules):
        return RequestError(
            f"drawn_before {n} needs 黄番 (R9.1), which the {rules.name} rules ({rules.family} family) do not have"
        )
    return RequestError(
        f"drawn_before {n} needs 黄番 (R9.1): the {rules.family} family's rules {rules.name} have huangfan off "
        '(set the option huangfan to on: "options": {"huangfan": true})'
    )


def _facts(rules: RuleSet, drawn_before: object, xing_card: object, dihu: object, tinghu: object) -> PlayFacts | None:
    """What the play decided before the win (R9.4), checked against the rule set; None when nothing was given."""
    if drawn_before is None and xing_card is None and dihu is None and tinghu is None:
        return None
    n = 0 if drawn_before is None else drawn_before
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise RequestError(f"drawn_before must be a whole number ≥ 0 (荒庄 in a row before this hand), got {n!r}")
    if n and not rules.huangfan:
        raise _needs_huangfan(n, rules)
    # A 醒 card under rules without 醒 is refused by the scoring (scoring.PlayFacts' check, R9.4).
    card = _one_card(xing_card, "xing_card")
    tinghu_flag = None if tinghu is None else _bool(tinghu, "tinghu")
    return PlayFacts(n, card, False if dihu is None else _bool(dihu, "dihu"), tinghu_flag)


def make_request(  # noqa: PLR0913 — one parameter per request key (docs/scoring.md)
    rules: object, hand: object, table: object = None, card: object = None, source: object = None,
    last_card: object = False, tianhu: object = False, options: object = None, *,
    drawn_before: object = None, xing_card: object = None, dihu: object = None, tinghu: object = None,
) -> Request:
    """A validated :class:`Request` from loose values (JSON or command-line text); ``options`` are R8.1
    option overrides (an object) applied over ``rules``; ``drawn_before`` … ``tinghu`` what the play decided
    (R9.4), for :class:`~paohuzi.scoring.PlayFacts`.

    :raises PaohuziError: naming the first problem (bad token, unknown preset, malformed group …).
    """
    rule_set = _rules(rules, options)
    if hand is None:
        raise RequestError('the request needs "hand", the cards in hand (e.g. "x1 x2 x3")')
    hand_cards, groups = _cards(hand, "hand"), _table(table)
    won = _one_card(card, "card")
    src = _source(source, won)
    facts = _facts(rule_set, drawn_before, xing_card, dihu, tinghu)
    return Request(
        rule_set, hand_cards, groups, won, src, _bool(last_card, "last_card"), _bool(tianhu, "tianhu"), facts
    )


def parse_request(data: object) -> Request:
    """A :class:`Request` from a decoded JSON request.

    :raises PaohuziError: for an unknown key or any bad value.
    """
    if not isinstance(data, dict):
        raise RequestError(f"a request must be a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - _KNOWN_KEYS) if not data.keys() <= _KNOWN_KEYS else ()
    if unknown:
        raise RequestError(f"unknown request keys: {', '.join(unknown)} (known: {', '.join(_REQUEST_KEYS)})")
    return make_request(**{"rules": "qq", "hand": None, **data})
