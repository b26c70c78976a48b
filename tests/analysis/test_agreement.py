"""R6.1/R6.2: :func:`paohuzi.analysis.arrangements` agrees with the brute-force reference on 20,000 cases.

The cases (``cases.py``) are complete hands built from random groups (table 提/跑/偎/臭偎/碰/吃, hand
坎/提/句/绞, the 将 when needed, every card source and every use of the card won), near misses (one
change to such a hand) and random deals. For each case the analysis must agree with the reference on
completeness and on the best 胡息 of each shape, and every arrangement it returns must be one of the
reference's complete arrangements of exactly these cards. Seeded and deterministic; the 40 chunks let
``pytest -n 2`` spread the work.
"""

from __future__ import annotations

from collections import Counter

import pytest

from paohuzi.analysis import Source, arrangements, is_complete, waits

from .cases import Case, generate
from .reference import all_arrangements, arrangement_key, ref_waits

CHUNKS = 40
PER_CHUNK = 500  # 40 × 500 = 20,000 cases
WAITS_EVERY = 8  # full 听牌 of every 8th case's hand (without its card): 2,500 hands × 20 kinds


def check_case(case: Case) -> list[str]:
    """Every disagreement between the analysis and the reference on one case (empty if none)."""
    errors: list[str] = []
    source = Source(case.source)
    ref = list(all_arrangements(case.hand, case.table, case.card, case.source))
    keys = {arrangement_key(a.groups) for a in ref}
    best: dict[bool, int] = {}
    for a in ref:
        if a.huxi >= case.min_huxi and a.huxi > best.get(a.duidui, -1):
            best[a.duidui] = a.huxi
    got = arrangements(case.hand, case.table, case.card, source, min_huxi=case.min_huxi)
    got_best = {a.duidui: a.huxi for a in got}
    if len(got_best) != len(got):
        errors.append(f"two arrangements of one shape: {got}")
    if got_best != best:
        errors.append(f"best 胡息 per shape (duidui: 胡息) {got_best} != reference {best}")
    if is_complete(case.hand, case.table, case.card, source, min_huxi=case.min_huxi) != bool(best):
        errors.append(f"is_complete != {bool(best)}")
    cards = Counter(case.hand) + Counter(c for g in case.table for c in g.cards)
    if case.card is not None:
        cards[case.card] += 1
    for a in got:
        if arrangement_key(a.groups) not in keys:
            errors.append(f"not a complete arrangement of these cards (R6.1): {a}")
        if Counter(c for g in a.groups for c in g.cards) != cards:
            errors.append(f"cards differ from the input: {a}")
        if a.huxi != sum(g.huxi for g in a.groups) or a.huxi < case.min_huxi:
            errors.append(f"胡息 {a.huxi} is not the sum of the groups or below min_huxi: {a}")
        if a.duidui != all(g.kind.same_kind for g in a.groups) or a.loose:
            errors.append(f"wrong duidui flag or loose cards: {a}")
    if best:
        # min_huxi boundaries: the best shape survives at its own 胡息 and nothing survives above it.
        top = max(best.values())
        if arrangements(case.hand, case.table, case.card, source, min_huxi=top + 1):
            errors.append(f"complete with min_huxi={top + 1}")
        kept = {d for d, h in best.items() if h >= top}
        at_top = {a.duidui for a in arrangements(case.hand, case.table, case.card, source, min_huxi=top)}
        if at_top != kept:
            errors.append(f"shapes at min_huxi={top}: {at_top} != {kept}")
    return errors


def check_waits(case: Case) -> list[str]:
    got = waits(case.hand, case.table, min_huxi=case.min_huxi)
    want = ref_waits(case.hand, case.table, min_huxi=case.min_huxi)
    got_best = {k: {a.duidui: a.huxi for a in arrs} for k, arrs in got.items()}
    if got_best != want:
        return [f"waits {got_best} != reference {want}"]
    return []


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_r6_1_r6_2_arrangements_agree_with_reference(chunk: int) -> None:
    failures: list[str] = []
    complete = 0
    for i, case in enumerate(generate(seed=20_000 + chunk, n=PER_CHUNK)):
        errors = check_case(case)
        if i % WAITS_EVERY == 0:
            errors += check_waits(case)
        if errors:
            failures.append(f"{case}\n    " + "\n    ".join(errors))
        complete += is_complete(case.hand, case.table, case.card, Source(case.source), min_huxi=case.min_huxi)
    assert not failures, f"{len(failures)} of {PER_CHUNK} cases disagree:\n" + "\n".join(failures[:8])
    # The corpus must keep exercising both outcomes.
    assert PER_CHUNK * 0.2 < complete < PER_CHUNK * 0.6, complete
