"""``paohuzi analyze``: the best arrangement and score of a hand (R6, R7), or its waits (听牌).

For people, ``paohuzi analyze "x1 x2 x3 …" --table "peng:d5d5d5 wei:x3x3x3" --card x10 --source self``
prints the best arrangement as a table (groups, 胡息, 名堂 with 番, base, points), or the waits when no
card is given. For programs, ``--json`` reads one JSON request from stdin and ``--batch FILE`` one per line
(``-`` for stdin), answering one JSON line each; bad input answers ``{"error": "…"}`` with exit status 2.
``--rules`` (a name or a JSON object) and ``--option name=value`` (R8.1, repeatable) choose the rules; a JSON
request has ``"rules"`` and ``"options"``. The request and response formats are in docs/scoring.md
(`paohuzi analyze`).

The work is :func:`paohuzi.scoring.analyze_hand` (best win with the card, else the waits), the response
:meth:`paohuzi.scoring.Win.to_dict` and :func:`paohuzi.scoring.waits_to_dicts`; table text is read by
:func:`paohuzi.groups.parse_groups`; requests are checked by :mod:`paohuzi.commands.analyze_request`. This
module keeps the arguments, JSON I/O and the human table.
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from pathlib import Path
from typing import Any

from paohuzi import scoring
from paohuzi.analysis import Source
from paohuzi.cards import Card, PaohuziError, format_cards
from paohuzi.commands.analyze_request import Request, RequestError, make_request, parse_request
from paohuzi.commands.options import add_rules_arguments, describe_options
from paohuzi.rules import RuleSet, parse_rules

__all__ = ["Request", "RequestError", "add_parser", "analyze", "parse_request", "render", "run", "to_json"]


def analyze(req: Request) -> scoring.HandAnalysis:
    """Evaluate a request (:func:`paohuzi.scoring.analyze_hand`): the best win, or the waits without a card.

    :raises PaohuziError: for cards the analysis refuses (more than 4 of a kind, R1 …).
    """
    return scoring.analyze_hand(
        req.hand, req.table, req.card, req.source, req.rules, last_card=req.last_card, tianhu=req.tianhu,
        facts=req.facts,
    )


def to_json(found: scoring.HandAnalysis) -> dict[str, Any]:
    """The JSON response (the shape in the module docstring), from :meth:`paohuzi.scoring.Win.to_dict`; a win of
    an R9 family also has ``"formula"`` (:func:`paohuzi.scoring.formula`, e.g. "卡胡 3囤 × 平胡1番 × 自摸2 = 6分")."""
    out: dict[str, Any] = {"complete": False} if found.win is None else {"complete": True, **found.win.to_dict()}
    if found.win is not None and found.win.score.family != "classic":
        out["formula"] = scoring.formula(found.win.score)
    if found.waits is not None:
        out["waits"] = scoring.waits_to_dicts(found.waits)
    return out


# --- Human output ----------------------------------------------------------------------------------


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _rows(rows: list[list[str]], right: set[int]) -> list[str]:
    """A table: columns padded to their widest cell (Chinese counts double), ``right`` aligned right."""
    widths = [max(_width(r[i]) for r in rows) for i in range(len(rows[0]))]
    pad = [[" " * (widths[i] - _width(cell)) for i, cell in enumerate(r)] for r in rows]
    return [
        "  " + "  ".join(p[i] + cell if i in right else cell + p[i] for i, cell in enumerate(r)).rstrip()
        for r, p in zip(rows, pad, strict=True)
    ]


def _name(n: scoring.Name, rules: RuleSet) -> str:
    if n.name == scoring.ZIMO:
        return {"plus_one": "自摸 (底 +1)", "double": "自摸 (自摸翻倍: points ×2)"}.get(rules.zimo, "自摸")
    if n.name == scoring.TIANHU:
        return "天胡 (胡息 ×2 in the base)" if rules.tianhu_double_huxi else "天胡"
    return f"{n.name} {n.fan}番"


def _win_lines(win: scoring.Win, rules: RuleSet) -> list[str]:
    s, loose = win.score, win.arrangement.loose
    rows = [["group", "cards", "", "胡息"]]
    for g in win.arrangement.groups:
        rows.append([f"{g.kind.chinese} {g.kind.value}", format_cards(g.cards), format_cards(g.cards, chinese=True),
                     str(g.huxi)])
    if loose:
        rows.append(["loose", format_cards(loose), format_cards(loose, chinese=True), "0"])
    rows.append(["total", "", "", str(win.huxi)])
    lines = [
        *_rows(rows, {3}),
        f"名堂    {', '.join(_name(n, rules) for n in s.names)}",
        f"red {s.red} · big {s.big} · small {s.small}",
    ]
    if s.family != "classic":
        # R9: 囤 and 醒 make the base, the 名堂 combine by the family's rule; the formula says it all in one line.
        xing = "" if s.xing_card is None else f" (醒 card {s.xing_card} {s.xing_card.chinese})"
        return [*lines, f"囤 {s.tun} · 醒 {s.xing}{xing} · 番 {_COMBINE.get(s.combine, s.combine)}",
                scoring.formula(s)]
    return [
        *lines,
        f"番 {s.fan} × 底 {s.base}" + (" × 2 (自摸翻倍)" if s.zimo_double else "")
        + (f" = {s.uncapped}, 封顶 {rules.cap}" if s.capped else "") + f" = {s.points} points",
    ]


_COMBINE = {"add": "add up (R9)", "multiply": "multiply", "largest": "the largest applies"}


def _wait_lines(waits: tuple[tuple[Card, scoring.Win], ...], rules: RuleSet) -> list[str]:
    if not waits:
        return [f"no waits: no single own draw completes this hand with {rules.min_huxi}+ 胡息"]
    rows = [["card", "", "胡息", "名堂", "番", "底", "points"]]
    for card, win in waits:
        s = win.score
        names = ", ".join(n.name for n in s.names if n.fan)
        rows.append([str(card), card.chinese, str(win.huxi), names, str(s.fan), str(s.base), str(s.points)])
    return ["waits (听牌), each card as the player's own draw:", *_rows(rows, {2, 4, 5, 6})]


def _fact_flags(req: Request) -> list[str]:
    """What the play decided before the win (R9.4), as given with the request."""
    f = req.facts
    if f is None:
        return []
    return [
        text
        for text, on in (
            (f"黄番 after {f.drawn_before} drawn hands", f.drawn_before > 0),
            (f"醒 card {f.xing_card} ({f.xing_card.chinese})" if f.xing_card is not None else "",
             f.xing_card is not None),
            ("地胡", f.dihu),
            ("听胡" if f.tinghu else "not 听胡", f.tinghu is not None),
        )
        if on
    ]


def render(req: Request, result: scoring.HandAnalysis) -> str:
    """The human-readable report of a request's analysis."""
    rules, card, win = req.rules, req.card, result.win
    lines = [f"rules   {rules.name} ({rules.title}), at least {rules.min_huxi} 胡息, 名堂 table {rules.fan_table}"]
    options = describe_options(rules)
    if options:
        lines.append(f"options {options}")
    lines.append(f"hand    {format_cards(req.hand)}  ({format_cards(req.hand, chinese=True)})")
    if req.table:
        lines.append("table   " + "  ".join(f"{g} ({g.chinese})" for g in req.table))
    flags = [f for f, on in (("海底 (last card)", req.last_card), ("天胡", req.tianhu)) if on] + _fact_flags(req)
    if card is not None:
        lines.append(f"card    {card} ({card.chinese}) from {req.source.value}" + "".join(f", {f}" for f in flags))
    elif flags:
        lines.append("flags   " + ", ".join(flags))
    lines.append("")
    if win is not None:
        where = ("with the card" if card is not None else "as dealt (天胡, counted as 自摸)" if req.tianhu
                 else "as the cards stand (counted as 自摸)")
        lines += [f"complete {where}: {win.huxi} 胡息, {win.points} points", *_win_lines(win, rules)]
    elif card is not None:
        lines.append("not complete with this card")
        if req.source is Source.DISCARD and not rules.win_on_discard:
            lines.append(f"  (a discarded card cannot be won under {rules.name}: win_on_discard is off, R4.2)")
    else:
        lines.append("not complete as the cards stand")
    if result.waits is not None:
        lines += ["", *_wait_lines(result.waits, rules)]
    return "\n".join(lines)


