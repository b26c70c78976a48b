"""The compiled split search (``paohuzi._accel_bots``) answers exactly as the Python one of paohuzi.bots.evaluation.

- It is loaded whenever it was built, and not under ``PAOHUZI_PURE=1`` (``make test`` runs these tests both ways).
- On thousands of seeded hands its value for every number of groups, with and without a 将 (R6.1), equals the
  Python search's; so do ``reach3`` and ``useful_cards`` with table groups, the accelerator switched off.
- A memo too small for one search (cleared again and again while it runs) changes nothing; input it does not
  take (a slot of 3+, over 60 bits, a count of groups outside 0 … 7) is handed back (None).
- A build whose ``_accel_bots.pyx`` was edited since is refused (stale).
"""

from __future__ import annotations

import random
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from paohuzi.bots import evaluation
from paohuzi.cards import NUM_KINDS, Card, full_deck
from paohuzi.groups import MIXED_SHAPES, Group, GroupKind

from ..support.accel import PURE_FORCED, built, check_a_stale_copy_is_refused, check_loaded_when_built
from ..support.accel import python_only as accel_python_only

BUILT = built("_accel_bots")
needs_accel = pytest.mark.skipif(not evaluation.ACCELERATED, reason="the compiled split search is not loaded")


def test_accelerator_loaded_exactly_when_built_and_wanted() -> None:
    check_loaded_when_built(evaluation.ACCELERATED, "_accel_bots", "the compiled split search")


def python_only() -> AbstractContextManager[None]:
    """Switch the accelerator off for the calls in the block."""
    return accel_python_only(evaluation)


def _packed_hands(seed: int, n: int, most: int = 27) -> list[int]:
    """Packed free cards as ``_split`` makes them (at most 2 a kind): dealt hands of 0 … ``most`` cards."""
    rng = random.Random(seed)
    deck = [int(c) for c in full_deck()]
    hands = [0]
    for _ in range(n):
        counts = [0] * NUM_KINDS
        for k in rng.sample(deck, rng.randint(1, most)):
            counts[k] += 1
        hands.append(sum(min(c, 2) * evaluation._ONE[evaluation._SLOT[k]] for k, c in enumerate(counts) if c < 3))
    return hands


def _disagreements(hands: list[int]) -> list[tuple[int, int, int, int, int]]:
    accel = evaluation._ACCEL
    assert accel is not None
    bad = []
    for packed in hands:
        for pair in (0, 1):
            want = evaluation._search(packed, pair)
            for g in range(evaluation._G):
                expected = (want >> (evaluation._W * g) & evaluation._NONE) - evaluation._OFFSET
                got = accel.field(packed, pair, g)
                if got != expected:
                    bad.append((packed, pair, g, got, expected))
    return bad


@needs_accel
def test_every_field_equals_the_python_search_on_3000_hands() -> None:
    bad = _disagreements(_packed_hands(seed=15, n=3000))
    assert not bad, bad[:3]


@needs_accel
def test_a_tiny_memo_changes_nothing() -> None:
    accel = evaluation._ACCEL
    assert accel is not None
    accel.memo_bits(6)  # cleared at 32 entries: a search of many cards recomputes (slowly), so hands ≤ 16 cards
    try:
        bad = _disagreements(_packed_hands(seed=16, n=300, most=16))
    finally:
        accel.memo_bits(18)
    assert not bad, bad[:3]


def _table(rng: random.Random) -> list[Group]:
    """A few table groups: 句/绞 from the R3 shape table, 碰/偎, and now and then a 跑/提 (a 将 needed, R6.1)."""
    out = []
    for _ in range(rng.randint(0, 4)):
        roll = rng.random()
        if roll < 0.5:
            shape = rng.choice(MIXED_SHAPES)
            out.append(Group.chi([Card(c) for c in shape.cards]))
        else:
            kind = rng.choice((GroupKind.PENG, GroupKind.WEI, GroupKind.PAO, GroupKind.TI))
            out.append(Group(kind, (Card(rng.randrange(NUM_KINDS)),) * kind.size))
    return out


@needs_accel
def test_reach_and_useful_cards_equal_python_with_tables() -> None:
    rng = random.Random(1515)
    deck = [int(c) for c in full_deck()]
    live = [4 - (k % 3) for k in range(NUM_KINDS)]
    for _ in range(600):
        counts = [0] * NUM_KINDS
        for k in rng.sample(deck, rng.randint(2, 21)):
            counts[k] += 1
        table = _table(rng)
        for m in (0, 10, 15):
            got = (evaluation.reach3(counts, table, m), evaluation.useful_cards(counts, table, live, m))
            with python_only():
                want = (evaluation.reach3(counts, table, m), evaluation.useful_cards(counts, table, live, m))
            assert got == want, (counts, table, m)


@needs_accel
def test_input_it_does_not_take_is_handed_back() -> None:
    accel = evaluation._ACCEL
    assert accel is not None
    three = 3 * evaluation._ONE[0]
    refused = ((three, 0, 1), (-1, 0, 0), (1 << 60, 0, 0), (1, 0, 8), (1, 0, -1), (1, 2, 0), ("1", 0, 0))
    for packed, pair, groups in refused:
        assert accel.field(packed, pair, groups) is None, (packed, pair, groups)
    # The Python search still answers for a slot of three (the caller never packs one: 坎 are taken out).
    assert evaluation._field(three, 0, 1) == (evaluation._search(three, 0) >> evaluation._W & evaluation._NONE) - (
        evaluation._OFFSET
    )


@pytest.mark.skipif(not BUILT or PURE_FORCED, reason="needs a built accelerator")
def test_a_stale_build_is_not_used(tmp_path: Path) -> None:
    """A copy of the package whose _accel_bots.pyx differs from the one the module was built from runs Python."""
    check_a_stale_copy_is_refused(tmp_path, "paohuzi.bots.evaluation", "_accel_bots")
