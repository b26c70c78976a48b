"""R9.3 一五十 (option ``yiwushi``) and 15-card hands in the analysis (R6.1, R6.2).

- With ``yiwushi`` 一五十 / 壹伍拾 is a 句 of 3 / 6 胡息: the analysis agrees with the brute-force reference
  (tests/analysis/reference.py, extended for 一五十) on hypothesis' 15-card hands, best 胡息 per shape and waits;
  without it the same cards are not a 句, and a table 一五十 is refused with the option named.
- The compiled accelerator's 一五十 copy (``paohuzi._accel_yiwushi``) answers exactly as the pure path.
- R6.1 with 5 门子 (R9.3): a 15-card hand is complete with 5 groups, or 4 groups + 将 when it has a 提/跑; with
  0, 1 and 2 four-card groups (R4.6 on 15 cards: 14 + max(0, n − 1) cards before the card won).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paohuzi import analysis
from paohuzi.analysis import AnalysisError, Source, pure
from paohuzi.cards import Card, parse_cards
from paohuzi.groups import Group, GroupKind, is_sequence, parse_groups

from ..support.accel import built
from ..support.fast import examples
from .reference import FREE_GROUPS, YIWUSHI_GROUPS, best_by_shape, ref_partial_huxi, ref_waits

SETTINGS = settings(
    max_examples=examples(250), deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
needs_accel = pytest.mark.skipif(analysis._ACCEL_Y is None, reason="the compiled 一五十 accelerator is not loaded")


@contextmanager
def python_only() -> Iterator[None]:
    saved = analysis._ACCEL, analysis._ACCEL_Y
    analysis._ACCEL = analysis._ACCEL_Y = None
    try:
        yield
    finally:
        analysis._ACCEL, analysis._ACCEL_Y = saved


def outcome(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return ("ok", call(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 — the comparison covers every error
        return ("error", type(exc).__name__, str(exc))


class TestR9_3YiwushiShape:
    def test_r9_3_yiwushi_is_a_sequence_only_with_the_option(self) -> None:
        for text in ("x1 x5 x10", "d10 d5 d1"):
            cards = parse_cards(text)
            assert is_sequence(cards, yiwushi=True) and not is_sequence(cards)
        assert not is_sequence(parse_cards("x1 x5 d10"), yiwushi=True)  # never mixes cases (R3)
        assert Group.parse("ju:x1x5x10").huxi == 3 and Group.parse("chi:壹伍拾").huxi == 6

    def test_r9_3_yiwushi_arrangement_scores_3_and_6(self) -> None:
        # 一五十 壹伍拾 二三四 贰叁肆 八八 + 八 drawn (the forced 偎, R4.2) as 5 门子 without a pair:
        # 3 + 6 + 0 + 0 + 偎 八 3 = 12 胡息.
        hand = parse_cards("x1 x5 x10 d1 d5 d10 x2 x3 x4 d2 d3 d4 x8 x8")
        with_option = analysis.arrangements(hand, [], Card.X8, Source.SELF, min_huxi=0, yiwushi=True)
        assert [(a.huxi, a.duidui) for a in with_option] == [(12, False)]
        assert {str(g) for g in with_option[0].groups} >= {"ju:x1 x5 x10", "ju:d1 d5 d10"}
        # Without the option the 一/五/十 cannot be placed: not complete (R3).
        assert analysis.arrangements(hand, [], Card.X8, Source.SELF, min_huxi=0) == ()

    def test_r9_3_yiwushi_beats_a_plain_reading(self) -> None:
        # 一二三 一五十 十十: with the option 一五十 (3) + 一二三 (3); the hand has no reading without it.
        hand = parse_cards("x1 x1 x2 x3 x5")
        got = analysis.arrangements(hand, [], Card.X10, Source.OTHER, min_huxi=0, yiwushi=True)
        assert [a.huxi for a in got] == [6]
        assert analysis.waits(hand, min_huxi=0, yiwushi=True).keys() == {Card.X10}
        assert analysis.waits(hand, min_huxi=0) == {}

    @pytest.mark.parametrize("accelerated", [True, False])
    def test_r9_3_a_table_yiwushi_needs_the_option(self, accelerated: bool) -> None:
        table = parse_groups("chi:x1x5x10")
        hand = parse_cards("x2 x3 x4")
        ctx = python_only() if not accelerated else _nothing()
        with ctx:
            message = r"ju:x1 x5 x10 \(一五十\) is a 句 only with the rule option yiwushi"
            with pytest.raises(AnalysisError, match=message):
                analysis.arrangements(hand, table, min_huxi=0)
            with pytest.raises(AnalysisError, match="yiwushi"):
                analysis.waits_counted(hand, table, 0)
            assert [a.huxi for a in analysis.arrangements(hand, table, min_huxi=0, yiwushi=True)] == [3]


@needs_accel
@pytest.mark.parametrize("table_text", ["ju:x4x5x6", "ju:d4d5d6", "ju:x3x4x5 ju:d5d6d7", "ju:x2x7x10"])
def test_r9_3_a_table_sequence_with_a_five_is_answered_by_the_accelerator(table_text: str) -> None:
    """Only 一五十 / 壹伍拾 is left to the pure path without the option: a table 句 of 4 5 6 (a 5 in the middle,
    as in 一五十) is read by the compiled analysis — issue 33: it went to the pure path, ~10x slower, for a twelfth
    of the server's 听牌 hints — and answers as the pure path does."""
    table = parse_groups(table_text)
    hand = parse_cards("x1 x1 x2 x8 x8 x8 d3")
    assert analysis._ACCEL is not None
    fast = analysis._ACCEL.waits_counted(hand, table, 0)
    assert fast is not None
    with python_only():
        assert analysis.waits_counted(hand, table, 0) == fast
    assert analysis._ACCEL.waits_counted(hand, parse_groups("chi:x1x5x10"), 0) is None  # 一五十: the pure path raises
    assert analysis._ACCEL.waits_counted(hand, parse_groups("chi:d1d5d10"), 0) is None


