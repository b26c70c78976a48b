"""``paohuzi replay FILE``: print a recorded hand move by move, in Chinese card names.

FILE holds a record as :meth:`paohuzi.engine.Hand.record` writes it (JSON), a match record
(:meth:`paohuzi.engine.Match.record`, every hand in turn), or JSON Lines with one record per line
(``{"record": …}`` lines, as in ``tests/replays/``, work too). ``-`` reads stdin.

    paohuzi replay game.json              # the referee's view: every card
    paohuzi replay game.json --seat 1     # only what seat 1 saw (R5): hidden cards show as ？
    paohuzi replay games.jsonl --line 3   # the third record of a JSON Lines file

The record is replayed through the engine (:func:`paohuzi.engine.replay`), so a record that breaks the
rules is refused with the action number and the reason (exit status 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from paohuzi.cards import Card, PaohuziError
from paohuzi.commands.options import add_rules_arguments, describe_options, rules_from_args
from paohuzi.engine import Event, Hand, replay, replay_match

__all__ = ["add_parser", "run", "describe", "render_hand", "load_records"]

HIDDEN = "？"
_ORIGIN = {"dealt": "起手", "kan": "坎", "wei": "偎", "peng": "碰"}
_HOW = {
    "self": "自摸",
    "forced": "自摸（提/偎后）",
    "other": "他人翻出",
    "discard": "放炮",
    "dealt": "天胡（起手）",
    "liangzhang": "天胡（亮张）",
}
_KIND_ZH = {
    "ti": "提",
    "pao": "跑",
    "wei": "偎",
    "chouwei": "臭偎",
    "kan": "坎",
    "peng": "碰",
    "ju": "句",
    "jiao": "绞",
    "jiang": "将",
}


def _card(token: str | None) -> str:
    if token is None:
        return HIDDEN
    return Card.parse(token).chinese


def _cards(tokens: list[str] | None) -> str:
    if tokens is None:
        return HIDDEN
    return "".join(_card(t) for t in tokens)


def _group(g: dict[str, Any]) -> str:
    return f"{_KIND_ZH.get(g['kind'], g['kind'])}{_cards(g['cards'])}"


def _seat(n: int, dealer: int) -> str:
    return f"座位{n}" + ("（庄）" if n == dealer else "")


def _describe_deal(event: dict[str, Any], dealer: int) -> list[str]:
    lines = [f"庄家 座位{event['dealer']}，亮张 {_card(event['liangzhang'])}，墩 {event['stock']} 张"]
    if event.get("sitting_out") is not None:
        lines[0] += f"，座位{event['sitting_out']} 守醒"
    counts = event.get("hand_counts") or [len(h or []) for h in event["hands"]]
    for s in event["seats"]:
        hand = event["hands"][s]
        shown = _cards(hand) if hand is not None else f"{counts[s]} 张"
        lines.append(f"{_seat(s, dealer)} 起手：{shown}")
    return lines


def _describe_wei(event: dict[str, Any], who: str, card: str) -> str:
    if event["chou"]:
        return f"{who} 臭偎 {card * 3}"
    return f"{who} 偎 {card * 3}" if event["card"] is not None else f"{who} 偎（暗）"


def _describe_chou(event: dict[str, Any], who: str, card: str) -> str:
    what = "、".join(w for w, on in (("不能吃", event["chi"]), ("不能碰", event["peng"])) if on)
    note = "（忍碰）" if event["renpeng"] else ""
    return f"{who} {card} 成臭牌{note}" + (f"：{what}" if what else "")


def _describe_chi(event: dict[str, Any], who: str, card: str) -> str:
    text = f"{who} 吃 {card}（座位{event['source']}的牌）成 {_group(event['group'])}"
    for g in event["bi"]:
        text += f"，比 {_group(g)}"
    return text


def _describe_hu(event: dict[str, Any], who: str, card: str) -> list[str]:
    won = f" {card}" if event.get("card") is not None else ""
    names = "、".join(f"{n['name']}" + (f" {n['fan']}番" if n["fan"] else "") for n in event["names"])
    head = f"{who} 胡{won}（{_HOW.get(event['source'], event['source'])}）：{event['huxi']} 胡息，{names}，"
    if "tun" in event:  # a R9 family: 囤 and 醒 (R9.2, R9.4) make the base that 番 multiplies
        xing = f" + 醒 {event['xing']}（醒牌 {_card(event['xing_card'])}）" if event["xing_card"] is not None else ""
        head += f"囤 {event['tun']}{xing} → 底 {event['base']} × 番 {event['fan']} = {event['points']} 分"
    else:
        head += f"番 {event['fan']} × 底 {event['base']} = {event['points']} 分"
    groups = "  " + " ".join(_group(g) for g in event["groups"])
    if event["loose"]:
        groups += f" 散牌 {_cards(event['loose'])}"
    return [head, groups]


# One line per event type: (event, who, card) -> the line; `who` and `card` are already in Chinese.
_LINE: dict[str, Callable[[dict[str, Any], str, str], str]] = {
    "ti": lambda e, who, card: f"{who} 提 {card * 4}（{_ORIGIN[e['origin']]}）",
    "wei": _describe_wei,
    "draw": lambda e, who, card: f"{who} 摸 {card}" if e["card"] is not None else f"{who} 摸牌",
    "show": lambda e, who, card: f"{who} 翻出 {card}" + ("（海底）" if e["last"] else ""),
    "discard": lambda e, who, card: f"{who} 出 {card}" + ("（只能出这张）" if e["auto"] else ""),
    "pass": lambda e, who, card: f"{who} 过",
    "chou": _describe_chou,
    "pao": lambda e, who, card: f"{who} 跑 {card * 4}（{_ORIGIN[e['origin']]}，座位{e['source']}的牌）",
    "peng": lambda e, who, card: f"{who} 碰 {card * 3}（座位{e['source']}的牌）",
    "chi": _describe_chi,
    "unclaimed": lambda e, who, card: f"{card} 无人要，放在座位{e.get('seat')}",
    "dead": lambda e, who, card: f"{who} 死手",
    "settlement": lambda e, who, card: "结算：" + "，".join(f"座位{s} {p:+d}" for s, p in enumerate(e["payments"])),
}


def describe(event: dict[str, Any], dealer: int) -> list[str]:
    """One event (as ``Event.to_dict`` or ``Event.for_seat`` gives it) in Chinese; [] if nothing to show."""
    t = event["type"]
    seat = event.get("seat")
    who = _seat(seat, dealer) if isinstance(seat, int) else ""
    card = _card(event.get("card")) if "card" in event else ""
    if t in _LINE:
        return [_LINE[t](event, who, card)]
    if t == "deal":
        return _describe_deal(event, dealer)
    if t == "hu":
        return _describe_hu(event, who, card) + _shown(event, dealer)
    if t == "draw_game":
        return ["荒庄", *_shown(event, dealer)]
    if t == "escape":
        return [f"{who} 逃跑（其余两家胡息合计 {event['huxi']}）", *_shown(event, dealer)]
    return [f"{t} {event}"]


def _shown(event: dict[str, Any], dealer: int) -> list[str]:
    lines = []
    for s, (hand, table) in enumerate(zip(event["hands"], event["tables"], strict=True)):
        if hand or table:
            groups = " ".join(_group(g) for g in table)
            lines.append(f"  {_seat(s, dealer)} 手牌 {_cards(hand) or '—'}" + (f"  桌面 {groups}" if groups else ""))
    return lines


def render_hand(hand: Hand, seat: int | None = None) -> list[str]:
    """The whole hand in Chinese, one line per move; ``seat``: only what that seat saw (R5)."""
    rules = hand.rules
    view = f"，座位{seat}的视角" if seat is not None else ""
    options = describe_options(rules)
    shown = f"，选项 {options}" if options else ""  # R8.1: the house options the hand was played under
    dealt = f"种子 {hand.seed}" if hand.seed is not None else "按记录发牌"  # no seed: the recorded deal
    if hand.fair is not None:  # 可验证发牌 (issue 32): `paohuzi verify` checks it
        dealt = f"可验证发牌（承诺 {hand.fair.commitment[:16]}…）"
    # R9.1 黄番 (a classic family has none: its output stays as it was)
    before = f"，此前连续荒庄 {hand.drawn_before} 局" if hand.drawn_before and rules.family != "classic" else ""
    lines = [f"规则 {rules.name}（{rules.title}）{shown}，{dealt}{before}" + view]
    step = 0
    for e in hand.events:
        seen = e.to_dict() if seat is None else e.for_seat(seat)
        if seen is None:
            continue
        for i, line in enumerate(describe(seen, hand.dealer)):
            if i == 0 and _counts_as_move(e):
                step += 1
                lines.append(f"[{step:3d}] {line}")
            else:
                lines.append(f"      {line}")
    return lines


def _counts_as_move(e: Event) -> bool:
    return e.type not in ("deal", "settlement")


def load_records(text: str, line: int | None) -> list[dict[str, Any]]:
    """The records of a file's text: one JSON record, or JSON Lines of them (``{"record": …}`` too: the
    server's replay answers, ``tests/replays/``); with ``line``, that record only (from 1)."""
    text = text.strip()
    if not text:
        raise PaohuziError("the file is empty")
    try:
        data = json.loads(text)
        records = [data]
    except json.JSONDecodeError:
        records = []
        for n, raw in enumerate(text.splitlines(), 1):
            if raw.strip():
                try:
                    records.append(json.loads(raw))
                except json.JSONDecodeError as exc:
                    raise PaohuziError(f"line {n} is not JSON: {exc}") from None
    records = [r.get("record", r) if isinstance(r, dict) else r for r in records]
    if line is not None:
        if not 1 <= line <= len(records):
            raise PaohuziError(f"--line {line}: the file has {len(records)} records")
        records = [records[line - 1]]
    return records


