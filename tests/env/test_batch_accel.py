"""The batched environment's compiled tensor (``paohuzi._accel_tensor``, issue 36): loaded exactly when built
and wanted, refused when stale, and writing exactly :func:`featurize_bytes` at every step of random hands in
every rule set the environment takes (the R9 families, four at the table with one sitting out, 六胡抢's 15-card
deal with 4 and 3 players, 一五十 and 明偎), at any place in a buffer, with every seat observed — so that
``BatchEnv``'s observations are the same on both paths (``test_batch.py`` compares them with ``env()``)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paohuzi.engine import Hand
from paohuzi.env import batch
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


@pytest.mark.skipif(not BUILT or PURE_FORCED, reason="needs a built accelerator")
def test_a_stale_build_is_not_used(tmp_path: Path) -> None:
    """A copy of the package whose _accel_tensor.pyx differs from the one the module was built from runs Python."""
    check_a_stale_copy_is_refused(tmp_path, "paohuzi.env.batch", "_accel_tensor")