@contextmanager
def _nothing() -> Iterator[None]:
    yield


# Hypothesis: 15-card hands (14 + the card won) drawn from the 80 cards, tables of a few groups.
_DECK = [Card(k) for k in range(20) for _ in range(4)]


@st.composite
def hands(draw: st.DrawFn, size: int = 14) -> tuple[list[Card], tuple[Group, ...], Card]:
    picks = draw(st.lists(st.integers(0, 79), min_size=size + 1, max_size=size + 1, unique=True))
    cards = [_DECK[i] for i in picks]
    # Bias towards 一 五 十 so that 一五十 appears often.
    bias = draw(st.lists(st.sampled_from([Card.X1, Card.X5, Card.X10, Card.D1, Card.D5, Card.D10]), max_size=6))
    for i, c in enumerate(bias):
        if cards.count(c) < 4:
            cards[i] = c
    table: tuple[Group, ...] = ()
    if draw(st.booleans()):
        k = draw(st.sampled_from([c for c in cards[:size] if cards.count(c) <= 1] or [None]))
        if k is not None and cards.count(k) == 1:
            # A table 碰 of a kind held once (three in all with the one in hand → 4 copies max).
            cards.remove(k)
            table = (Group(GroupKind.PENG, (k, k, k)),)
    return cards[:-1], table, cards[-1]


_MIXED = [g for g in FREE_GROUPS + YIWUSHI_GROUPS if g.kind is not GroupKind.JIANG] + list(YIWUSHI_GROUPS) * 4


@st.composite
def complete_hands(draw: st.DrawFn) -> tuple[list[Card], tuple[Group, ...], Card]:
    """15 cards built from 5 门子 (一五十 often among them), or a 提 + 3 groups + 将: mostly complete hands."""
    four = draw(st.booleans())
    groups = [draw(st.sampled_from(_MIXED)) for _ in range(3 if four else 5)]
    cards = [c for g in groups for c in g.cards]
    if four:
        k = draw(st.sampled_from(list(Card)))
        cards += [k] * 4
        j = draw(st.sampled_from(list(Card)))
        cards += [j, j]
    i = draw(st.integers(0, len(cards) - 1))
    card = cards.pop(i)
    return cards, (), card


