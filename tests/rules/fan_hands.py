"""Shared fixtures of the R7.2 名堂-table tests (tests/rules/test_r7_2_fan_*.py): hands built by hand, one
per count that a table's boundaries care about, and the helpers that turn them into arrangements and names.

Every hand is 7 groups (21 cards) written ``kind:cards``; the tests check the red/big/small counts each hand
was built for, so a typo in a hand cannot hide behind a passing 番.
"""

from __future__ import annotations

from paohuzi.analysis import Arrangement
from paohuzi.cards import parse_cards
from paohuzi.groups import Group
from paohuzi.scoring import Name

__all__ = ["BIG", "DUIDUI", "RED", "SMALL", "arr", "names"]


def arr(text: str, *, loose: str = "", duidui: bool | None = None) -> Arrangement:
    """An arrangement from ``kind:cards`` groups; 胡息 is their sum (R3); 对对 if every group is one kind
    and no card is loose (R6.4 partial arrangements leave ``loose`` cards)."""
    groups = tuple(Group.parse(t) for t in text.split())
    if duidui is None:
        duidui = all(g.kind.same_kind for g in groups) and not loose
    return Arrangement(groups, sum(g.huxi for g in groups), duidui, parse_cards(loose))


def names(*pairs: tuple[str, int]) -> tuple[Name, ...]:
    """The expected :attr:`paohuzi.scoring.Score.names`, from (name, 番) pairs."""
    return tuple(Name(n, f) for n, f in pairs)


# red count -> (hand, 胡息, big). Big stays within 4–17 and small within 4–15, so no 大字/小字 名堂.
RED = {
    0: ("kan:x1x1x1 kan:d1d1d1 ju:x3x4x5 ju:d3d4d5 ju:x4x5x6 kan:d9d9d9 kan:x8x8x8", 18, 9),
    1: ("kan:x1x1x1 kan:d1d1d1 ju:x3x4x5 ju:d3d4d5 ju:x4x5x6 kan:d9d9d9 ju:x6x7x8", 15, 9),
    4: ("kan:x1x1x1 kan:d1d1d1 ju:x3x4x5 ju:d3d4d5 ju:x2x7x10 kan:d9d9d9 ju:x6x7x8", 18, 9),
    7: ("kan:x1x1x1 kan:d1d1d1 ju:x3x4x5 ju:d2d7d10 ju:x2x7x10 kan:d9d9d9 ju:x6x7x8", 24, 9),
    9: ("kan:x7x7x7 kan:d2d2d2 kan:x10x10x10 ju:x3x4x5 ju:d3d4d5 kan:d9d9d9 ju:x4x5x6", 18, 9),
    10: ("kan:x7x7x7 kan:d2d2d2 kan:x10x10x10 ju:x3x4x5 ju:d3d4d5 kan:d9d9d9 ju:d6d7d8", 18, 12),
    11: ("kan:x7x7x7 kan:d2d2d2 kan:x10x10x10 ju:x1x2x3 ju:d3d4d5 kan:d9d9d9 ju:d6d7d8", 21, 12),
    12: ("kan:x7x7x7 kan:d2d2d2 kan:x10x10x10 kan:d7d7d7 ju:x3x4x5 ju:d3d4d5 kan:x9x9x9", 21, 9),
    13: ("kan:x7x7x7 kan:d2d2d2 kan:x10x10x10 kan:d7d7d7 ju:x1x2x3 ju:d3d4d5 kan:x9x9x9", 24, 9),
    14: ("kan:x7x7x7 kan:d2d2d2 kan:x10x10x10 kan:d7d7d7 ju:x1x2x3 ju:d8d9d10 kan:x9x9x9", 24, 9),
}

# 对对 hands (every group of one kind), by red count.
DUIDUI = {
    0: "kan:x1x1x1 kan:d1d1d1 peng:x3x3x3 wei:d3d3d3 kan:x4x4x4 kan:d9d9d9 kan:x8x8x8",
    6: "kan:x7x7x7 kan:d2d2d2 kan:x1x1x1 kan:d1d1d1 peng:x3x3x3 kan:x4x4x4 wei:d9d9d9",
    10: "ti:x2x2x2x2 kan:d7d7d7 kan:x10x10x10 jiang:x1x1 kan:d1d1d1 kan:x3x3x3 peng:d4d4d4",
    12: "kan:x7x7x7 kan:d2d2d2 kan:x10x10x10 kan:d7d7d7 kan:x1x1x1 kan:d1d1d1 peng:x3x3x3",
    13: "pao:x2x2x2x2 kan:d2d2d2 kan:x7x7x7 kan:d7d7d7 jiang:x1x1 kan:d1d1d1 kan:x3x3x3",
}

# big/small count -> hand (red 3 in each: no red 名堂).
BIG = {
    17: "kan:d1d1d1 ju:d3d4d5 kan:d9d9d9 kan:d8d8d8 ju:d2d7d10 jiao:x6d6d6 ju:x3x4x5",
    18: "kan:d1d1d1 ju:d3d4d5 ju:d4d5d6 kan:d9d9d9 kan:d8d8d8 ju:d2d7d10 ju:x3x4x5",
    19: "kan:d1d1d1 ju:d3d4d5 ju:d4d5d6 kan:d9d9d9 kan:d8d8d8 ju:d2d7d10 jiao:x6x6d6",
}
SMALL = {
    15: "kan:x1x1x1 ju:x3x4x5 kan:x9x9x9 kan:x8x8x8 ju:x2x7x10 kan:d1d1d1 ju:d3d4d5",
    16: "kan:x1x1x1 ju:x3x4x5 kan:x9x9x9 kan:x8x8x8 ju:x2x7x10 jiao:x6d6d6 kan:d1d1d1",
    17: "kan:x1x1x1 ju:x3x4x5 kan:x9x9x9 kan:x8x8x8 ju:x2x7x10 jiao:x6x6d6 kan:d1d1d1",
    21: "kan:x1x1x1 ju:x3x4x5 kan:x9x9x9 kan:x8x8x8 ju:x2x7x10 ju:x4x5x6 peng:x6x6x6",
}
