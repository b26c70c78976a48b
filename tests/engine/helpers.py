"""Helpers for the engine's scripted tests: a stacked deck around a quiet base deal, and short event text.

The base deal (dealer 0, preset qq) gives every seat four 坎 and a few loose cards, with a stock that
starts with sixteen cards nobody can use (d3–d6, four of each). After the dealer's first discard of x2, x4
or x8 nobody can claim anything, so a test changes only what its rule needs: a few hand cards and the
first stock cards, and the hand plays out exactly as written.
"""

from __future__ import annotations

from collections.abc import Mapping

from paohuzi.cards import COPIES, NUM_KINDS, Card, format_cards, parse_cards
from paohuzi.engine import Event, Hand, seats_in_play, stack_deck
from paohuzi.rules import RuleSet, find_preset

QQ = find_preset("qq")
HUNAN = find_preset("hunan")

#: seat -> its dealt cards (the dealer's 20, the 亮张 apart).
BASE: dict[int, str] = {
    0: "x1 x1 x1 x3 x3 x3 d9 d9 d9 d10 d10 d10 x2 x7 x4 x8 d1 x10 x10 d8",
    1: "x5 x5 x5 x7 x7 x7 d1 d1 d1 d2 d2 d2 x2 d7 d9 d10 x9 x4 x1 x8",
    2: "x6 x6 x6 x9 x9 x9 d7 d7 d7 d8 d8 d8 x4 x3 x5 x10 x8 d2 x10 x2",
}
BASE_LIANG = "x8"
QUIET = "d3 d4 d5 d6 " * 4

#: A table where seat 1 waits on x10 (x8 x9 + x10; 4 坎, 一二三 and 肆伍陆: 21 胡息 with it).
W_HANDS: dict[int, str] = {
    0: BASE[0],
    1: "x5 x5 x5 x7 x7 x7 d1 d1 d1 d2 d2 d2 x1 x2 x3 x8 x9 d4 d5 d6",
    2: "x6 x6 x6 x9 x9 x9 d7 d7 d7 d8 d8 d8 x2 x4 x5 x8 x10 d2 d9 d10",
}
BASE_STOCK = QUIET + "x2 x4 x6"


def swap(cards: str, out: str, into: str) -> str:
    """``cards`` with the cards of ``out`` replaced by those of ``into`` (one for one, in order)."""
    lst = list(parse_cards(cards))
    for a, b in zip(parse_cards(out), parse_cards(into), strict=True):
        lst[lst.index(a)] = b
    return format_cards(lst)


def deal(
    hands: Mapping[int, str] | None = None,
    *,
    liang: str = BASE_LIANG,
    stock: str = "",
    dealer: int = 0,
    rules: RuleSet = QQ,
    **kwargs: object,
) -> Hand:
    """A hand with a stacked deck built around the base deal (dealer 0, 3 players).

    ``hands`` replaces whole hands. The other seats keep the base cards that are still free; their holes
    are filled with free cards outside d3–d6, in kind order. The stock is ``stock`` followed by the free
    quiet cards (d3 d4 d5 d6 in turn), then the rest in kind order. With no arguments the stock is
    exactly :data:`BASE_STOCK`.
    """
    hands = dict(hands or {})
    seats = seats_in_play(rules, dealer)
    free = [COPIES] * NUM_KINDS
    for cards in (*hands.values(), liang, stock):
        for c in parse_cards(cards):
            free[c] -= 1
            assert free[c] >= 0, f"more than 4 of {c}"
    base = BASE if dealer == 0 and not rules.four_players else {}
    full: dict[int, list[Card]] = {}
    holes: dict[int, int] = {}
    for s in seats:
        if s in hands:
            full[s] = list(parse_cards(hands[s]))
        else:
            full[s] = []
            for c in parse_cards(base.get(s, "")):
                if free[c] > 0:
                    free[c] -= 1
                    full[s].append(c)
        holes[s] = 20 - len(full[s])
    quiet_kinds = [Card.D3, Card.D4, Card.D5, Card.D6]
    loud: list[Card] = []
    for k in range(NUM_KINDS):
        if Card(k) not in quiet_kinds:
            loud += [Card(k)] * free[k]
            free[k] = 0
    for s, n in holes.items():
        for _ in range(n):
            full[s].append(loud.pop(0) if loud else _pop_quiet(free, quiet_kinds))
    rest: list[Card] = []
    while any(free[q] for q in quiet_kinds):
        rest.append(_pop_quiet(free, quiet_kinds))
    rest += loud
    deck = stack_deck(
        rules,
        dealer,
        {s: format_cards(full[s]) for s in seats},
        liangzhang=liang,
        stock=format_cards(parse_cards(stock) + tuple(rest)),
    )
    return Hand(rules, 0, dealer, deck=deck, **kwargs)  # type: ignore[arg-type]


def _pop_quiet(free: list[int], quiet: list[Card]) -> Card:
    best = max(quiet, key=lambda q: (free[q], -q))
    free[best] -= 1
    return best


def play(hand: Hand, *moves: str) -> list[str]:
    """Play ``"seat: action"`` moves in order; the short text of every event they caused."""
    out: list[str] = []
    for move in moves:
        seat, _, action = move.partition(":")
        out += brief(hand.apply(int(seat), action.strip()))
    return out


def brief(events: list[Event]) -> list[str]:
    return [str(e) for e in events]


def legal(hand: Hand, seat: int) -> list[str]:
    return [str(a) for a in hand.legal_actions(seat)]


def quiet_draws(first_seat: int, n: int, cards: str = QUIET) -> list[str]:
    """The events of ``n`` draws nobody can use, starting with ``first_seat`` (3 seats, order 0→1→2)."""
    out = []
    seat = first_seat
    for card in parse_cards(cards)[:n]:
        out += [f"draw {seat} {card}", f"show {seat} {card}", f"unclaimed {seat} {card}"]
        seat = (seat + 1) % 3
    return out
