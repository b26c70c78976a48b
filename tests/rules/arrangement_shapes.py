"""Helpers shared by the hand-made analysis tests (R3, R6): build a case from notation and compare the
arrangements exactly, as (胡息, 对对, sorted groups)."""

from __future__ import annotations

from paohuzi.analysis import Arrangement, Source, arrangements
from paohuzi.cards import Card, parse_cards
from paohuzi.groups import Group

Shape = tuple[int, bool, list[str]]
SELF, OTHER, DISCARD, NONE = Source.SELF, Source.OTHER, Source.DISCARD, Source.NONE


def groups_of(text: str) -> list[Group]:
    """Groups written ``kind:cards`` separated by spaces (``peng:d5d5d5 wei:x3x3x3``)."""
    return [Group.parse(t) for t in text.split()]


def shape(a: Arrangement) -> Shape:
    return a.huxi, a.duidui, sorted(str(g) for g in a.groups)


def analyse(
    hand: str, table: str = "", card: str | None = None, source: Source = NONE, *, min_huxi: int = 0
) -> list[Shape]:
    """The arrangements as (胡息, 对对, sorted groups) for exact comparison."""
    arrs = arrangements(
        parse_cards(hand),
        groups_of(table),
        None if card is None else Card.parse(card),
        source,
        min_huxi=min_huxi,
    )
    return [shape(a) for a in arrs]


def want(huxi: int, duidui: bool, groups: str) -> Shape:
    return huxi, duidui, sorted(str(g) for g in groups_of(groups))
