"""The deck, the shuffle and the deal layout (R1, R2), and the stacked-deck helper for tests.

A deck is the 80 cards in **deal order**: the dealer's 21 cards (the 21st is the 亮张), then 20 cards for
each other seat in play in turn order (the dealer's 下家 first), then the 19 stock cards in the order they
will be drawn. The sizes are the rule set's (``RuleSet.deal_sizes``, ``stock_size``): 衡阳六胡抢 deals 15 and
14 to four players, 23 left in the stock (37 with three, R9.3). A seeded hand shuffles
:func:`paohuzi.cards.full_deck` with ``random.Random(seed)``; a stacked deck (:func:`stack_deck`) lets a test
choose the deal and the stock.

>>> from paohuzi.rules import find_preset
>>> deck = stack_deck(find_preset("qq"), dealer=0, hands={1: "x1 x1 x1 x2"}, liangzhang="d10", stock="x7 x8")
>>> len(deck), deck[20], deck[61:63]
(80, Card.parse('d10'), (Card.parse('x7'), Card.parse('x8')))
>>> deck[21:25]
(Card.parse('x1'), Card.parse('x1'), Card.parse('x1'), Card.parse('x2'))
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from paohuzi.cards import COPIES, DECK_SIZE, NUM_KINDS, Card, PaohuziError, full_deck, parse_cards
from paohuzi.rules import RuleSet

__all__ = [
    "RNG_VERSION",
    "DEALER_CARDS",
    "HAND_CARDS",
    "STOCK_CARDS",
    "DeckError",
    "shuffled",
    "check_deck",
    "seats_in_play",
    "stack_deck",
]

#: Version of the way a seed becomes a dealer and a shuffle. Replays record it; a change of the
#: procedure below must bump it (old records then refuse to replay instead of replaying wrongly).
RNG_VERSION = 1
# R2's sizes (the classic families); a rule set's own are ``RuleSet.deal_sizes`` and ``stock_size`` (R9.3).
DEALER_CARDS = 21
HAND_CARDS = 20
STOCK_CARDS = DECK_SIZE - DEALER_CARDS - 2 * HAND_CARDS  # 19


class DeckError(PaohuziError):
    """A deck that is not the 80 cards (4 of each kind), or a stacked deck that cannot be built."""


def shuffled(seed: int, table_size: int, dealer: int | None) -> tuple[int, tuple[Card, ...]]:
    """The dealer and the deck of a seeded hand (R2; decision: reproducible from the seed).

    ``random.Random(seed)`` first draws the dealer (used only when ``dealer`` is None, so that a given
    dealer does not change the shuffle), then shuffles the deck in kind order with ``Random.shuffle``.
    """
    rng = random.Random(seed)
    drawn = rng.randrange(table_size)
    if dealer is None:
        dealer = drawn
    deck = list(_FULL_DECK)
    _shuffle(rng, deck)
    return dealer, tuple(deck)


_FULL_DECK = tuple(full_deck())


def _fast_shuffle(rng: random.Random, x: list[Card]) -> None:
    """``rng.shuffle(x)`` with ``Random._randbelow`` inlined: the same calls to ``getrandbits`` in the same
    order, so the same permutation (checked at import, else :func:`_shuffle` is ``Random.shuffle``), at
    half the cost of the 80 method calls."""
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


def _same_as_stdlib() -> bool:
    for seed in range(20):
        a, b = list(_FULL_DECK), list(_FULL_DECK)
        random.Random(seed).shuffle(a)
        _fast_shuffle(random.Random(seed), b)
        if a != b:
            return False
    return True


# RNG_VERSION 1 is defined by ``Random.shuffle``: the inlined copy is used only where it is the same.
_shuffle = _fast_shuffle if _same_as_stdlib() else random.Random.shuffle


def check_deck(deck: Sequence[Card | int | str]) -> tuple[Card, ...]:
    """The deck as cards, checked: 80 cards, 4 of each kind.

    :raises DeckError: naming what is wrong.
    """
    if isinstance(deck, str):
        cards = parse_cards(deck)
    else:
        try:
            cards = tuple(Card.parse(c) if isinstance(c, str) else Card(c) for c in deck)
        except (ValueError, TypeError) as exc:
            raise DeckError(f"bad card in deck: {exc}") from None
    if len(cards) != DECK_SIZE:
        raise DeckError(f"a deck has {DECK_SIZE} cards, got {len(cards)}")
    counts = [0] * NUM_KINDS
    for c in cards:
        counts[c] += 1
    wrong = [f"{Card(k)}×{n}" for k, n in enumerate(counts) if n != COPIES]
    if wrong:
        raise DeckError(f"a deck has {COPIES} of each card; wrong counts: {', '.join(wrong)}")
    return cards


def seats_in_play(rules: RuleSet, dealer: int) -> tuple[int, ...]:
    """The seats that play a hand, in turn order from the dealer (R2).

    With ``four_players`` the dealer's opposite (dealer + 2) sits out.

    >>> from paohuzi.rules import find_preset
    >>> seats_in_play(find_preset("hunan").with_options(four_players=True), 3)
    (3, 0, 2)
    """
    n = rules.players_at_table
    return tuple((dealer + i) % n for i in range(n) if not (rules.four_players and i == 2))


def _cards(value: str | Sequence[Card | int] | Card | None) -> tuple[Card, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return parse_cards(value)
    if isinstance(value, int):
        return (Card(value),)
    return tuple(Card(c) for c in value)


def stack_deck(
    rules: RuleSet,
    dealer: int,
    hands: Mapping[int, str | Sequence[Card]] | None = None,
    *,
    liangzhang: str | Card | None = None,
    stock: str | Sequence[Card] = (),
    fill_seed: int = 0,
) -> tuple[Card, ...]:
    """A deck in deal order with chosen hands and stock (a test helper; pass it as ``Hand(deck=...)``).

    :param hands: seat → its cards. The dealer's may be 20 cards (then ``liangzhang`` is the 21st) or 21
        (the last one is the 亮张); 14 or 15 on 15-card hands (R9.3). Fewer cards are allowed: the rest is
        filled in.
    :param liangzhang: the dealer's last card (亮张), if not given as the last card of the dealer's hand.
    :param stock: the first cards of the stock, in the order they will be drawn.
    :param fill_seed: seeds the shuffle of the cards not chosen, which fill every place left open.
    :raises DeckError: for more than 4 of a kind, too many cards for a place, or a seat not in play.
    """
    order = seats_in_play(rules, dealer)
    dealer_size, hand_size = rules.deal_sizes  # (21, 20); (15, 14) in 六胡抢 (R9.3)
    stock_size = rules.stock_size
    hands = dict(hands or {})
    for seat in hands:
        if seat not in order:
            raise DeckError(f"seat {seat} does not play this hand (seats in play: {order})")
    chosen: dict[int, list[Card]] = {s: list(_cards(hands.get(s))) for s in order}
    liang = _cards(liangzhang)
    if len(liang) > 1:
        raise DeckError("the 亮张 is one card")
    dealer_cards = chosen[dealer]
    if len(dealer_cards) == dealer_size:
        if liang:
            raise DeckError(f"the dealer's hand already has {dealer_size} cards: its last one is the 亮张")
        liang = (dealer_cards.pop(),)
    stock_cards = list(_cards(stock))
    for seat, cards in chosen.items():
        if len(cards) > hand_size:
            raise DeckError(f"seat {seat} is given {len(cards)} cards; a hand has {hand_size} (+ the 亮张)")
    if len(stock_cards) > stock_size:
        raise DeckError(f"the stock has {stock_size} cards, {len(stock_cards)} given")
    counts = [0] * NUM_KINDS
    for c in [*liang, *stock_cards, *(c for cards in chosen.values() for c in cards)]:
        counts[c] += 1
    over = [f"{Card(k)}×{n}" for k, n in enumerate(counts) if n > COPIES]
    if over:
        raise DeckError(f"more than {COPIES} copies chosen: {', '.join(over)}")
    rest = [Card(k) for k in range(NUM_KINDS) for _ in range(COPIES - counts[k])]
    random.Random(fill_seed).shuffle(rest)
    deck: list[Card] = []
    for i, seat in enumerate(order):
        cards = chosen[seat]
        while len(cards) < hand_size:
            cards.append(rest.pop())
        deck += cards
        if i == 0:
            deck.append(liang[0] if liang else rest.pop())
    while len(stock_cards) < stock_size:
        stock_cards.append(rest.pop())
    deck += stock_cards
    assert not rest
    return check_deck(deck)