def _with_rules(record: Any, args: argparse.Namespace) -> Any:
    """The record (a hand's or a match's, with its hands) under ``--rules``/``--option`` (R8.1)."""
    if not isinstance(record, dict) or not isinstance(record.get("rules"), dict):
        return record  # replay() says what is wrong with it
    rules = rules_from_args(args, record["rules"]).to_dict()
    out = {**record, "rules": rules}
    if isinstance(record.get("records"), list):
        out["records"] = [{**r, "rules": rules} if isinstance(r, dict) else r for r in record["records"]]
    return out


def run(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
        out: list[str] = []
        for record in load_records(text, args.line):
            if args.rules is not None or args.option:
                record = _with_rules(record, args)
            dissolved = False
            if isinstance(record, dict) and record.get("kind") == "match":
                match = replay_match(record)
                hands = [replay(r.record) for r in match.results]
                if not match.hand.over:
                    hands.append(match.hand)
                dissolved = match.dissolved
            else:
                hands = [replay(record)]
                dissolved = isinstance(record, dict) and record.get("dissolved") is True
            for hand in hands:
                if args.seat is not None and not 0 <= args.seat < hand.table_size:
                    raise PaohuziError(f"--seat {args.seat}: seats are 0–{hand.table_size - 1}")
                if out:
                    out.append("")
                out += render_hand(hand, args.seat)
                if not hand.over:
                    out.append("（解散，不结算）" if dissolved else "（未完）")  # R8.2: void, not settled
    except OSError as exc:
        print(f"paohuzi replay: {exc}", file=sys.stderr)
        return 2
    except PaohuziError as exc:
        print(f"paohuzi replay: {exc}", file=sys.stderr)
        return 2
    try:
        print("\n".join(out))
    except BrokenPipeError:  # `paohuzi replay … | head`
        sys.stderr.close()
    return 0


def add_parser(subparsers: Any) -> None:
    """Register ``paohuzi replay``."""
    parser = subparsers.add_parser(
        "replay",
        help="print a recorded hand move by move in Chinese (R5 view with --seat)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog=(
            "examples:\n  paohuzi replay game.json\n  paohuzi replay game.json --seat 1\n"
            "  paohuzi replay games.jsonl --line 2"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", help="a hand or match record (JSON), or JSON Lines of records; - for stdin")
    parser.add_argument("--seat", type=int, default=None, help="show only what this seat saw")
    parser.add_argument("--line", type=int, default=None, help="with JSON Lines: only this record (from 1)")
    add_rules_arguments(parser, default=None, what="default: the record's own; given, the actions are played "
                        "again under these rules, e.g. --option cap=100 to see a hand capped")
    parser.set_defaults(run=run)
