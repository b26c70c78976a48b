"""Cards (牌), R1: the 20 card kinds, their properties and their text notation.

A card kind is a :class:`Card`, an ``IntEnum`` whose value is a compact index
(``x1`` … ``x10`` are 0 … 9, ``d1`` … ``d10`` are 10 … 19) so that hot paths can use
plain ints and lists of 20 counts, while code and tests read as card names.

>>> Card.parse("x7"), Card.parse("柒").point, Card.X10.red
(Card.parse('x7'), 7, True)
>>> format_cards(parse_cards("一二三 壹,贰"))
'x1 x2 x3 d1 d2'
>>> format_cards(parse_cards("x1 x2 x3"), chinese=True)
'一二三'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import Final

__all__ = [
    "Card",
    "NUM_KINDS",
    "COPIES",
    "DECK_SIZE",
    "PaohuziError",
    "NotationError",
    "parse_cards",
    "format_cards",
    "counts_of",
    "cards_of_counts",
    "full_deck",
    "CARDS",
    "POINTS",
    "IS_BIG",
    "IS_RED",
    "TOKENS",
]

NUM_KINDS: Final = 20
COPIES: Final = 4
DECK_SIZE = NUM_KINDS * COPIES

SMALL_CHARS = "一二三四五六七八九十"
BIG_CHARS = "壹贰叁肆伍陆柒捌玖拾"
RED_POINTS = frozenset((2, 7, 10))


class PaohuziError(ValueError):
    """Base class of every error this package raises on bad input."""


class NotationError(PaohuziError):
    """A card, group or action text that does not follow the notation (R1)."""


class Card(IntEnum):
    """A card kind (牌): point 1–10, small (小字, ``x``) or big (大字, ``d``). R1.

    ``str(card)`` is the ASCII token (``x7``), :attr:`chinese` the character (``七``).
    """

    X1 = 0
    X2 = 1
    X3 = 2
    X4 = 3
    X5 = 4
    X6 = 5
    X7 = 6
    X8 = 7
    X9 = 8
    X10 = 9
    D1 = 10
    D2 = 11
    D3 = 12
    D4 = 13
    D5 = 14
    D6 = 15
    D7 = 16
    D8 = 17
    D9 = 18
    D10 = 19

    # The properties read plain tables indexed by the card's int value (no enum ``.value`` lookups): they
    # sit on hot paths (scoring counts red and big cards, the notation formats every card).

    @property
    def point(self) -> int:
        """牌点: the number 1–10, the same for small and big."""
        return POINTS[self]

    @property
    def big(self) -> bool:
        """True for 大字 (壹…拾), False for 小字 (一…十)."""
        return IS_BIG[self]

    @property
    def red(self) -> bool:
        """红字: points 2, 7 and 10 of both cases (R1)."""
        return IS_RED[self]

    @property
    def chinese(self) -> str:
        """The Chinese character: 一…十 for small cards, 壹…拾 for big ones."""
        return _CHINESE[self]

    @property
    def other_case(self) -> Card:
        """The card of the same point in the other case (x7 ↔ d7), as used in 绞."""
        return CARDS[self + 10 if self < 10 else self - 10]

    @classmethod
    def of(cls, point: int, big: bool) -> Card:
        """The card with this point (1–10) and case.

        :raises NotationError: if the point is not 1–10.
        """
        if not 1 <= point <= 10:
            raise NotationError(f"card point must be 1–10, got {point!r}")
        return CARDS[point - 1 + (10 if big else 0)]

    @classmethod
    def parse(cls, token: str) -> Card:
        """Parse one card: ``x1``…``x10``, ``d1``…``d10`` (any case) or a Chinese character.

        :raises NotationError: naming the token if it is not a card.

        >>> Card.parse("D10"), Card.parse("二")
        (Card.parse('d10'), Card.parse('x2'))
        """
        card = _TOKENS.get(token.strip().lower()) if isinstance(token, str) else None
        if card is None:
            raise NotationError(f"not a card: {token!r} (expected x1…x10, d1…d10, 一…十 or 壹…拾)")
        return card

    def __str__(self) -> str:
        return TOKENS[self]

    def __format__(self, spec: str) -> str:
        return format(TOKENS[self], spec)

    def __repr__(self) -> str:
        return f"Card.parse({TOKENS[self]!r})"


#: The cards by index (``CARDS[k]`` is ``Card(k)``, without the enum call).
CARDS: tuple[Card, ...] = tuple(Card)
#: Per card index: the point 1–10, big (大字), red (红字, R1) and the ASCII token (``x7``).
POINTS: tuple[int, ...] = tuple(k % 10 + 1 for k in range(NUM_KINDS))
IS_BIG: tuple[bool, ...] = tuple(k >= 10 for k in range(NUM_KINDS))
IS_RED: tuple[bool, ...] = tuple(k % 10 + 1 in RED_POINTS for k in range(NUM_KINDS))
TOKENS: tuple[str, ...] = tuple(("d" if k >= 10 else "x") + str(k % 10 + 1) for k in range(NUM_KINDS))
_CHINESE: tuple[str, ...] = tuple(SMALL_CHARS) + tuple(BIG_CHARS)

_TOKENS: dict[str, Card] = {}
for _card in CARDS:
    _TOKENS[TOKENS[_card]] = _card
    _TOKENS[_CHINESE[_card]] = _card
# The parse fast paths: exact tokens as written (either case of x/d) and the Chinese characters alone.
_EXACT: dict[str, Card] = {**_TOKENS, **{t.upper(): c for t, c in _TOKENS.items()}}
_CHINESE_CARDS: dict[str, Card] = {ch: CARDS[k] for k, ch in enumerate(_CHINESE)}

# One token: an ASCII card (x10 before x1) or one Chinese card character. Separators are
# spaces and commas (ASCII or full-width); ASCII tokens may also stand back to back ("d5d5d5").
_TOKEN_RE = re.compile(r"[xXdD](?:10|[1-9])|[" + SMALL_CHARS + BIG_CHARS + r"]")
_SEPARATORS = " \t\n\r,，、"


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a list of cards (R1): tokens separated by spaces or commas, or written back to back.

    :raises NotationError: naming the first bad token and its position (0-based character index).

    >>> parse_cards("x1, d10 柒柒")
    (Card.parse('x1'), Card.parse('d10'), Card.parse('d7'), Card.parse('d7'))
    >>> parse_cards("x1 y2")
    Traceback (most recent call last):
    ...
    paohuzi.cards.NotationError: bad card token 'y2' at position 3 in 'x1 y2'
    """
    if not isinstance(text, str):
        raise NotationError(f"a card list must be text, got {type(text).__name__}")
    # Fast paths, no regex: tokens separated by single spaces ("x1 d10 柒"), then Chinese characters
    # with any separators ("一二三 壹,贰"). Anything else (back-to-back ASCII, commas between ASCII
    # tokens, bad tokens) takes the scanner below, which also words the errors.
    try:
        return tuple([_EXACT[t] for t in text.split(" ") if t])
    except KeyError:
        pass
    try:
        return tuple([_CHINESE_CARDS[ch] for ch in text if ch not in _SEPARATORS])
    except KeyError:
        pass
    return _scan_cards(text)