# --- The command -----------------------------------------------------------------------------------


def add_parser(subparsers: Any) -> None:
    """Register ``paohuzi analyze``."""
    parser = subparsers.add_parser(
        "analyze",
        help="best arrangement, 名堂 and points of a hand, or its waits (R6, R7)",
        description="Analyse a 跑胡子 hand: the best arrangement with its 胡息, 名堂, 番, base and points, "
        "or the waits (听牌) when no card is given.",
        epilog="examples:\n"
        '  paohuzi analyze "x1 x2 x3 x2 x7 d2 d7 d10 x8 x9 x10 d4 d4 d4 d9 d9 d9" \\\n'
        '      --table "peng:x7x7x7" --card x10 --source self --rules qq\n'
        '  echo \'{"hand": "x1 x2 x3 …", "card": "x10"}\' | paohuzi analyze --json\n'
        "  paohuzi analyze --batch requests.jsonl",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("hand", nargs="*", help="the cards in hand: x1…x10, d1…d10 or 一…十 壹…拾")
    add("--table", action="append", default=[], metavar="GROUPS",
        help='table groups, kind:cards separated by spaces: "peng:d5d5d5 wei:x3x3x3" (kinds: peng, wei, '
        "chouwei, ti, pao, chi)")
    add("--card", help="the card won; without it the waits are listed")
    add("--source", help="where the card came from: self, other, discard (default self), or none")
    add_rules_arguments(parser)
    add("--last-card", action="store_true", help="the card is the last of the stock (海底)")
    add("--tianhu", action="store_true", help="score the win as 天胡 (R6.4)")
    add("--drawn-before", type=int, metavar="N",
        help="荒庄 in a row before this hand, for 黄番 (R9.1, option huangfan)")
    add("--xing-card", metavar="CARD", help="the 醒 card (R9.4, option xing): the turned-up card or the card won")
    add("--dihu", action="store_true", default=None, help="the win is a 地胡 (R9.1)")
    add("--tinghu", action=argparse.BooleanOptionalAction, default=None,
        help="听胡: the winner made no move (R9.1); default: derived from the table")
    add("--json", action="store_true", help="read one JSON request from stdin, answer JSON")
    add("--batch", metavar="FILE", help="JSON requests, one per line (- for stdin); one answer per line")
    parser.set_defaults(run=run)


# One encoder for every answer (json.dumps builds a new one per call when given options).
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


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
    given = (("a hand argument", bool(args.hand)), ("--table", bool(args.table)), ("--card", args.card is not None),
             ("--source", args.source is not None), ("--last-card", args.last_card), ("--tianhu", args.tianhu),
             ("--rules", args.rules != "qq"), ("--option", bool(args.option)),
             ("--drawn-before", args.drawn_before is not None), ("--xing-card", args.xing_card is not None),
             ("--dihu", args.dihu is not None), ("--tinghu/--no-tinghu", args.tinghu is not None))
    human_only = [name for name, on in given if on]
    if human_only:
        message = f"--json/--batch read the request as JSON; do not also give {', '.join(human_only)}"
        print(_ENCODE({"error": message}))
        return 2
    if args.batch is None:
        response, ok = _answer(sys.stdin.read())
        print(_ENCODE(response))
        return 0 if ok else 2
    try:
        lines = (sys.stdin.read() if args.batch == "-" else Path(args.batch).read_text(encoding="utf-8")).splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        print(_ENCODE({"error": f"cannot read {args.batch}: {exc}"}))
        return 2
    status = 0
    for line in lines:
        if line.strip():  # blank lines are not requests
            response, ok = _answer(line)
            print(_ENCODE(response), flush=False)
            status = status if ok else 2
    return status


def run(args: argparse.Namespace) -> int:
    """Run ``paohuzi analyze``; returns the exit status (0, or 2 for bad input)."""
    if args.json or args.batch is not None:
        return _json_mode(args)
    try:
        if not args.hand:
            raise RequestError('give the cards in hand, e.g. paohuzi analyze "x1 x2 x3 …" (or use --json)')
        table = " ".join(args.table)
        rules = parse_rules(args.rules, args.option)
        req = make_request(
            rules, " ".join(args.hand), table, args.card, args.source, args.last_card, args.tianhu,
            drawn_before=args.drawn_before, xing_card=args.xing_card, dihu=args.dihu, tinghu=args.tinghu,
        )
        text = render(req, analyze(req))
    except PaohuziError as exc:
        print(f"paohuzi analyze: error: {exc}", file=sys.stderr)
        return 2
    print(text)
    return 0
