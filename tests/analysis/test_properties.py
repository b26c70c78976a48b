"""Properties of the hand analysis (R6.1, R6.2, R6.4), checked with hypothesis.

Hands are built from groups (so that many are complete and shrink to small examples) or drawn at
random. Every property holds for every input; the agreement with the brute-force reference is checked
here too, on hypothesis' cases.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paohuzi.analysis import (
    Arrangement,
    Source,
    arrangements,
    clear_cache,
    dealt_tianhu,
    is_complete,
    partial_arrangement,
    tianhu_arrangement,
    waits,
)
from paohuzi.cards import NUM_KINDS, Card
from paohuzi.groups import Group, GroupKind

from ..support.fast import examples
from .cases import generate, random_deal
from .reference import best_by_shape, ref_dealt_tianhu, ref_partial_huxi, ref_tianhu_huxi

# Deterministic by default (derandomize) so that CI never flakes; for a longer random search run e.g.
# ``PAOHUZI_HYPOTHESIS_EXAMPLES=5000 pytest tests/analysis/test_properties.py``.
_EXAMPLES = os.environ.get("PAOHUZI_HYPOTHESIS_EXAMPLES")
SETTINGS = settings(
    max_examples=int(_EXAMPLES or examples(300)),
    deadline=None,
    derandomize=_EXAMPLES is None,
    suppress_health_check=[HealthCheck.too_slow],
)

KINDS = list(Card)
SAME_TABLE = (GroupKind.TI, GroupKind.PAO, GroupKind.WEI, GroupKind.CHOUWEI, GroupKind.PENG)
_JU = [
    tuple(Card.of(q, big) for q in pts)
    for big in (False, True)
    for pts in [(p, p + 1, p + 2) for p in range(1, 9)] + [(2, 7, 10)]
]
_JIAO = [(Card.of(p, False),) * 2 + (Card.of(p, True),) for p in range(1, 11)] + [
    (Card.of(p, False),) + (Card.of(p, True),) * 2 for p in range(1, 11)
]
TABLE_GROUPS = [Group(k, (c,) * k.size) for k in SAME_TABLE for c in KINDS] + [Group.chi(c) for c in _JU + _JIAO]
HAND_GROUP_CARDS = [(c,) * 3 for c in KINDS] + [(c,) * 4 for c in KINDS] + _JU + _JIAO


class Hand:
    """One analysis input."""

    def __init__(
        self, hand: Sequence[Card], table: Sequence[Group], card: Card | None, source: Source, min_huxi: int
    ) -> None:
        self.hand, self.table, self.card, self.source, self.min_huxi = (
            tuple(hand),
            tuple(table),
            card,
            source,
            min_huxi,
        )

    def __repr__(self) -> str:
        return (
            f"Hand(parse_cards({' '.join(map(str, self.hand))!r}), {list(self.table)!r}, {self.card!r}, "
            f"{self.source}, min_huxi={self.min_huxi})"
        )

    def args(self) -> tuple[tuple[Card, ...], tuple[Group, ...], Card | None, Source]:
        return self.hand, self.table, self.card, self.source

    def arrangements(self) -> tuple[Arrangement, ...]:
        return arrangements(*self.args(), min_huxi=self.min_huxi)


def _fits(used: list[int], cards: Sequence[Card]) -> bool:
    c = Counter(cards)
    return all(used[k] + n <= 4 for k, n in c.items())


def _add(used: list[int], cards: Sequence[Card]) -> None:
    for k in cards:
        used[k] += 1


@st.composite
def built_hands(draw: st.DrawFn) -> Hand:
    """A hand made of groups (complete or nearly), with a card won from any source."""
    used = [0] * NUM_KINDS
    table: list[Group] = []
    for g in draw(st.lists(st.sampled_from(TABLE_GROUPS), max_size=4)):
        if _fits(used, g.cards):
            table.append(g)
            _add(used, g.cards)
    hand: list[Card] = []
    for cards in draw(st.lists(st.sampled_from(HAND_GROUP_CARDS), max_size=7 - len(table))):
        if _fits(used, cards):
            hand += cards
            _add(used, cards)
    if draw(st.booleans()):
        k = draw(st.sampled_from(KINDS))
        if _fits(used, (k, k)):
            hand += [k, k]
            _add(used, (k, k))
    source = draw(st.sampled_from(list(Source)))
    card = None
    if source is not Source.NONE:
        threes = [
            g.card for g in table if g.kind in (GroupKind.WEI, GroupKind.CHOUWEI, GroupKind.PENG) and used[g.card] < 4
        ]
        how = draw(st.sampled_from(["hand", "hand", "hand", "table", "any"]))
        if how == "hand" and hand:  # one of the hand cards is the card won
            card = hand.pop(draw(st.integers(0, len(hand) - 1)))
        elif how == "table" and threes:  # the fourth card of a table 偎/臭偎/碰
            card = draw(st.sampled_from(threes))
        else:
            card = draw(st.sampled_from([k for k in KINDS if used[k] < 4]))
    hand = draw(st.permutations(hand))
    return Hand(hand, table, card, source, draw(st.sampled_from([0, 0, 10, 15, 25])))


@st.composite
def random_hands(draw: st.DrawFn) -> Hand:
    """Random cards (at most 4 of a kind), a few random table groups, a random card."""
    used = [0] * NUM_KINDS
    table: list[Group] = []
    for g in draw(st.lists(st.sampled_from(TABLE_GROUPS), max_size=3)):
        if _fits(used, g.cards):
            table.append(g)
            _add(used, g.cards)
    hand: list[Card] = []
    for k in draw(st.lists(st.sampled_from(KINDS), max_size=21)):
        if used[k] < 4:
            hand.append(k)
            used[k] += 1
    source = draw(st.sampled_from(list(Source)))
    card = None if source is Source.NONE else draw(st.sampled_from([k for k in KINDS if used[k] < 4]))
    return Hand(hand, table, card, source, draw(st.sampled_from([0, 15])))


hands = st.one_of(built_hands(), random_hands())


def _best(arrs: Sequence[Arrangement]) -> dict[bool, int]:
    return {a.duidui: a.huxi for a in arrs}


def _merge(*bests: dict[bool, int]) -> dict[bool, int]:
    out: dict[bool, int] = {}
    for b in bests:
        for d, h in b.items():
            out[d] = max(out.get(d, -1), h)
    return out


def _without(cards: Sequence[Card], card: Card, n: int) -> list[Card]:
    out = list(cards)
    for _ in range(n):
        out.remove(card)
    return out


@SETTINGS
@given(hands)
def test_r6_1_arrangements_partition_exactly_the_cards(h: Hand) -> None:
    want = Counter(h.hand) + Counter(c for g in h.table for c in g.cards)
    if h.card is not None:
        want[h.card] += 1
    for a in h.arrangements():
        assert Counter(c for g in a.groups for c in g.cards) == want
        assert a.loose == ()
        # Table groups stay, except the one the card joined, which becomes its 跑/提.
        missing = Counter(h.table) - Counter(a.groups)
        assert sum(missing.values()) <= 1
        for g in missing:  # 偎 + own draw → 提; 偎 + another's card → 跑; 碰 + a drawn card → 跑
            assert g.card == h.card and g.kind in (GroupKind.WEI, GroupKind.CHOUWEI, GroupKind.PENG)
            own_ti = h.source is Source.SELF and g.kind is not GroupKind.PENG
            assert Group(GroupKind.TI if own_ti else GroupKind.PAO, (g.card,) * 4) in a.groups
            assert not (g.kind is GroupKind.PENG and h.source is Source.DISCARD)
        # The table groups come first, in their order (the joined one in its place).
        for g, t in zip(a.groups, h.table, strict=False):
            assert g == t or (g.card == t.card and g.kind.four and t in missing)
        # The groups the hand cards (and the card) make are of the kinds R6.1 allows.
        made = Counter(a.groups) - Counter(h.table)
        allowed = {
            GroupKind.KAN,
            GroupKind.JU,
            GroupKind.JIAO,
            GroupKind.JIANG,
            GroupKind.TI,
            GroupKind.PAO,
            GroupKind.WEI,
            GroupKind.PENG,
        }
        assert all(g.kind in allowed for g in made)


@SETTINGS
@given(hands)
def test_r3_huxi_is_the_sum_and_groups_are_valid(h: Hand) -> None:
    arrs = h.arrangements()
    assert len({a.duidui for a in arrs}) == len(arrs) <= 2
    assert [a.duidui for a in arrs] == sorted(a.duidui for a in arrs)  # 对对 last
    for a in arrs:
        assert a.huxi == sum(g.huxi for g in a.groups) >= h.min_huxi
        for g in a.groups:
            assert isinstance(g, Group) and Group(g.kind, g.cards) == g
        assert a.duidui == all(g.kind.same_kind for g in a.groups)


@SETTINGS
@given(hands)
def test_r6_1_jiang_and_kan_rules(h: Hand) -> None:
    counts = Counter(h.hand)
    for a in h.arrangements():
        n_four = sum(g.kind.four for g in a.groups)
        assert sum(g.kind is GroupKind.JIANG for g in a.groups) == (1 if n_four else 0)
        for k, n in counts.items():
            if n == 4:
                assert Group(GroupKind.TI, (k,) * 4) in a.groups  # four of a kind in hand: a 提
            elif n == 3:  # a 坎 is never broken: it stays, or the card joins it
                joined = GroupKind.TI if h.source is Source.SELF else GroupKind.PAO
                group = Group(joined, (k,) * 4) if h.card == k else Group(GroupKind.KAN, (k,) * 3)
                assert group in a.groups


@SETTINGS
@given(hands)
def test_r6_1_agrees_with_reference(h: Hand) -> None:
    assert _best(h.arrangements()) == best_by_shape(*h.args()[:3], h.source.value, min_huxi=h.min_huxi)
    assert is_complete(*h.args(), min_huxi=h.min_huxi) == bool(h.arrangements())


@SETTINGS
@given(hands, st.randoms(use_true_random=False))
def test_r6_1_hand_order_does_not_matter(h: Hand, rnd) -> None:  # type: ignore[no-untyped-def]
    hand, table = list(h.hand), list(h.table)
    rnd.shuffle(hand)
    rnd.shuffle(table)
    assert _best(arrangements(hand, table, h.card, h.source, min_huxi=h.min_huxi)) == _best(h.arrangements())


@SETTINGS
@given(hands)
def test_r6_1_memo_does_not_change_answers(h: Hand) -> None:
    warm = (h.arrangements(), h.arrangements())
    clear_cache()
    assert h.arrangements() == warm[0] == warm[1]


@SETTINGS
@given(hands, st.integers(0, 60))
def test_r6_1_min_huxi_only_filters(h: Hand, m: int) -> None:
    all_shapes = _best(arrangements(*h.args(), min_huxi=0))
    assert _best(arrangements(*h.args(), min_huxi=m)) == {d: x for d, x in all_shapes.items() if x >= m}


@SETTINGS
@given(hands)
def test_r6_1_forced_and_optional_uses_of_the_card(h: Hand) -> None:
    """The card's group is forced, optional or absent exactly as R6.1 says.

    Each use is rewritten as a hand without a card (Source.NONE) whose table holds the group the card
    made: a forced use must give exactly that; optional uses give the best of the ways; a card that
    joins nothing is just one more hand card.
    """
    if h.card is None:
        return
    k, m = h.card, h.min_huxi
    got = _best(h.arrangements())
    n_hand = h.hand.count(k)
    table = list(h.table)
    wei_at = [i for i, g in enumerate(table) if g.card == k and g.kind in (GroupKind.WEI, GroupKind.CHOUWEI)]
    peng_at = [i for i, g in enumerate(table) if g.card == k and g.kind is GroupKind.PENG]

    def none(hand: Sequence[Card], tbl: Sequence[Group]) -> dict[bool, int]:
        return _best(arrangements(hand, tbl, None, Source.NONE, min_huxi=m))

    def with_table(i: int, kind: GroupKind) -> list[Group]:
        return [*table[:i], Group(kind, (k,) * 4), *table[i + 1 :]]

    joined = none([*h.hand, k], table) if n_hand <= 1 else {}
    own = h.source is Source.SELF
    if n_hand == 3:  # 坎 → 提/跑, forced
        four = Group(GroupKind.TI if own else GroupKind.PAO, (k,) * 4)
        assert got == none(_without(h.hand, k, 3), [*table, four])
    elif n_hand == 2 and own:  # pair + own draw → 偎, forced
        assert got == none(_without(h.hand, k, 2), [*table, Group(GroupKind.WEI, (k,) * 3)])
    elif n_hand == 2:  # pair + another's card → 碰 (optional), or the card joins the pair's hand
        peng = none(_without(h.hand, k, 2), [*table, Group(GroupKind.PENG, (k,) * 3)])
        assert _merge(got, peng) == got
    elif wei_at and own:  # 偎 + own draw → 提, forced
        assert got == none(h.hand, with_table(wei_at[0], GroupKind.TI))
    elif wei_at:  # 偎 + another's card → 跑, optional
        assert got == _merge(joined, none(h.hand, with_table(wei_at[0], GroupKind.PAO)))
    elif peng_at and h.source is not Source.DISCARD:  # 碰 + a drawn card → 跑, optional
        assert got == _merge(joined, none(h.hand, with_table(peng_at[0], GroupKind.PAO)))
    else:  # nothing to join (碰 + a discard included): the card is one more hand card
        assert got == joined


@SETTINGS
@given(hands)
def test_r6_waits_agree_with_arrangements(h: Hand) -> None:
    w = waits(h.hand, h.table, min_huxi=h.min_huxi)
    held = Counter(h.hand) + Counter(c for g in h.table for c in g.cards)
    for k in KINDS:
        if held[k] >= 4:
            assert k not in w
            continue
        arrs = arrangements(h.hand, h.table, k, Source.SELF, min_huxi=h.min_huxi)
        assert w.get(k, ()) == arrs
        assert (k in w) == bool(arrs)


@SETTINGS
@given(st.lists(st.sampled_from(KINDS), max_size=24).filter(lambda c: max(Counter(c).values(), default=0) <= 4))
def test_r6_4_partial_arrangement(cards: list[Card]) -> None:
    a = partial_arrangement(cards)
    assert Counter(c for g in a.groups for c in g.cards) + Counter(a.loose) == Counter(cards)
    assert a.huxi == sum(g.huxi for g in a.groups) == ref_partial_huxi(cards, keep_kan=True)
    for g in a.groups:
        assert Group(g.kind, g.cards) == g
    for k, n in Counter(cards).items():  # 提/坎 stay whole (R3)
        if n >= 3:
            assert Group(GroupKind.TI if n == 4 else GroupKind.KAN, (k,) * n) in a.groups


@SETTINGS
@given(random_hands())
def test_r6_4_tianhu(h: Hand) -> None:
    table = [g for g in h.table if g.kind is GroupKind.TI]
    assert dealt_tianhu(h.hand, table) == ref_dealt_tianhu(h.hand, table)
    a = tianhu_arrangement(h.hand, table)
    assert a.huxi == sum(g.huxi for g in a.groups) == ref_tianhu_huxi(h.hand, table)
    assert Counter(c for g in a.groups for c in g.cards) + Counter(a.loose) == Counter(h.hand) + Counter(
        c for g in table for c in g.cards
    )
    assert all(g in a.groups for g in table)


def test_r3_search_candidates_come_from_the_shape_table() -> None:
    """The search's 句/绞 candidates are exactly the R3 shape table's mixed shapes, each once, with its 胡息."""
    from paohuzi import analysis
    from paohuzi.groups import MIXED_SHAPES

    found = [(g.kind, tuple(int(c) for c in g.cards), huxi) for row in analysis.pure._CANDIDATES for _v, huxi, g in row]
    assert sorted(found, key=str) == sorted(((s.kind, s.cards, s.huxi) for s in MIXED_SHAPES), key=str)
    assert len(found) == len(MIXED_SHAPES) == 38


def _waits_card_by_card(hand: Sequence[Card], table: Sequence[Group], min_huxi: int) -> dict[Card, object]:
    """听牌 the slow way: every kind not held four times, tried as an own draw with ``arrangements``."""
    held = Counter(hand) + Counter(c for g in table for c in g.cards)
    out: dict[Card, object] = {}
    for k in Card:
        if held[k] < 4:
            found = arrangements(hand, table, k, Source.SELF, min_huxi=min_huxi)
            if found:
                out[k] = found
    return out


@pytest.mark.parametrize("chunk", range(4))
def test_r6_waits_shortcuts_change_nothing(chunk: int) -> None:
    """``waits`` skips kinds without a search (card count, stranded free cards, R3 partners); it must give
    exactly what trying every kind with ``arrangements`` gives — on 20-card deals, hands one card short of
    complete (every generated case less its card), and the generator's other cases."""
    rng = random.Random(1500 + chunk)
    checked = 0
    for case in generate(seed=1500 + chunk, n=400):
        hands = [(case.hand, case.table)]
        if case.card is not None and len(case.hand) < 20:
            hands.append(((*case.hand, case.card), case.table))  # the card kept: often one short of complete
        deal = random_deal(rng)
        hands.append((deal.hand[:20], ()))
        for hand, table in hands:
            for min_huxi in (0, case.min_huxi):
                assert waits(hand, table, min_huxi=min_huxi) == _waits_card_by_card(hand, table, min_huxi), (
                    hand,
                    table,
                    min_huxi,
                )
                checked += 1
    assert checked > 2000


