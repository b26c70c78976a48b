"""``paohuzi analyze``: the best arrangement and score of a hand (R6, R7), or its waits (听牌).

For people::

    paohuzi analyze "x1 x2 x3 …" --table "peng:d5d5d5 wei:x3x3x3" --card x10 --source self --rules qq

prints the best arrangement as a table (groups in Chinese, 胡息 per group, 名堂 with 番, base, points), or
the waits when no card is given. For programs, ``paohuzi analyze --json`` reads one JSON request from
stdin (``--batch FILE`` reads one per line, ``-`` for stdin, and answers one line per request)::

    {"rules": "qq", "hand": "x1 x2 …", "table": [{"kind": "peng", "cards": "d5 d5 d5"}],
     "card": "x10", "source": "self", "last_card": false, "tianhu": false}

and answers::

    {"complete": true, "huxi": 24, "groups": [{"kind": "kan", "cards": ["d4", "d4", "d4"], "huxi": 6}, …],
     "names": [{"name": "红胡", "fan": 2}], "fan": 2, "base": 5, "points": 10, "zimo": true}

- ``card``, ``table``, ``last_card`` and ``tianhu`` are optional; ``source`` defaults to ``"none"``
  without a card and ``"self"`` with one. ``rules`` is a preset name (default ``"qq"``) or an object
  ``{"name": "qq", "min_huxi": 18, …}`` (:meth:`paohuzi.rules.RuleSet.from_dict`); ``options`` overrides
  R8.1 house options over it (``{"cap": 100, "zimo": "double"}``). ``hand`` and a table group's ``cards``
  may also be lists of tokens. When the options change the points the answer adds ``"zimo_double": true``
  (自摸翻倍 applied) and/or ``"uncapped"`` (the points before 封顶). On the command line: ``--rules`` (a
  name or a JSON object) and ``--option name=value`` (repeatable).
- A card given but the cards not complete: ``{"complete": false}``.
- No card: ``"waits"`` lists every card whose own draw completes the hand, ``[{"card", "huxi",
  "points"}]`` (scored as 自摸, and as 海底 with ``last_card``). If the hand is complete as it stands (after
  a forced 提/偎, R4.2.3; that counts as 自摸, R6.3) the win is reported too, otherwise
  ``{"complete": false, "waits": […]}``.
- ``tianhu``: the win is a 天胡 (R6.4). Without a card the dealt 天胡 (3 提 / 5 坎; its partial
  arrangement may leave ``"loose"`` cards) and the hand complete as dealt are both tried, the better kept.
- Bad input → ``{"error": "…"}`` and exit status 2. In ``--batch`` a bad line answers an error line, the
  other lines still answer, and the exit status is 2 at the end.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from dataclasses import dataclass
from typing import Any

from paohuzi import scoring
from paohuzi.analysis import Source
from paohuzi.cards import NUM_KINDS, Card, NotationError, PaohuziError, format_cards, parse_cards
from paohuzi.commands.options import add_rules_arguments, describe_options
from paohuzi.groups import TABLE_KINDS, Group
from paohuzi.rules import RuleSet, parse_rules

__all__ = ["Request", "RequestError", "add_parser", "analyze", "parse_request", "render", "run"]

_REQUEST_KEYS = ("rules", "options", "hand", "table", "card", "source", "last_card", "tianhu")
_KNOWN_KEYS = frozenset(_REQUEST_KEYS)


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


# ---------------------------------------------------------------------------------------------------
# Parsing and validation
# ---------------------------------------------------------------------------------------------------


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
    if isinstance(value, list):
        cards = []
        for i, token in enumerate(value):
            if not isinstance(token, str):
                raise RequestError(f'{what}[{i}] must be a card token like "x7", got {token!r}')
            try:
                cards.append(Card.parse(token))
            except NotationError:
                raise NotationError(f"bad card token {token!r} at position {i} of {what}") from None
        return tuple(cards)
    raise RequestError(f'{what} must be card text like "x1 x2 d3" or a list of tokens, got {value!r}')


def _table_group(kind: str, cards: tuple[Card, ...]) -> Group:
    group = Group.from_kind_name(kind, cards)
    if group.kind not in TABLE_KINDS:
        raise RequestError(
            f"{group.kind.value} ({group.kind.chinese}) cannot lie on a table: "
            "table groups are peng, wei, chouwei, ti, pao or chi (ju/jiao)"
        )
    return group


def parse_table_text(text: str) -> tuple[Group, ...]:
    """Table groups written ``kind:cards`` one after another: ``"peng:d5d5d5 wei:x3x3x3"``.

    Groups are separated by spaces or ``;``; a group's cards may contain spaces (``peng:d5 d5 d5``).

    >>> [str(g) for g in parse_table_text("peng:d5d5d5 chi:x1 x2 x3; 偎:三三三")]
    ['peng:d5 d5 d5', 'ju:x1 x2 x3', 'wei:x3 x3 x3']
    """
    groups: list[Group] = []
    current: list[str] | None = None
    parts: list[list[str]] = []
    for token in re.split(r"[\s;]+", text.strip()):
        if not token:
            continue
        if ":" in token:
            current = [token]
            parts.append(current)
        elif current is None:
            raise RequestError(
                f"a table group is written kind:cards (like peng:d5d5d5), got {token!r} in {text!r}"
            )
        else:
            current.append(token)
    for part in parts:
        kind, _sep, first = part[0].partition(":")
        groups.append(_table_group(kind, parse_cards(" ".join([first, *part[1:]]))))
    return tuple(groups)


def _table(value: object) -> tuple[Group, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return parse_table_text(value)
    if not isinstance(value, list):
        raise RequestError(f'table must be a list of {{"kind", "cards"}} objects, got {value!r}')
    groups = []
    for i, item in enumerate(value):
        if (
            not isinstance(item, dict)
            or len(item) != 2
            or "kind" not in item
            or "cards" not in item
            or not isinstance(item["kind"], str)
        ):
            raise RequestError(
                f'table[{i}] must be {{"kind": "peng|wei|chouwei|ti|pao|chi", "cards": …}}, got {item!r}'
            )
        kind, cards = item["kind"], item["cards"]
        if type(cards) is str:
            # Groups are immutable and the same few hundred recur: build each (kind, text) once.
            key = (kind, cards)
            group = _GROUPS.get(key)
            if group is None:
                group = _table_group(kind, parse_cards(cards))
                if len(_GROUPS) >= 10_000:
                    _GROUPS.clear()
                _GROUPS[key] = group
            groups.append(group)
        else:
            groups.append(_table_group(kind, _cards(cards, f"table[{i}].cards")))
    return tuple(groups)


_GROUPS: dict[tuple[str, str], Group] = {}


# Card counts packed 8 bits per kind, summed in C: the quick test of _check_copies.
_BYTE = [1 << (8 * k) for k in range(NUM_KINDS)]


def _check_copies(hand: tuple[Card, ...], table: tuple[Group, ...], card: Card | None) -> None:
    cards = list(hand)
    for g in table:
        cards.extend(g.cards)
    if card is not None:
        cards.append(card)
    if len(cards) <= 255 and max(sum(map(_BYTE.__getitem__, cards)).to_bytes(NUM_KINDS, "little")) <= 4:
        return
    counts = [0] * NUM_KINDS
    for c in (*hand, *(c for g in table for c in g.cards), *((card,) if card is not None else ())):
        counts[c] += 1
    bad = [f"{counts[k]} × {Card(k)}" for k in range(NUM_KINDS) if counts[k] > 4]
    if bad:
        raise RequestError(f"more than 4 of a kind (hand, table and card together): {', '.join(bad)} (R1)")


def _bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise RequestError(f"{name} must be true or false, got {value!r}")
    return value


def make_request(
    rules: object,
    hand: object,
    table: object = None,
    card: object = None,
    source: object = None,
    last_card: object = False,
    tianhu: object = False,
    options: object = None,
) -> Request:
    """A validated :class:`Request` from loose values (JSON or command-line text).

    :param options: R8.1 option overrides (an object), applied over ``rules``.
    :raises PaohuziError: naming the first problem (bad token, unknown preset, malformed group …).
    """
    rule_set = _rules(rules, options)
    if hand is None:
        raise RequestError('the request needs "hand", the cards in hand (e.g. "x1 x2 x3")')
    hand_cards = _cards(hand, "hand")
    groups = _table(table)
    if card is None:
        won = None
    elif isinstance(card, str):
        cards = parse_cards(card)
        if len(cards) != 1:
            raise RequestError(f"card must be exactly one card, got {card!r}")
        won = cards[0]
    else:
        raise RequestError(f'card must be one card token like "x10", got {card!r}')
    if source is None:
        src = Source.SELF if won is not None else Source.NONE
    else:
        found = _SOURCES.get(source.strip().lower()) if isinstance(source, str) else None
        if found is None:
            raise RequestError(f"source must be one of {_SOURCE_NAMES}, got {source!r}")
        src = found
        if won is None and src is not Source.NONE:
            raise RequestError(f"source {src.value!r} needs a card")
        if won is not None and src is Source.NONE:
            raise RequestError(f"card {won} needs a source (self, other or discard), not 'none'")
    _check_copies(hand_cards, groups, won)
    return Request(
        rule_set, hand_cards, groups, won, src, _bool(last_card, "last_card"), _bool(tianhu, "tianhu")
    )


_SOURCES = {s.value: s for s in Source}
_SOURCE_NAMES = ", ".join(_SOURCES)


def parse_request(data: object) -> Request:
    """A :class:`Request` from a decoded JSON request.

    :raises PaohuziError: for an unknown key or any bad value.
    """
    if not isinstance(data, dict):
        raise RequestError(f"a request must be a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(_REQUEST_KEYS)) if not data.keys() <= _KNOWN_KEYS else ()
    if unknown:
        raise RequestError(f"unknown request keys: {', '.join(unknown)} (known: {', '.join(_REQUEST_KEYS)})")
    return make_request(
        data.get("rules", "qq"),
        data.get("hand"),
        data.get("table"),
        data.get("card"),
        data.get("source"),
        data.get("last_card", False),
        data.get("tianhu", False),
        data.get("options"),
    )


# ---------------------------------------------------------------------------------------------------
# Analysis
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Result:
    """What :func:`analyze` found: the win (or None) and, without a card, the scored waits."""

    request: Request
    win: scoring.Win | None
    waits: tuple[tuple[Card, scoring.Win], ...] | None


def _better(a: scoring.Win | None, b: scoring.Win | None) -> scoring.Win | None:
    if a is None:
        return b
    if b is None:
        return a
    return b if (b.points, b.huxi) > (a.points, a.huxi) else a


def analyze(req: Request) -> Result:
    """Evaluate a request: the best win with the card (or as the cards stand); without a card, waits."""
    rules, hand, table = req.rules, req.hand, req.table
    if req.card is not None:
        win = scoring.evaluate(
            hand, table, req.card, req.source, rules, last_card=req.last_card, tianhu=req.tianhu
        )
        return Result(req, win, None)
    # No card: the cards as they stand. In play that is a forced 提/偎 completion (R4.2.3), which is 自摸
    # (R6.3), or a dealer's 天胡 as dealt (R6.4, also 自摸).
    win = scoring.evaluate(
        hand, table, None, Source.NONE, rules, last_card=req.last_card, tianhu=req.tianhu, zimo=True
    )
    if req.tianhu:
        win = _better(win, scoring.evaluate_tianhu_dealt(hand, table, rules))
    waits = tuple(scoring.scored_waits(hand, table, rules, last_card=req.last_card))
    return Result(req, win, waits)


def to_json(result: Result) -> dict[str, Any]:
    """The JSON response for a result (the shape in the module docstring)."""
    out: dict[str, Any]
    win = result.win
    if win is None:
        out = {"complete": False}
    else:
        s = win.score
        out = {
            "complete": True,
            "huxi": win.huxi,
            "groups": [
                {"kind": g.kind.value, "cards": [str(c) for c in g.cards], "huxi": g.huxi}
                for g in win.arrangement.groups
            ],
            "names": [{"name": n.name, "fan": n.fan} for n in s.names],
            "fan": s.fan,
            "base": s.base,
            "points": s.points,
            "zimo": s.zimo,
        }
        # R8.1: only when the options changed the points (requests without options answer as before)
        if s.zimo_double:
            out["zimo_double"] = True
        if s.capped:
            out["uncapped"] = s.uncapped
        if win.arrangement.loose:
            out["loose"] = [str(c) for c in win.arrangement.loose]
    if result.waits is not None:
        out["waits"] = [{"card": str(c), "huxi": w.huxi, "points": w.points} for c, w in result.waits]
    return out


# ---------------------------------------------------------------------------------------------------
# Human output
# ---------------------------------------------------------------------------------------------------


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int, right: bool = False) -> str:
    fill = " " * max(0, width - _width(text))
    return fill + text if right else text + fill


def _rows(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(_width(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  " + "  ".join(_pad(cell, widths[i], i in right) for i, cell in enumerate(r)).rstrip() for r in rows
    ]


def _names(score: scoring.Score, rules: RuleSet) -> str:
    parts = []
    for n in score.names:
        if n.name == scoring.ZIMO:
            parts.append({"plus_one": "自摸 (底 +1)", "double": "自摸 (自摸翻倍: points ×2)"}.get(rules.zimo, "自摸"))
        elif n.name == scoring.TIANHU:
            parts.append("天胡 (胡息 ×2 in the base)" if rules.tianhu_double_huxi else "天胡")
        else:
            parts.append(f"{n.name} {n.fan}番")
    return ", ".join(parts)


def _win_lines(win: scoring.Win, rules: RuleSet) -> list[str]:
    s = win.score
    rows = [["group", "cards", "", "胡息"]]
    for g in win.arrangement.groups:
        rows.append(
            [
                f"{g.kind.chinese} {g.kind.value}",
                format_cards(g.cards),
                format_cards(g.cards, chinese=True),
                str(g.huxi),
            ]
        )
    if win.arrangement.loose:
        loose = win.arrangement.loose
        rows.append(["loose", format_cards(loose), format_cards(loose, chinese=True), "0"])
    rows.append(["total", "", "", str(win.huxi)])
    lines = _rows(rows, {3})
    lines.append(f"名堂    {_names(s, rules)}")
    lines.append(f"red {s.red} · big {s.big} · small {s.small}")
    points = f"番 {s.fan} × 底 {s.base}" + (" × 2 (自摸翻倍)" if s.zimo_double else "")
    if s.capped:
        points += f" = {s.uncapped}, 封顶 {rules.cap}"
    lines.append(f"{points} = {s.points} points")
    return lines


def render(result: Result) -> str:
    """The human-readable report of a result."""
    req = result.request
    rules = req.rules
    lines = [
        f"rules   {rules.name} ({rules.title}), at least {rules.min_huxi} 胡息, 名堂 table {rules.fan_table}"
    ]
    options = describe_options(rules)
    if options:
        lines.append(f"options {options}")
    lines.append(f"hand    {format_cards(req.hand)}  ({format_cards(req.hand, chinese=True)})")
    if req.table:
        lines.append("table   " + "  ".join(f"{g} ({g.chinese})" for g in req.table))
    flags = [f for f, on in (("海底 (last card)", req.last_card), ("天胡", req.tianhu)) if on]
    if req.card is not None:
        lines.append(
            f"card    {req.card} ({req.card.chinese}) from {req.source.value}"
            + "".join(f", {f}" for f in flags)
        )
    elif flags:
        lines.append("flags   " + ", ".join(flags))
    lines.append("")
    if result.win is not None:
        if req.card is not None:
            where = "with the card"
        elif req.tianhu:
            where = "as dealt (天胡, counted as 自摸)"
        else:
            where = "as the cards stand (counted as 自摸)"
        lines.append(f"complete {where}: {result.win.huxi} 胡息, {result.win.points} points")
        lines.extend(_win_lines(result.win, rules))
    elif req.card is not None:
        lines.append("not complete with this card")
        if req.source is Source.DISCARD and not rules.win_on_discard:
            lines.append(
                f"  (a discarded card cannot be won under {rules.name}: win_on_discard is off, R4.2)"
            )
    else:
        lines.append("not complete as the cards stand")
    if result.waits is not None:
        lines.append("")
        if not result.waits:
            lines.append(f"no waits: no single own draw completes this hand with {rules.min_huxi}+ 胡息")
        else:
            lines.append("waits (听牌), each card as the player's own draw:")
            rows = [["card", "", "胡息", "名堂", "番", "底", "points"]]
            for card, win in result.waits:
                s = win.score
                names = ", ".join(f"{n.name}" for n in s.names if n.fan)
                rows.append(
                    [str(card), card.chinese, str(win.huxi), names, str(s.fan), str(s.base), str(s.points)]
                )
            lines.extend(_rows(rows, {2, 4, 5, 6}))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------------------------------


def add_parser(subparsers: Any) -> None:
    """Register ``paohuzi analyze``."""
    parser = subparsers.add_parser(
        "analyze",
        help="best arrangement, 名堂 and points of a hand, or its waits (R6, R7)",
        description=(
            "Analyse a 跑胡子 hand: the best arrangement with its 胡息, 名堂, 番, base and points, "
            "or the waits (听牌) when no card is given."
        ),
        epilog=(
            "examples:\n"
            '  paohuzi analyze "x1 x2 x3 x2 x7 d2 d7 d10 x8 x9 x10 d4 d4 d4 d9 d9 d9" \\\n'
            '      --table "peng:x7x7x7" --card x10 --source self --rules qq\n'
            '  echo \'{"hand": "x1 x2 x3 …", "card": "x10"}\' | paohuzi analyze --json\n'
            "  paohuzi analyze --batch requests.jsonl"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("hand", nargs="*", help="the cards in hand: x1…x10, d1…d10 or 一…十 壹…拾")
    parser.add_argument(
        "--table",
        action="append",
        default=[],
        metavar="GROUPS",
        help='table groups, kind:cards separated by spaces: "peng:d5d5d5 wei:x3x3x3" (kinds: peng, wei, '
        "chouwei, ti, pao, chi)",
    )
    parser.add_argument("--card", help="the card won; without it the waits are listed")
    parser.add_argument(
        "--source", help="where the card came from: self, other, discard (default self), or none"
    )
    add_rules_arguments(parser)
    parser.add_argument("--last-card", action="store_true", help="the card is the last of the stock (海底)")
    parser.add_argument("--tianhu", action="store_true", help="score the win as 天胡 (R6.4)")
    parser.add_argument("--json", action="store_true", help="read one JSON request from stdin, answer JSON")
    parser.add_argument(
        "--batch", metavar="FILE", help="JSON requests, one per line (- for stdin); one answer per line"
    )
    parser.set_defaults(run=run)


# One encoder for every answer (json.dumps builds a new one per call when given options).
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def _dumps(obj: dict[str, Any]) -> str:
    return _ENCODE(obj)


def _answer(text: str) -> tuple[dict[str, Any], bool]:
    """One JSON request's response and whether it succeeded."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return {"error": f"invalid JSON: {exc}"}, False
    try:
        return to_json(analyze(parse_request(data))), True
    except PaohuziError as exc:
        return {"error": str(exc)}, False


