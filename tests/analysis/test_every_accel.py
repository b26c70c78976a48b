"""The compiled accelerator's every-arrangement enumeration (``_accel_every.pxi``) answers exactly as the pure one
(:mod:`paohuzi.analysis.every`; R6.1, R6.2, R9): the same arrangements in the same order, the same counts, the
same errors word for word — on the seeded corpus, on large hands, with a memo cleared again and again, and on
hypothesis' input (bad input included).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given

from paohuzi import analysis, scoring
from paohuzi.analysis import Source, every
from paohuzi.cards import Card
from paohuzi.rules import parse_rules

from .cases import Case, generate
from .test_accel import SETTINGS, card_st, hand_st, min_st, outcome, python_only, source_st, table_st

needs_accel = pytest.mark.skipif(not analysis.ACCELERATED, reason="the compiled accelerator is not loaded")


def _agree_on(case: Case) -> list[str]:
    errors = []
    hand, table, card, source = case.hand, case.table, case.card, Source(case.source)
    for m in {case.min_huxi, 0, 10, 15}:
        for t in (table, list(table)):
            got = analysis.arrangements_all(hand, t, card, source, min_huxi=m)
            if got != every.arrangements_all(hand, table, card, source, m):
                errors.append(f"arrangements_all min_huxi={m}: {got}")
            if analysis.arrangements_all_counted(hand, t, card, source, m) != every.arrangements_all_counted(
                hand, table, card, source, m
            ):
                errors.append(f"arrangements_all_counted min_huxi={m}")
    if analysis.waits_all_counted(list(hand), table, case.min_huxi) != every.waits_all_counted(
        hand, table, case.min_huxi
    ):
        errors.append("waits_all_counted")
    return errors


@needs_accel
@pytest.mark.parametrize("chunk", range(2))
def test_accelerated_every_arrangement_equals_pure_on_the_corpus(chunk: int) -> None:
    failures = [f"{case}: {errors}" for case in generate(seed=29_000 + chunk, n=1000) if (errors := _agree_on(case))]
    assert not failures, f"{len(failures)} cases disagree:\n" + "\n".join(failures[:5])


@needs_accel
def test_accelerated_every_arrangement_with_a_tiny_memo() -> None:
    """The C memo cleared again and again during the enumeration changes nothing."""
    accel = analysis._ACCEL
    assert accel is not None
    accel.memo_bits(5)
    try:
        failures = [str(case) for case in generate(seed=29_100, n=300) if _agree_on(case)]
    finally:
        accel.memo_bits(18)
    assert not failures, failures[:3]


@needs_accel
def test_accelerated_every_arrangement_of_large_hands() -> None:
    """Up to 80 cards in hand (``paohuzi analyze`` takes any hand)."""
    rng = random.Random(29)
    hands = [[c for c in Card for _ in range(n)] for n in (2, 3)]
    for _ in range(60):
        hands.append([c for c in Card for _ in range(rng.choice((0, 0, 1, 1, 2, 3, 4)))])
    for hand in hands:
        for card in (None, *rng.sample(list(Card), 2)):
            for source in (Source.NONE,) if card is None else (Source.SELF, Source.OTHER):
                for m in (0, 30):
                    assert outcome(analysis.arrangements_all, hand, (), card, source, min_huxi=m) == outcome(
                        every.arrangements_all, hand, (), card, source, m
                    ), (hand, card, source, m)


@needs_accel
@SETTINGS
@given(hand=hand_st, table=table_st, card=card_st, source=source_st, min_huxi=min_st)
def test_accelerated_every_answers_and_errors_equal_pure(
    hand: Any, table: Any, card: Any, source: Any, min_huxi: Any
) -> None:
    assert outcome(lambda: analysis.arrangements_all(hand, table, card, source, min_huxi=min_huxi)) == outcome(
        lambda: every.arrangements_all(hand, table, card, source, min_huxi)
    )
    assert outcome(lambda: analysis.arrangements_all_counted(hand, table, card, source, min_huxi)) == outcome(
        lambda: every.arrangements_all_counted(hand, table, card, source, min_huxi)
    )
    assert outcome(lambda: analysis.waits_all_counted(hand, table, min_huxi)) == outcome(
        lambda: every.waits_all_counted(hand, table, min_huxi)
    )


FAMILY_PRESETS = [
    parse_rules(name, options)
    for name, options in (
        ("changde", []),
        ("changde_qmt", ["hanghangxi=on", "tuanyuan=on", "shuahou=on"]),
        ("shihuka", []),
        ("shihuka", ["xing=sui", "tiandi_haidi=on"]),
    )
]


@needs_accel
def test_accelerated_family_scoring_equals_pure_on_the_corpus() -> None:
    """R6.2, R9: the family's best win and scored waits are the same with the accelerator and without (the scoring
    asks for every arrangement where the family's points need it)."""
    for i, case in enumerate(generate(seed=29_200, n=1200)):
        rules = FAMILY_PRESETS[i % len(FAMILY_PRESETS)]
        facts = scoring.PlayFacts(xing_card=case.card) if rules.xing != "none" and case.card is not None else None
        request = (case.hand, case.table, case.card, Source(case.source), rules)
        got = outcome(scoring.evaluate, *request, last_card=i % 5 == 0, facts=facts)
        waits = outcome(scoring.scored_waits, case.hand, case.table, rules)
        with python_only():
            want = outcome(scoring.evaluate, *request, last_card=i % 5 == 0, facts=facts)
            want_waits = outcome(scoring.scored_waits, case.hand, case.table, rules)
        assert got == want, case
        assert waits == want_waits, case
