"""Hand analysis, R6: complete hands, the best arrangement, waits (听牌) and partial arrangements.

The analysis answers "how can these cards be arranged" and "how many 胡息 does each way score". Which
arrangement is *best* also depends on the 名堂 (R6.2: most points first), so this module returns, for a
hand, the best arrangement of each **shape** — at most one 对对 shape (every group of one kind) and one
other — and :func:`paohuzi.scoring.evaluate` picks between them. For a fixed set of cards the points
depend only on the 胡息 and on the shape, so those candidates always contain the best arrangement.

API:

- :class:`Source` — where the card being won came from.
- :class:`Arrangement` — groups, 胡息, shape.
- :func:`arrangements` — the candidate best arrangements of a complete hand (empty if incomplete).
- :func:`is_complete` — shortcut.
- :func:`waits` — 听牌: for a hand without a card, each card kind whose own draw completes it.
- :func:`arrangements_counted` / :func:`waits_counted` — the same with the red/big card counts, for scoring.
- :func:`arrangements_all` / :func:`arrangements_all_counted` / :func:`waits_all_counted` — every distinct
  complete arrangement, not only the best of each shape: for the families whose points are not monotonic in
  胡息 (R9: 卡胡, 行行息, 团圆).
- :func:`partial_arrangement` — the best partial arrangement of any cards (R6.4, R7.3 逃跑).
- :func:`dealt_tianhu` / :func:`tianhu_arrangement` — the dealt 天胡 of R6.4.

Two implementations give identical answers: :mod:`paohuzi.analysis.pure` in Python, and the optional
compiled accelerator :mod:`paohuzi._accel` (Cython, built when a C compiler is present; docs/decisions.md,
"Speed"). :data:`ACCELERATED` says which one runs; ``PAOHUZI_PURE=1`` in the environment forces Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from paohuzi.analysis import every, pure
from paohuzi.analysis.partial import dealt_tianhu, partial_arrangement, tianhu_arrangement
from paohuzi.analysis.pure import SHARED_GROUPS
from paohuzi.analysis.types import AnalysisError, Arrangement, Source
from paohuzi.cards import Card
from paohuzi.groups import Group

__all__ = [
    "ACCELERATED",
    "SHARED_GROUPS",
    "Source",
    "Arrangement",
    "AnalysisError",
    "arrangements",
    "arrangements_counted",
    "arrangements_all",
    "arrangements_all_counted",
    "waits_all_counted",
    "is_complete",
    "waits",
    "waits_counted",
    "partial_arrangement",
    "dealt_tianhu",
    "tianhu_arrangement",
    "clear_cache",
    "compiled_constructor",
    "validate",
]


def _load_accelerator(y: int = 0) -> ModuleType | None:
    """The compiled accelerator, set up with the pure module's tables, or None (not built, stale, or
    ``PAOHUZI_PURE=1``). ``y`` 1: its copy with 一五十 (``paohuzi._accel_yiwushi``, the same C source compiled as a
    second module, so that each shape set has its own tables and memo; R9.3)."""
    try:
        if y:
            from paohuzi import _accel_yiwushi as accel  # type: ignore[attr-defined]  # compiled, like _accel
        else:
            from paohuzi import _accel as accel  # type: ignore[attr-defined]  # compiled; absent without a C compiler
    except ImportError:
        return None
    if not accel.usable():
        return None
    accel.setup(pure.accel_tables(y))
    return accel  # type: ignore[no-any-return]


_ACCEL = _load_accelerator()
#: The accelerator of the shape set with 一五十 (rule option ``yiwushi``, R9.3), or None: then the pure path.
_ACCEL_Y = _load_accelerator(1) if _ACCEL is not None else None
#: True when the compiled accelerator answers (the tests check it is loaded whenever it was built).
ACCELERATED: bool = _ACCEL is not None


def compiled_constructor(cls: type[Any]) -> Callable[..., Any] | None:
    """A constructor compiled with the accelerator for a frozen slots dataclass (every field positional, in
    order; the same object as ``cls(...)``), or None without the accelerator or for a class it cannot build
    (``__post_init__``, fields outside ``__init__`` …). :mod:`paohuzi.scoring` builds its Score and Win so."""
    return None if _ACCEL is None else _ACCEL.maker(cls)


def clear_cache() -> None:
    """Forget the search memo (for benchmarks that measure cold analyses)."""
    pure.clear_cache()
    every.clear_cache()
    for accel in (_ACCEL, _ACCEL_Y):
        if accel is not None:
            accel.clear()


def arrangements(
    hand: Sequence[Card],
    table: Sequence[Group] = (),
    card: Card | None = None,
    source: Source = Source.NONE,
    *,
    min_huxi: int = 15,
    yiwushi: bool = False,
) -> tuple[Arrangement, ...]:
    """The best arrangement of each shape of a complete hand (R6.1, R6.2), or ``()`` if it is not complete.

    At most two are returned: the most 胡息 without the 对对 shape and the most with it (sorted, 对对
    last). :func:`paohuzi.scoring.evaluate` scores them and picks the best.

    :param hand: the cards in hand (before the card won).
    :param table: the player's table groups.
    :param card: the card won, or None to ask whether the cards as they stand are complete (R4.2.3).
    :param source: where the card came from (R6.1 decides how it may be used).
    :param min_huxi: the 胡息 a win needs (R6.1); 0 for 天胡.
    :raises AnalysisError: for more than 4 of a kind, a group that cannot be on a table, a card without a
        source or a source without a card.

    >>> from paohuzi.cards import parse_cards
    >>> best, = arrangements(parse_cards("壹贰叁 贰柒拾 二七十 一二三 肆伍陆 捌捌八"),
    ...                      [Group.parse("peng:x5x5x5")], min_huxi=0)
    >>> best.huxi, best.duidui
    (19, False)
    >>> arrangements(parse_cards("x1 x2 x3"), [], min_huxi=0)[0].groups
    (Group.parse('ju:x1 x2 x3'),)
    >>> arrangements(parse_cards("x1 x2"), [], Card.X4, Source.SELF, min_huxi=0)
    ()
    """
    accel = _ACCEL_Y if yiwushi else _ACCEL
    if accel is not None:
        found: tuple[Arrangement, ...] | None = accel.arrangements(hand, table, card, source, min_huxi)
        if found is not None:
            return found
    return pure.arrangements(hand, table, card, source, min_huxi, 1 if yiwushi else 0)


def arrangements_counted(
    hand: Sequence[Card],
    table: Sequence[Group],
    card: Card | None,
    source: Source,
    min_huxi: int,
    *,
    yiwushi: bool = False,
) -> tuple[tuple[Arrangement, ...], int, int, int]:
    """:func:`arrangements`, with the red (红字) and big (大字) cards among the winner's cards and how many
    cards there are — the same for every arrangement of these cards; ``((), 0, 0, 0)`` if not complete.
    What :func:`paohuzi.scoring.evaluate` needs (R7.2), counted without touching a group.

    >>> from paohuzi.cards import parse_cards
    >>> found, red, big, n = arrangements_counted(parse_cards("x2 x7 d1 d2 d3"), [], Card.X10, Source.SELF, 0)
    >>> [str(g) for g in found[0].groups], red, big, n
    (['ju:d1 d2 d3', 'ju:x2 x7 x10'], 4, 3, 6)
    """
    accel = _ACCEL_Y if yiwushi else _ACCEL
    if accel is not None:
        found: tuple[tuple[Arrangement, ...], int, int, int] | None = accel.arrangements_counted(
            hand, table, card, source, min_huxi
        )
        if found is not None:
            return found
    return pure.arrangements_counted(hand, table, card, source, min_huxi, 1 if yiwushi else 0)


def validate(
    hand: Sequence[Card],
    table: Sequence[Group] = (),
    card: Card | None = None,
    source: Source = Source.NONE,
    *,
    min_huxi: int = 15,
    yiwushi: bool = False,
) -> None:
    """Raise exactly the :class:`AnalysisError` that :func:`arrangements` would raise for these arguments,
    without the search: for callers that already know the answer is "not a win" (a discard that may not be
    won, R4.2) but must still refuse bad input.
    """
    accel = _ACCEL_Y if yiwushi else _ACCEL
    if accel is not None and accel.validate(hand, table, card, source, min_huxi):
        return
    pure.validate(hand, table, card, source, min_huxi, 1 if yiwushi else 0)


def is_complete(
    hand: Sequence[Card],
    table: Sequence[Group] = (),
    card: Card | None = None,
    source: Source = Source.NONE,
    *,
    min_huxi: int = 15,
    yiwushi: bool = False,
) -> bool:
    """True if the cards are complete (R6.1) with at least ``min_huxi`` 胡息. Same arguments as :func:`arrangements`."""
    accel = _ACCEL_Y if yiwushi else _ACCEL
    if accel is not None:
        found: bool | None = accel.is_complete(hand, table, card, source, min_huxi)
        if found is not None:
            return found
    return bool(pure.arrangements(hand, table, card, source, min_huxi, 1 if yiwushi else 0))


def waits(
    hand: Sequence[Card], table: Sequence[Group] = (), *, min_huxi: int = 15, yiwushi: bool = False
) -> dict[Card, tuple[Arrangement, ...]]:
    """听牌: every card kind whose own draw would complete the hand, with its arrangements (R6), in card order.

    Kinds the player already holds four of are left out.

    >>> from paohuzi.cards import parse_cards
    >>> sorted(str(c) for c in waits(parse_cards("x1 x2 x3 x7 x10"), min_huxi=0))
    ['x2']
    """
    accel = _ACCEL_Y if yiwushi else _ACCEL
    if accel is not None:
        found: dict[Card, tuple[Arrangement, ...]] | None = accel.waits(hand, table, min_huxi)
        if found is not None:
            return found
    return pure.waits(hand, table, min_huxi, 1 if yiwushi else 0)


def waits_counted(
    hand: Sequence[Card], table: Sequence[Group], min_huxi: int, *, yiwushi: bool = False
) -> list[tuple[Card, tuple[Arrangement, ...], int, int, int]]:
    """:func:`waits` in card order as ``(card, arrangements, red, big, cards)``, the counts as in
    :func:`arrangements_counted` (with the card won): what :func:`paohuzi.scoring.scored_waits` needs.

    >>> from paohuzi.cards import parse_cards
    >>> [(str(c), red, big, n) for c, _found, red, big, n in waits_counted(parse_cards("x1 x2 x3 x7 x10"), [], 0)]
    [('x2', 4, 0, 6)]
    """
    accel = _ACCEL_Y if yiwushi else _ACCEL
    if accel is not None:
        found: list[tuple[Card, tuple[Arrangement, ...], int, int, int]] | None = accel.waits_counted(
            hand, table, min_huxi
        )
        if found is not None:
            return found
    return pure.waits_counted(hand, table, min_huxi, 1 if yiwushi else 0)


def arrangements_all(
    hand: Sequence[Card],
    table: Sequence[Group] = (),
    card: Card | None = None,
    source: Source = Source.NONE,
    *,
    min_huxi: int = 15,
    yiwushi: bool = False,
) -> tuple[Arrangement, ...]:
    """Every distinct complete arrangement (R6.1) with at least ``min_huxi`` 胡息, or ``()`` if there is none.

    Distinct: a different multiset of groups (the order of the groups within one arrangement is as in
    :func:`arrangements`). The order: most 胡息 first, equal 胡息 in a fixed order, such that the first of each
    shape is exactly what :func:`arrangements` returns for that shape. A family whose points are not monotonic
    in 胡息 and shape ranks these (R6.2, R9: 卡胡 10 胡息 → 3 囤 beats 12 → 2). Same arguments and errors as
    :func:`arrangements`.

    >>> from paohuzi.cards import parse_cards
    >>> [(a.huxi, [str(g) for g in a.groups]) for a in arrangements_all(parse_cards("x1 x2 x3 x1 x2 x3"), min_huxi=0)]
    [(6, ['ju:x1 x2 x3', 'ju:x1 x2 x3'])]
    >>> found = arrangements_all(parse_cards("x1 x2 x3 x1 x2 x3 d1 d2 d3"), min_huxi=0)
    >>> [(a.huxi, [str(g) for g in a.groups]) for a in found]  # doctest: +NORMALIZE_WHITESPACE
    [(12, ['ju:x1 x2 x3', 'ju:x1 x2 x3', 'ju:d1 d2 d3']),
     (0, ['jiao:x1 x1 d1', 'jiao:x2 x2 d2', 'jiao:x3 x3 d3'])]
    """
    accel = _ACCEL_Y if yiwushi else _ACCEL
    if accel is not None:
        found: tuple[Arrangement, ...] | None = accel.arrangements_all(hand, table, card, source, min_huxi)
        if found is not None:
            return found
    return every.arrangements_all(hand, table, card, source, min_huxi, 1 if yiwushi else 0)


def arrangements_all_counted(
    hand: Sequence[Card],
    table: Sequence[Group],
    card: Card | None,
    source: Source,
    min_huxi: int,
    *,
    yiwushi: bool = False,
) -> tuple[tuple[Arrangement, ...], int, int, int]:
    """:func:`arrangements_all` with the red, big and all cards, as :func:`arrangements_counted` gives them;
    ``((), 0, 0, 0)`` if not complete."""
    accel = _ACCEL_Y if yiwushi else _ACCEL
    if accel is not None:
        found: tuple[tuple[Arrangement, ...], int, int, int] | None = accel.arrangements_all_counted(
            hand, table, card, source, min_huxi
        )
        if found is not None:
            return found
    return every.arrangements_all_counted(hand, table, card, source, min_huxi, 1 if yiwushi else 0)


def waits_all_counted(
    hand: Sequence[Card], table: Sequence[Group], min_huxi: int, *, yiwushi: bool = False
) -> list[tuple[Card, tuple[Arrangement, ...], int, int, int]]:
    """:func:`waits_counted` with every arrangement of each wait (:func:`arrangements_all`'s, in its order)."""
    accel = _ACCEL_Y if yiwushi else _ACCEL
    if accel is not None:
        found: list[tuple[Card, tuple[Arrangement, ...], int, int, int]] | None = accel.waits_all_counted(
            hand, table, min_huxi
        )
        if found is not None:
            return found
    return every.waits_all_counted(hand, table, min_huxi, 1 if yiwushi else 0)