_BAD_INPUTS = [
    ((Card.X1,) * 5, (), None, Source.NONE, 15),
    ((Card.X1, 20), (), None, Source.NONE, 15),  # type: ignore[arg-type]
    ((Card.X1, -1), (), None, Source.NONE, 15),  # type: ignore[arg-type]
    ((Card.X1,), (Group.parse("wei:x1x1x1"),), Card.X1, Source.DISCARD, 15),
    ((Card.X1,), ("peng",), None, Source.NONE, 15),  # type: ignore[arg-type]
    ((Card.X1,), (Group.parse("kan:x2x2x2"),), None, Source.NONE, 15),
    ((Card.X1,), (), Card.X2, Source.NONE, 15),
    ((Card.X1,), (), None, Source.DISCARD, 15),
    ((Card.X1,), (), Card.X2, Source.DISCARD, "15"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("hand", "table", "card", "source", "min_huxi"), _BAD_INPUTS)
def test_validate_raises_what_arrangements_raises(
    hand: Sequence[Card], table: Sequence[Group], card: Card | None, source: Source, min_huxi: int
) -> None:
    """``validate`` (used for discards that may not be won, R4.2) refuses exactly what ``arrangements`` does."""
    from paohuzi.analysis import AnalysisError, validate

    with pytest.raises(AnalysisError) as want:
        arrangements(hand, table, card, source, min_huxi=min_huxi)
    with pytest.raises(AnalysisError) as got:
        validate(hand, table, card, source, min_huxi=min_huxi)
    assert str(got.value) == str(want.value)
    validate((Card.X1, Card.X2), (Group.parse("peng:x5x5x5"),), Card.X3, Source.DISCARD)  # good input: no error
