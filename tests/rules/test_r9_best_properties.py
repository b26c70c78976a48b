"""R6.2 under the regional families (R9): the win ``evaluate`` picks has the family's maximum points among ALL
complete arrangements of the cards — enumerated by the brute-force reference (tests/analysis/reference.py), not by
the analysis under test — and, among those, the most 胡息.

The families whose points are not monotonic in (胡息, shape) are the ones that matter: 十胡卡's 卡胡, 醒, 行行息,
团圆; table D and plain table E are checked too (there the best of each shape is enough).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paohuzi.analysis import AnalysisError, Arrangement, Source
from paohuzi.cards import Card
from paohuzi.groups import Group, GroupKind
from paohuzi.rules import RuleSet, find_preset
from paohuzi.scoring import PlayFacts, evaluate, score
from tests.analysis.reference import all_arrangements
from tests.analysis.test_properties import HAND_GROUP_CARDS, KINDS, TABLE_GROUPS, Hand, built_hands
from tests.support.fast import examples

RULES = [
    find_preset("shihuka"),
    find_preset("shihuka").with_options(xing="sui", zimo="none", base_bonus="double"),
    find_preset("shihuka").with_options(xing="fan", hongheidian=False, tiandi_haidi=True),
    find_preset("changde"),
    find_preset("changde_qmt").with_options(hanghangxi=True, tuanyuan=True),
    find_preset("changde_qmt").with_options(shuahou=True, huangfan=True),
]


@st.composite
def complete_hands(draw: st.DrawFn) -> Hand:
    """Seven groups (table and hand; a 将 pair when a four is among them), one hand card taken out as the card
    won: mostly complete hands, so that most examples score a win."""
    used = [0] * len(KINDS)
    table = []
    for g in draw(st.lists(st.sampled_from(TABLE_GROUPS), max_size=3)):
        if all(used[c] + g.cards.count(c) <= 4 for c in g.cards):
            table.append(g)
            for c in g.cards:
                used[c] += 1
    hand: list[Card] = []
    for cards in draw(st.lists(st.sampled_from(HAND_GROUP_CARDS), min_size=7 - len(table), max_size=7 - len(table))):
        if all(used[c] + cards.count(c) <= 4 for c in cards):
            hand.extend(cards)
            for c in cards:
                used[c] += 1
    if any(g.kind.four for g in table) or any(hand.count(c) == 4 for c in set(hand)):
        k = draw(st.sampled_from([k for k in KINDS if used[k] <= 2]))
        hand += [k, k]
    if not hand:
        hand = [Card.X1]
    card = hand.pop(draw(st.integers(0, len(hand) - 1)))
    source = draw(st.sampled_from([Source.SELF, Source.OTHER, Source.DISCARD]))
    return Hand(draw(st.permutations(hand)), table, card, source, 0)


@st.composite
def pao_choice_hands(draw: st.DrawFn) -> Hand:
    """A table 碰 whose fourth card is drawn: it may make a 跑 (then a 将 pair) or stay in the hand's groups —
    readings of different 胡息 (R6.1), where 卡胡 and 醒 choose differently from the most 胡息."""
    k = draw(st.sampled_from(KINDS))
    used = [0] * len(KINDS)
    used[k] = 4
    hand: list[Card] = []
    threes = [cards for cards in HAND_GROUP_CARDS if len(cards) == 3]  # no fours: the pair is the hand's own
    for cards in draw(st.lists(st.sampled_from(threes), min_size=5, max_size=5)):
        if all(used[c] + cards.count(c) <= 4 for c in cards):
            hand.extend(cards)
            for c in cards:
                used[c] += 1
    pair = draw(st.sampled_from([p for p in KINDS if used[p] <= 2]))
    hand += [pair, pair]
    source = draw(st.sampled_from([Source.SELF, Source.OTHER]))
    return Hand(draw(st.permutations(hand)), (Group(GroupKind.PENG, (k,) * 3),), k, source, 0)


def _reference_best(h: Hand, rules: RuleSet, facts: PlayFacts) -> tuple[int, int] | None:
    """(points, 胡息) of the best of every complete arrangement, scored one by one; None if there is none."""
    zimo = h.source is Source.SELF
    shuahou = h.card is not None and len(h.hand) == 1
    best: tuple[int, int] | None = None
    for ref in all_arrangements(h.hand, h.table, h.card, h.source.value):
        if ref.huxi < rules.min_huxi:
            continue
        s = score(Arrangement(ref.groups, ref.huxi, ref.duidui), rules, zimo=zimo, facts=facts)
        points = s.points
        if shuahou and rules.shuahou:  # score() has no hand to look at: 耍猴 8 added by hand here (R9.1)
            points = s.base * (s.fan + 8 - (1 if s.pinghu else 0)) * (2 if s.zimo_double else 1)
        key = (points, ref.huxi)
        if best is None or key > best:
            best = key
    return best


@settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(
    st.one_of(complete_hands(), pao_choice_hands(), built_hands()),
    st.sampled_from(RULES),
    st.sampled_from([None, *Card]),
    st.integers(0, 2),
)
def test_r6_2_r9_chosen_win_has_the_familys_maximum_points(
    h: Hand, rules: RuleSet, xing_card: Card | None, drawn_before: int
) -> None:
    if h.source is Source.NONE or h.card is None:
        return
    facts = PlayFacts(
        drawn_before=drawn_before, xing_card=xing_card if rules.xing != "none" else None, tinghu=False
    )
    try:
        win = evaluate(h.hand, h.table, h.card, h.source, rules, facts=facts)
    except AnalysisError:
        return
    if h.source is Source.DISCARD and not rules.win_on_discard:
        assert win is None
        return
    want = _reference_best(h, rules, facts)
    if want is None:
        assert win is None
        return
    assert win is not None
    assert (win.points, win.huxi) == want, (win.score, want)