class TestR9_3AgreesWithReference:
    @SETTINGS
    @given(complete_hands(), st.sampled_from([Source.SELF, Source.OTHER, Source.DISCARD]))
    def test_r9_3_complete_hands_agree_with_brute_force(
        self, case: tuple[list[Card], tuple[Group, ...], Card], source: Source
    ) -> None:
        hand, table, card = case
        if max((hand + [card]).count(c) for c in set(hand)) > 4:
            return
        for yiwushi in (False, True):
            want = best_by_shape(hand, table, card, source.value, min_huxi=0, yiwushi=yiwushi)
            got = analysis.arrangements(hand, table, card, source, min_huxi=0, yiwushi=yiwushi)
            assert {a.duidui: a.huxi for a in got} == want, (yiwushi, hand, card)
            with python_only():
                assert analysis.arrangements(hand, table, card, source, min_huxi=0, yiwushi=yiwushi) == got


    @SETTINGS
    @given(hands(), st.sampled_from([Source.SELF, Source.OTHER, Source.DISCARD]), st.sampled_from([0, 6, 9]))
    def test_r9_3_best_per_shape_agrees_with_brute_force(
        self, case: tuple[list[Card], tuple[Group, ...], Card], source: Source, min_huxi: int
    ) -> None:
        hand, table, card = case
        if max(hand.count(c) + sum(g.cards.count(c) for g in table) + (c == card) for c in set(hand) | {card}) > 4:
            return
        for yiwushi in (False, True):
            want = best_by_shape(hand, table, card, source.value, min_huxi=min_huxi, yiwushi=yiwushi)
            got = analysis.arrangements(hand, table, card, source, min_huxi=min_huxi, yiwushi=yiwushi)
            assert {a.duidui: a.huxi for a in got} == want, (yiwushi, hand, table, card)
            every = analysis.arrangements_all(hand, table, card, source, min_huxi=min_huxi, yiwushi=yiwushi)
            assert {a.duidui: a.huxi for a in reversed(every)} == want

    @settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(hands(size=13))
    def test_r9_3_waits_agree_with_brute_force(self, case: tuple[list[Card], tuple[Group, ...], Card]) -> None:
        hand, table, _card = case
        want = ref_waits(hand, table, min_huxi=6, yiwushi=True)
        got = analysis.waits(hand, table, min_huxi=6, yiwushi=True)
        assert {k: {a.duidui: a.huxi for a in arrs} for k, arrs in got.items()} == want


class TestR9_3AccelAgrees:
    def test_r9_3_yiwushi_accelerator_loaded_when_built(self) -> None:
        if built("_accel_yiwushi") and analysis.ACCELERATED:
            assert analysis._ACCEL_Y is not None
        assert pure.accel_tables(1)["YIWUSHI"] and not pure.accel_tables(0)["YIWUSHI"]

    @needs_accel
    @SETTINGS
    @given(hands(), st.sampled_from(list(Source)[1:]), st.booleans())
    def test_r9_3_accelerated_equals_pure(
        self, case: tuple[list[Card], tuple[Group, ...], Card], source: Source, yiwushi: bool
    ) -> None:
        hand, table, card = case
        calls = [
            (analysis.arrangements, (hand, table, card, source), {"min_huxi": 6, "yiwushi": yiwushi}),
            (analysis.arrangements_counted, (hand, table, card, source, 6), {"yiwushi": yiwushi}),
            (analysis.arrangements_all, (hand, table, card, source), {"min_huxi": 0, "yiwushi": yiwushi}),
            (analysis.waits_counted, (hand[:13], table, 6), {"yiwushi": yiwushi}),
            (analysis.waits_all_counted, (hand[:13], table, 6), {"yiwushi": yiwushi}),
            (analysis.is_complete, (hand, table, card, source), {"min_huxi": 6, "yiwushi": yiwushi}),
        ]
        for call, args, kwargs in calls:
            fast = outcome(call, *args, **kwargs)
            with python_only():
                slow = outcome(call, *args, **kwargs)
            assert fast == slow, call.__name__