def _scan_cards(text: str) -> tuple[Card, ...]:
    """The general parse of :func:`parse_cards` (one regex match per token); the fast paths agree with it."""
    cards: list[Card] = []
    pos, n = 0, len(text)
    while pos < n:
        ch = text[pos]
        if ch in _SEPARATORS:
            pos += 1
            continue
        m = _TOKEN_RE.match(text, pos)
        # "x1" followed by a digit (as in "x11") is not a card: reject instead of reading x1 + "1".
        if m is None or (m.end() < n and text[m.end()].isdigit()):
            end = pos
            while end < n and text[end] not in _SEPARATORS:
                end += 1
            raise NotationError(f"bad card token {text[pos:end]!r} at position {pos} in {text!r}")
        cards.append(_TOKENS[m.group().lower()])
        pos = m.end()
    return tuple(cards)


def format_cards(cards: Iterable[Card], *, chinese: bool = False) -> str:
    """Format cards: ASCII tokens separated by spaces, or Chinese characters back to back.

    >>> format_cards([Card.X2, Card.X7, Card.X10], chinese=True)
    '二七十'
    """
    if chinese:
        return "".join(c.chinese for c in cards)
    return " ".join(str(c) for c in cards)


def counts_of(cards: Iterable[int]) -> list[int]:
    """A list of 20 counts, one per card kind.

    >>> counts_of([Card.X1, Card.X1, Card.D10])[:2], counts_of([Card.D10])[19]
    ([2, 0], 1)
    """
    counts = [0] * NUM_KINDS
    for c in cards:
        counts[c] += 1
    return counts


def cards_of_counts(counts: Sequence[int]) -> tuple[Card, ...]:
    """The sorted cards of a list of 20 counts (the inverse of :func:`counts_of`)."""
    return tuple(CARDS[k] for k in range(NUM_KINDS) for _ in range(counts[k]))


def full_deck() -> list[Card]:
    """The 80 cards in kind order, 4 copies of each (R1)."""
    return [CARDS[k] for k in range(NUM_KINDS) for _ in range(COPIES)]
