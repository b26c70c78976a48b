"""The batched environment's compiled tensor (``paohuzi._accel_tensor``, issue 36): loaded exactly when built
and wanted, refused when stale, and writing exactly :func:`featurize_bytes` at every step of random hands in
every rule set the environment takes (the R9 families, four at the table with one sitting out, 六胡抢's 15-card
deal with 4 and 3 players, 一五十 and 明偎), at any place in a buffer, with every seat observed — so that
``BatchEnv``'s observations are the same on both paths (``test_batch.py`` compares them with ``env()``)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paohuzi.engine import Hand, Observation
from paohuzi.env import batch
from paohuzi.env.actions import action_ids
from paohuzi.env.aec import make_rules
from paohuzi.env.features import featurize_bytes
from paohuzi.rules import preset_names

from ..support.accel import PURE_FORCED, built, check_a_stale_copy_is_refused, check_loaded_when_built

BUILT = bool(built("_accel_tensor"))
needs_build = pytest.mark.skipif(not batch.ACCELERATED, reason="needs the built compiled tensor")

RULES: list[Any] = [
    *preset_names(),
    {"name": "hunan", "four_players": True},
    {"name": "liuhuqiang", "players": 3},
    {"name": "liuhuqiang", "yiwushi": True, "mingwei": True},
]


def compare_random_hands(rules: Any, seed: int, hands: int) -> int:
    """Every seat in play at every decision of ``hands`` random hands (and once each is over): the compiled
    tensor, written at an odd place in a dirty buffer, equals ``featurize_bytes``. Returns the comparisons."""
    accel = batch._ACCEL
    assert accel is not None
    ruleset = make_rules(rules)
    rng = random.Random(seed)
    compared = 0
    for _ in range(hands):
        hand = Hand(ruleset, seed=rng.randrange(2**32))
        while True:
            for s in hand.observation(0).seats:  # the seats in play (not one sitting out)
                obs = hand.observation(s)
                expected = bytes(featurize_bytes(obs))
                buffer = bytearray(b"\xff" * (len(expected) + 10))
                accel.featurize_into(obs, buffer, 7)
                assert bytes(buffer[7 : 7 + len(expected)]) == expected, (rules, seed, s, obs.to_dict())
                assert buffer[:7] == b"\xff" * 7 and buffer[7 + len(expected) :] == b"\xff" * 3
                compared += 1
            if hand.over:
                break
            seat = hand.deciding[0]
            hand.apply(seat, rng.choice(hand.observation(seat).legal))
    return compared


def test_loaded_exactly_when_built_and_wanted() -> None:
    check_loaded_when_built(batch.ACCELERATED, "_accel_tensor", "the compiled tensor")


@needs_build
@pytest.mark.parametrize("rules", RULES, ids=str)
def test_thousands_of_steps_equal_featurize_bytes(rules: Any) -> None:
    assert compare_random_hands(rules, seed=36, hands=25) >= 2000


@needs_build
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rules=st.sampled_from(RULES))
def test_any_seed_equals_featurize_bytes(seed: int, rules: Any) -> None:
    assert compare_random_hands(rules, seed, hands=1) > 0


@needs_build
def test_a_tensor_that_does_not_fit_is_refused() -> None:
    accel = batch._ACCEL
    assert accel is not None
    obs = Hand(make_rules("qq"), seed=1).observation(0)
    for buffer, start in ((bytearray(605), 0), (bytearray(700), 100), (bytearray(700), -1)):
        with pytest.raises(ValueError, match="does not fit"):
            accel.featurize_into(obs, buffer, start)


@needs_build
@pytest.mark.parametrize("rules", ["qq", {"name": "liuhuqiang", "yiwushi": True, "mingwei": True}], ids=str)
def test_fresh_objects_give_the_same_tensor(rules: Any) -> None:
    """Observations read back from their JSON form hold their own cards, row cards and groups (not the
    engine's shared instances, which the compiled tensor remembers by identity): the same values."""
    accel = batch._ACCEL
    assert accel is not None
    ruleset = make_rules(rules)
    rng = random.Random(7)
    compared = 0
    for _ in range(6):
        hand = Hand(ruleset, seed=rng.randrange(2**32))
        while not hand.over:
            seat = hand.deciding[0]
            obs = Observation.from_dict(hand.observation(seat).to_dict())
            expected = bytes(featurize_bytes(obs))
            buffer = bytearray(len(expected))
            accel.featurize_into(obs, buffer, 0)
            assert bytes(buffer) == expected
            compared += 1
            hand.apply(seat, rng.choice(hand.observation(seat).legal))
    assert compared > 100


@needs_build
def test_rows_write_the_seat_tensor_and_mask_of_each_row() -> None:
    """``Rows.observe``: row i gets the deciding seat, its tensor and its legal IDs, and no other row changes."""
    accel = batch._ACCEL
    assert accel is not None
    ruleset = make_rules("qq")
    hands = [Hand(ruleset, seed=s) for s in (3, 4)]
    tensors = np.full((2, 606), 9, np.uint8)
    masks = np.full((2, 115), 5, np.int8)
    seats = np.full(2, -1, np.int64)
    rows = accel.Rows(tensors, masks, seats)
    obs = rows.observe(hands[1], 1)
    seat = hands[1].deciding[0]
    assert obs == hands[1].observation(seat)
    assert seats.tolist() == [-1, seat]
    assert bytes(tensors[1]) == bytes(featurize_bytes(obs))
    expected = np.zeros(115, np.int8)
    expected[action_ids(obs.legal)] = 1
    assert masks[1].tolist() == expected.tolist() and expected.sum() == len(obs.legal)
    assert tensors[0].tolist() == [9] * 606 and masks[0].tolist() == [5] * 115


@needs_build
def test_rows_refuse_what_does_not_fit() -> None:
    accel = batch._ACCEL
    assert accel is not None
    with pytest.raises(ValueError, match="one row per hand"):
        accel.Rows(np.zeros((2, 606), np.uint8), np.zeros((3, 115), np.int8), np.zeros(2, np.int64))
    with pytest.raises(ValueError):  # not the dtype of a row's values
        accel.Rows(np.zeros((2, 606), np.float32), np.zeros((2, 115), np.int8), np.zeros(2, np.int64))
    rows = accel.Rows(np.zeros((2, 606), np.uint8), np.zeros((2, 115), np.int8), np.zeros(2, np.int64))
    hand = Hand(make_rules("qq"), seed=1)
    with pytest.raises(IndexError, match="row 2 of 2"):
        rows.observe(hand, 2)
    four = Hand(make_rules({"name": "liuhuqiang"}), seed=1)  # 4 in play: 752 values
    with pytest.raises(ValueError, match="does not fit"):
        rows.observe(four, 0)
    narrow = accel.Rows(np.zeros((1, 606), np.uint8), np.zeros((1, 5), np.int8), np.zeros(1, np.int64))
    with pytest.raises(ValueError, match="out of range for 5 IDs"):  # the dealer's discards of x6 … d10
        narrow.observe(hand, 0)


@pytest.mark.skipif(not BUILT or PURE_FORCED, reason="needs a built accelerator")
def test_a_stale_build_is_not_used(tmp_path: Path) -> None:
    """A copy of the package whose _accel_tensor.pyx differs from the one the module was built from runs Python."""
    check_a_stale_copy_is_refused(tmp_path, "paohuzi.env.batch", "_accel_tensor")
