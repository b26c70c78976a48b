"""The compiled accelerator (``paohuzi._accel``) answers exactly as the pure-Python analysis (R6.1, R6.2, R7).

- It is loaded whenever it was built (a silent fall-back to Python must not pass for an accelerated run), and
  not under ``PAOHUZI_PURE=1`` (``make test`` runs the analysis, scoring and golden tests both ways).
- On the seeded corpus of ``cases.py`` and on hypothesis' hands (bad input included: the same answer or the
  same error, word for word) ``analysis.*`` with the accelerator equals ``analysis.pure.*``; ``scoring.evaluate``
  and ``scoring.scored_waits`` equal their results with the accelerator switched off.
- A memo too small for one search (cleared again and again while it runs) changes nothing.
- A build whose ``_accel.pyx`` was edited since is refused (stale), so an edit never runs old compiled code.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paohuzi import analysis, scoring
from paohuzi.analysis import Source, pure
from paohuzi.cards import NUM_KINDS, Card
from paohuzi.groups import Group, GroupKind
from paohuzi.rules import find_preset

from ..support.accel import PURE_FORCED, built, check_a_stale_copy_is_refused, check_loaded_when_built
from ..support.accel import python_only as accel_python_only
from ..support.fast import examples
from .cases import generate

BUILT = built("_accel")
needs_accel = pytest.mark.skipif(not analysis.ACCELERATED, reason="the compiled accelerator is not loaded")
PRESETS = [find_preset(name) for name in ("qq", "hunan", "hengyang", "huayang")]
SETTINGS = settings(
    max_examples=examples(400), deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def test_accelerator_loaded_exactly_when_built_and_wanted() -> None:
    check_loaded_when_built(analysis.ACCELERATED, "_accel", "the compiled accelerator")


def python_only() -> AbstractContextManager[None]:
    """Switch the accelerator off for the calls in the block."""
    return accel_python_only(analysis)


def outcome(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The answer of ``call(*args, **kwargs)``, or the error as (type, message): what must agree, word for word."""
    try:
        return ("ok", call(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 — the comparison covers every error
        return ("error", type(exc).__name__, str(exc))


def _agree_on(case: Any) -> list[str]:
    errors = []
    hand, table, card, source = case.hand, case.table, case.card, Source(case.source)
    for m in {case.min_huxi, 0, 15}:
        for t in (table, list(table)):
            got = analysis.arrangements(hand, t, card, source, min_huxi=m)
            if got != pure.arrangements(hand, table, card, source, m):
                errors.append(f"arrangements min_huxi={m}: {got}")
            if analysis.is_complete(hand, t, card, source, min_huxi=m) != bool(got):
                errors.append(f"is_complete min_huxi={m}")
            if analysis.arrangements_counted(hand, t, card, source, m) != pure.arrangements_counted(
                hand, table, card, source, m
            ):
                errors.append(f"arrangements_counted min_huxi={m}")
    got_waits = analysis.waits(hand, table, min_huxi=case.min_huxi)
    want_waits = pure.waits(hand, table, case.min_huxi)
    if got_waits != want_waits or list(got_waits) != list(want_waits):
        errors.append(f"waits {got_waits} != {want_waits}")
    if analysis.waits_counted(list(hand), table, case.min_huxi) != pure.waits_counted(hand, table, case.min_huxi):
        errors.append("waits_counted")
    return errors


@needs_accel
@pytest.mark.parametrize("chunk", range(4))
def test_accelerated_analysis_equals_pure_on_the_corpus(chunk: int) -> None:
    """4 × 1,000 seeded cases (complete hands, near misses, deals, mid-game hands), every source."""
    failures = [f"{case}: {errors}" for case in generate(seed=15_000 + chunk, n=1000) if (errors := _agree_on(case))]
    assert not failures, f"{len(failures)} cases disagree:\n" + "\n".join(failures[:5])


@needs_accel
def test_accelerated_scoring_equals_pure_on_the_corpus() -> None:
    """R6.2/R7: the best win under every preset (every source, 海底, 天胡) and the scored waits."""
    cases = generate(seed=15_100, n=1500)
    for i, case in enumerate(cases):
        rules = PRESETS[i % len(PRESETS)]
        source = Source(case.source)
        flags = {"last_card": i % 5 == 0, "tianhu": i % 7 == 0}
        request = (case.hand, case.table, case.card, source, rules)
        got = outcome(scoring.evaluate, *request, **flags)
        waits = outcome(scoring.scored_waits, case.hand, case.table, rules, last_card=flags["last_card"])
        with python_only():
            want = outcome(scoring.evaluate, *request, **flags)
            want_waits = outcome(scoring.scored_waits, case.hand, case.table, rules, last_card=flags["last_card"])
        assert got == want, case
        assert waits == want_waits, case


@needs_accel
def test_a_memo_cleared_during_the_search_changes_nothing() -> None:
    """The C memo is cleared when half full, also in the middle of a search; with 32 entries that happens
    all the time, and the groups of the best split must still come out whole."""
    accel = analysis._ACCEL
    assert accel is not None
    accel.memo_bits(5)
    try:
        failures = [str(case) for case in generate(seed=15_200, n=600) if _agree_on(case)]
    finally:
        accel.memo_bits(18)
    assert not failures, failures[:3]


@needs_accel
def test_hands_of_any_size_equal_pure() -> None:
    """Up to 80 cards in hand (``paohuzi analyze`` takes any hand): up to 20 坎/提 and 41 free cards."""
    rng = random.Random(15)
    hands = [[c for c in Card for _ in range(n)] for n in (3, 4)]
    for _ in range(300):
        hands.append([c for c in Card for _ in range(rng.choice((0, 1, 2, 2, 3, 3, 4)))])
    for hand in hands:
        for card in (None, *rng.sample(list(Card), 3)):
            for source in (Source.NONE,) if card is None else (Source.SELF, Source.OTHER, Source.DISCARD):
                for m in (0, 15):
                    assert outcome(analysis.arrangements, hand, (), card, source, min_huxi=m) == outcome(
                        pure.arrangements, hand, (), card, source, m
                    ), (hand, card, source, m)
        assert outcome(analysis.waits, hand, min_huxi=0) == outcome(pure.waits, hand, (), 0), hand


# Hypothesis: any cards (bad ones too), any table groups (a 坎 or 将 on a table too), any card and source.
ALL_GROUPS = [Group(k, (c,) * k.size) for k in GroupKind if k not in (GroupKind.JU, GroupKind.JIAO) for c in Card] + [
    Group.chi(cards)
    for cards in (
        (Card.X1, Card.X2, Card.X3),
        (Card.X2, Card.X7, Card.X10),
        (Card.D2, Card.D7, Card.D10),
        (Card.X8, Card.X8, Card.D8),
        (Card.D4, Card.D5, Card.D6),
    )
]
SAME_KIND_TABLE = [g for g in ALL_GROUPS if g.kind not in (GroupKind.KAN, GroupKind.JIANG)]
cards_st = st.lists(st.sampled_from(list(Card)), max_size=27)
odd_card = st.sampled_from([NUM_KINDS, -1, 99, "x1", 1.0, True, None, 2**70])
hand_st = st.one_of(
    cards_st,
    cards_st.map(tuple),
    cards_st.map(lambda cs: bytes(int(c) for c in cs)),
    st.lists(st.one_of(st.sampled_from(list(Card)), odd_card), max_size=20),
)
table_st = st.one_of(
    st.lists(st.sampled_from(ALL_GROUPS), max_size=6).map(tuple),
    st.lists(st.sampled_from(ALL_GROUPS), max_size=6),
    st.just([Group.parse("peng:x1x1x1"), "peng:x2x2x2"]),
)
card_st = st.one_of(st.none(), st.sampled_from(list(Card)), odd_card)
source_st = st.sampled_from([*Source, "self", None])
min_st = st.sampled_from([0, 10, 15, -3, 2**70, 15.0, "15"])


@needs_accel
@SETTINGS
@given(hand=hand_st, table=table_st, card=card_st, source=source_st, min_huxi=min_st)
def test_accelerated_answers_and_errors_equal_pure(
    hand: Any, table: Any, card: Any, source: Any, min_huxi: Any
) -> None:
    assert outcome(lambda: analysis.arrangements(hand, table, card, source, min_huxi=min_huxi)) == outcome(
        lambda: pure.arrangements(hand, table, card, source, min_huxi)
    )
    assert outcome(lambda: analysis.is_complete(hand, table, card, source, min_huxi=min_huxi)) == outcome(
        lambda: bool(pure.arrangements(hand, table, card, source, min_huxi))
    )
    assert outcome(lambda: analysis.validate(hand, table, card, source, min_huxi=min_huxi)) == outcome(
        lambda: pure.validate(hand, table, card, source, min_huxi)
    )
    assert outcome(lambda: analysis.arrangements_counted(hand, table, card, source, min_huxi)) == outcome(
        lambda: pure.arrangements_counted(hand, table, card, source, min_huxi)
    )
    assert outcome(lambda: analysis.waits(hand, table, min_huxi=min_huxi)) == outcome(
        lambda: pure.waits(hand, table, min_huxi)
    )
    assert outcome(lambda: analysis.waits_counted(hand, table, min_huxi)) == outcome(
        lambda: pure.waits_counted(hand, table, min_huxi)
    )


@needs_accel
@SETTINGS
@given(hand=cards_st, table=st.lists(st.sampled_from(SAME_KIND_TABLE), max_size=5), rules=st.sampled_from(PRESETS))
def test_accelerated_scored_waits_equal_pure(hand: list[Card], table: list[Group], rules: Any) -> None:
    got = outcome(lambda: scoring.analyze_hand(hand, table, None, Source.NONE, rules, tianhu=not table))
    with python_only():
        want = outcome(lambda: scoring.analyze_hand(hand, table, None, Source.NONE, rules, tianhu=not table))
    assert got == want


@pytest.mark.skipif(not BUILT or PURE_FORCED, reason="needs a built accelerator")
def test_a_stale_build_is_not_used(tmp_path: Path) -> None:
    """A copy of the package whose _accel.pyx differs from the one the module was built from runs pure Python."""
    check_a_stale_copy_is_refused(tmp_path, "paohuzi.analysis", "_accel")