class TestR9_3FiveGroups:
    """R9.3: R6.1 with 5 门子 on 15-card hands; R4.6 with 14 + max(0, n − 1) cards before the card won."""

    def test_r9_3_no_four_five_groups_no_pair(self) -> None:
        # 14 in hand + the card: 一二三 壹贰叁 二七十 坎 捌 and 四五 + 六 → 5 门子, 3 + 6 + 3 + 6 + 0 = 18 胡息.
        hand = parse_cards("x1 x2 x3 d1 d2 d3 x2 x7 x10 d8 d8 d8 x4 x5")
        (a,) = analysis.arrangements(hand, [], Card.X6, Source.DISCARD, min_huxi=6)
        assert a.huxi == 18 and len(a.groups) == 5 and all(g.kind is not GroupKind.JIANG for g in a.groups)
        # With a pair instead and no 提/跑 the cards do not fit (15 = 5 × 3 only without a 将).
        assert analysis.arrangements(parse_cards("x1 x2 x3 d1 d2 d3 x2 x7 x10 d8 d8 d8 x4 x4"), [], Card.X9,
                                     Source.DISCARD, min_huxi=0) == ()  # fmt: skip

    def test_r9_3_one_four_four_groups_and_a_pair(self) -> None:
        # The card completes a 提 of 贰 (own draw): 提 12 + 碰 七 1 + 碰 十 1 + 四五六 0 + 将 八八 = 14 胡息, 5 门子.
        hand = parse_cards("d2 d2 d2 x4 x5 x6 x8 x8")
        table = parse_groups("peng:x7x7x7 peng:x10x10x10")
        assert len(hand) + sum(len(g.cards) for g in table) == 14  # R4.6: 14 before the card
        (a,) = analysis.arrangements(hand, table, Card.D2, Source.SELF, min_huxi=6)
        assert a.huxi == 14 and len(a.groups) == 5
        assert [g.kind for g in a.groups].count(GroupKind.JIANG) == 1

    def test_r9_3_two_fours_one_more_card(self) -> None:
        # Two 提 (one dealt on the table, one in hand): 15 = 14 + (2 − 1) cards before the card won, 5 门子.
        table = parse_groups("ti:x9x9x9x9")
        hand = parse_cards("d3 d3 d3 d3 x1 x2 x3 d7 d7 x4 x5")
        assert len(hand) + sum(len(g.cards) for g in table) == 15
        (a,) = analysis.arrangements(hand, table, Card.X6, Source.DISCARD, min_huxi=6)
        # 提 九 9 + 提 叁 12 + 一二三 3 + 四五六 0 + 将 柒柒 = 24 胡息; 2 fours + 2 groups + 将 = 5 门子.
        assert a.huxi == 24 and len(a.groups) == 5
        assert sum(g.kind.four for g in a.groups) == 2


class TestR9_3Partial:
    """R7.3 逃跑 and R6.4 use the best partial arrangement: with ``yiwushi`` 一五十 counts as a scoring 句."""

    def test_r9_3_partial_with_yiwushi(self) -> None:
        cards = parse_cards("x1 x1 x2 x3 x5 x10 d1 d5 d10 d4")
        assert analysis.partial_arrangement(cards).huxi == 3  # 一二三 only
        a = analysis.partial_arrangement(cards, yiwushi=True)
        assert a.huxi == 12 and [str(c) for c in a.loose] == ["d4"]  # + 一五十 3 + 壹伍拾 6

    @settings(max_examples=examples(200), deadline=None, derandomize=True)
    @given(st.lists(st.sampled_from(_DECK), min_size=0, max_size=15))
    def test_r9_3_partial_agrees_with_brute_force(self, cards: list[Card]) -> None:
        if any(cards.count(c) > 4 for c in cards):
            return
        for yiwushi in (False, True):
            got = analysis.partial_arrangement(cards, yiwushi=yiwushi).huxi
            assert got == ref_partial_huxi(cards, keep_kan=True, yiwushi=yiwushi), (yiwushi, cards)


@needs_accel
def test_r9_3_a_stale_yiwushi_build_is_not_used(tmp_path: Path) -> None:
    """``_accel_yiwushi`` is compiled from the same sources as ``_accel``: an edit of them after the build makes
    both refuse themselves (the pure path answers), so an edit never runs old compiled 一五十 code."""
    import os
    import shutil
    import subprocess
    import sys

    from ..support.accel import PACKAGE

    copy = tmp_path / "paohuzi"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "web"))
    probe = "import paohuzi.analysis as m; print(m._ACCEL_Y is not None)"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop("PAOHUZI_PURE", None)

    def loaded() -> bool:
        out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
        return out.stdout.strip() == "True"

    assert loaded()
    with (copy / "_accel_search.pxi").open("a", encoding="utf-8") as f:
        f.write("\n# edited after the build\n")
    assert not loaded()