def _json_mode(args: argparse.Namespace) -> int:
    human_only = [
        name
        for name, given in (
            ("a hand argument", bool(args.hand)),
            ("--table", bool(args.table)),
            ("--card", args.card is not None),
            ("--source", args.source is not None),
            ("--last-card", args.last_card),
            ("--tianhu", args.tianhu),
            ("--rules", args.rules != "qq"),
            ("--option", bool(args.option)),
        )
        if given
    ]
    if human_only:
        print(
            _dumps(
                {
                    "error": "--json/--batch read the request as JSON; "
                    f"do not also give {', '.join(human_only)}"
                }
            )
        )
        return 2
    if args.batch is None:
        response, ok = _answer(sys.stdin.read())
        print(_dumps(response))
        return 0 if ok else 2
    try:
        if args.batch == "-":
            lines = sys.stdin.read().splitlines()
        else:
            with open(args.batch, encoding="utf-8") as f:
                lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        print(_dumps({"error": f"cannot read {args.batch}: {exc}"}))
        return 2
    status = 0
    for line in lines:
        if not line.strip():
            continue  # blank lines are not requests
        response, ok = _answer(line)
        print(_dumps(response), flush=False)
        if not ok:
            status = 2
    return status


def run(args: argparse.Namespace) -> int:
    """Run ``paohuzi analyze``; returns the exit status (0, or 2 for bad input)."""
    if args.json or args.batch is not None:
        return _json_mode(args)
    try:
        if not args.hand:
            raise RequestError('give the cards in hand, e.g. paohuzi analyze "x1 x2 x3 …" (or use --json)')
        req = make_request(
            parse_rules(args.rules, args.option),
            " ".join(args.hand),
            " ".join(args.table),
            args.card,
            args.source,
            args.last_card,
            args.tianhu,
        )
        text = render(analyze(req))
    except PaohuziError as exc:
        print(f"paohuzi analyze: error: {exc}", file=sys.stderr)
        return 2
    print(text)
    return 0
