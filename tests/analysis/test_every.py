"""R6.1, R6.2, R9: :func:`paohuzi.analysis.arrangements_all` lists every distinct complete arrangement.

Against the brute-force reference (``reference.py``, which enumerates every partition): exactly the reference's
arrangements reaching ``min_huxi``, each once (distinct = another multiset of groups), most 胡息 first, and the
first of each shape is what :func:`paohuzi.analysis.arrangements` returns. The counted and waits variants agree
with :func:`arrangements_counted` / :func:`waits_counted`. On the seeded corpus of ``cases.py`` and on
hypothesis' hands (``test_properties.py``'s strategies).
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given

from paohuzi.analysis import (
    AnalysisError,
    Arrangement,
    Source,
    arrangements,
    arrangements_all,
    arrangements_all_counted,
    arrangements_counted,
    waits_all_counted,
    waits_counted,
)
from paohuzi.cards import Card, parse_cards
from paohuzi.groups import Group

from .cases import generate
from .reference import all_arrangements, arrangement_key
from .test_properties import SETTINGS, Hand, hands

CHUNKS = 8
PER_CHUNK = 400


def _first_of_each_shape(found: tuple[Arrangement, ...]) -> tuple[Arrangement, ...]:
    first: dict[bool, Arrangement] = {}
    for a in found:
        first.setdefault(a.duidui, a)
    return tuple(first[d] for d in sorted(first))


def check(hand: tuple[Card, ...], table: tuple[Group, ...], card: Card | None, source: Source, m: int) -> list[str]:
    """Every way ``arrangements_all`` disagrees with the reference and with ``arrangements`` (empty if none)."""
    errors = []
    want = {arrangement_key(a.groups) for a in all_arrangements(hand, table, card, source.value) if a.huxi >= m}
    got = arrangements_all(hand, table, card, source, min_huxi=m)
    keys = [arrangement_key(a.groups) for a in got]
    if len(set(keys)) != len(keys):
        errors.append(f"an arrangement listed twice: {got}")
    if set(keys) != want:
        errors.append(f"{len(set(keys))} arrangements, the reference has {len(want)}: {got}")
    if [a.huxi for a in got] != sorted((a.huxi for a in got), reverse=True):
        errors.append(f"not most 胡息 first: {[a.huxi for a in got]}")
    cards = Counter(hand) + Counter(c for g in table for c in g.cards) + Counter([] if card is None else [card])
    for a in got:
        if a.huxi != sum(g.huxi for g in a.groups) or a.duidui != all(g.kind.same_kind for g in a.groups):
            errors.append(f"wrong 胡息 or 对对 flag: {a}")
        if Counter(c for g in a.groups for c in g.cards) != cards or a.loose:
            errors.append(f"not exactly these cards: {a}")
    if _first_of_each_shape(got) != arrangements(hand, table, card, source, min_huxi=m):
        errors.append(f"first of each shape {_first_of_each_shape(got)} != arrangements()")
    counted = arrangements_all_counted(hand, table, card, source, m)
    best = arrangements_counted(hand, table, card, source, m)
    if counted[0] != got or counted[1:] != best[1:]:
        errors.append(f"arrangements_all_counted {counted[1:]} != arrangements_counted {best[1:]}")
    return errors


def check_waits(hand: tuple[Card, ...], table: tuple[Group, ...], m: int) -> list[str]:
    every = waits_all_counted(hand, table, m)
    best = waits_counted(hand, table, m)
    if [(c, *rest) for c, _f, *rest in every] != [(c, *rest) for c, _f, *rest in best]:
        return [f"waits_all_counted's kinds or counts {every} != waits_counted's {best}"]
    errors = []
    for card, found, *_counts in every:
        if found != arrangements_all(hand, table, card, Source.SELF, min_huxi=m):
            errors.append(f"wait {card}: not arrangements_all's answer")
    for (_c, found, *_r), (_c2, want, *_r2) in zip(every, best, strict=True):
        if _first_of_each_shape(found) != want:
            errors.append(f"wait {_c}: the first of each shape is not waits_counted's")
    return errors


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_r6_1_every_arrangement_agrees_with_reference(chunk: int) -> None:
    failures: list[str] = []
    several = 0
    for i, case in enumerate(generate(seed=31_000 + chunk, n=PER_CHUNK)):
        errors = check(case.hand, case.table, case.card, Source(case.source), case.min_huxi)
        errors += check(case.hand, case.table, case.card, Source(case.source), 0)
        if i % 8 == 0:
            errors += check_waits(case.hand, case.table, case.min_huxi)
        if errors:
            failures.append(f"{case}\n    " + "\n    ".join(errors))
        several += len(arrangements_all(case.hand, case.table, case.card, Source(case.source), min_huxi=0)) > 1
    assert not failures, f"{len(failures)} of {PER_CHUNK} cases disagree:\n" + "\n".join(failures[:8])
    # The corpus must keep exercising hands of several readings.
    assert several > PER_CHUNK * 0.02, several


@SETTINGS
@given(hands)
def test_r6_1_every_arrangement_properties(h: Hand) -> None:
    errors = check(h.hand, h.table, h.card, h.source, h.min_huxi)
    if h.card is None:
        errors += check_waits(h.hand, h.table, h.min_huxi)
    assert not errors, "\n".join(errors)


def test_r6_1_every_arrangement_exact_listing() -> None:
    """Two readings of 一二三 ×2 + 壹贰叁: three 句 (3 + 3 + 6 = 12 胡息) or three 绞 (0)."""
    found = arrangements_all(parse_cards("x1 x2 x3 x1 x2 x3 d1 d2 d3"), min_huxi=0)
    assert [(a.huxi, [str(g) for g in a.groups]) for a in found] == [
        (12, ["ju:x1 x2 x3", "ju:x1 x2 x3", "ju:d1 d2 d3"]),
        (0, ["jiao:x1 x1 d1", "jiao:x2 x2 d2", "jiao:x3 x3 d3"]),
    ]
    assert [a.huxi for a in arrangements_all(parse_cards("x1 x2 x3 x1 x2 x3 d1 d2 d3"), min_huxi=1)] == [12]
    assert arrangements_all(parse_cards("x1 x2 x3 x1 x2 x3 d1 d2 d3"), min_huxi=13) == ()


def test_r6_1_every_arrangement_same_errors() -> None:
    with pytest.raises(AnalysisError, match="more than 4 of a kind"):
        arrangements_all(parse_cards("x1 x1 x1 x1 x1"), min_huxi=0)
    with pytest.raises(AnalysisError, match="given without a card"):
        arrangements_all(parse_cards("x1"), (), None, Source.SELF, min_huxi=0)
    with pytest.raises(AnalysisError, match="not a card"):
        arrangements_all_counted([99], (), None, Source.NONE, 0)  # type: ignore[list-item]

