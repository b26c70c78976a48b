"""Verifiable deals (可验证发牌, issue 32): the rng_version 2 derivation (engine/fair.py), hands, matches and
records dealt from a FairSeed, and verify_record naming what differs in a tampered record.

R2's decision still holds: a hand is reproducible from (rules, seeds, actions)."""

from __future__ import annotations

import copy
import hashlib
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paohuzi.cards import full_deck
from paohuzi.engine import (
    FAIR_RNG_VERSION,
    EngineError,
    FairError,
    FairSeed,
    Hand,
    Match,
    MatchError,
    ReplayError,
    commitment_of,
    fair_shuffled,
    replay,
    replay_match,
    verify_record,
)
from paohuzi.engine.fair import parse_client_seed
from paohuzi.rules import find_preset

QQ = find_preset("qq")
DECK = tuple(full_deck())


def seeds(i: int, seats: int = 3) -> FairSeed:
    """Deterministic seeds for test ``i``: the server seed SHA-256(i), client seeds of 0–32 bytes."""
    server = hashlib.sha256(f"server {i}".encode()).digest()
    clients = tuple(hashlib.sha256(f"client {i} {s}".encode()).digest()[: (i + 7 * s) % 33] for s in range(seats))
    return FairSeed(server, clients)


def played(hand: Hand) -> Hand:
    """Play the hand to its end, each decision the first legal action."""
    while not hand.over:
        seat = hand.deciding[0]
        hand.apply(seat, hand.legal_actions(seat)[0])
    return hand


# ---- the derivation ---------------------------------------------------------------------------------------


def test_known_answer_the_documented_example() -> None:
    """The example of docs/engine.md §8 (and web/js/fair.js): server seed 00 01 … 1f, client seeds 01, "", ""."""
    fair = FairSeed(bytes(range(32)), (b"\x01", b"", b""))
    assert fair.commitment == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    dealer, deck = fair_shuffled(fair, 3, None, DECK)
    assert dealer == 0
    # pinned: a change of the derivation must bump rng_version (old records would deal otherwise)
    assert " ".join(map(str, deck[:10])) == "d2 x8 d3 d7 d3 x2 x2 d1 d10 x3"
    assert sorted(deck) == sorted(DECK)


def test_commitment_is_sha256_of_the_server_seed() -> None:
    seed = bytes(range(32))
    assert commitment_of(seed) == hashlib.sha256(seed).hexdigest() == FairSeed(seed, (b"",) * 3).commitment


def test_a_given_dealer_does_not_change_the_deck() -> None:
    fair = seeds(5)
    drawn, deck = fair_shuffled(fair, 3, None, DECK)
    for dealer in range(3):
        assert fair_shuffled(fair, 3, dealer, DECK) == (dealer, deck)


def test_every_input_changes_the_deck() -> None:
    base = fair_shuffled(seeds(1), 3, 0, DECK)[1]
    other_server = FairSeed(bytes(32), seeds(1).client_seeds)
    other_client = FairSeed(seeds(1).server_seed, (b"\x00", *seeds(1).client_seeds[1:]))
    moved_seed = FairSeed(seeds(1).server_seed, seeds(1).client_seeds[::-1])
    for fair in (other_server, other_client, moved_seed):
        assert fair_shuffled(fair, 3, 0, DECK)[1] != base


def _chi2_limit(df: int, z: float) -> float:
    """The chi-square value a statistic with ``df`` degrees of freedom exceeds with the normal tail of ``z``
    (Wilson–Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


@pytest.mark.soak  # 100,000 shuffles (~14 s of CPU): make test runs it, make test-fast leaves it out
def test_each_cards_position_is_uniform_over_100000_decks() -> None:
    """Chi-square over 100,000 deterministic decks: each of the 80 cards (as a physical card, its index in
    kind order) is equally likely at each of the 80 places, and the dealer draw at each of 3 seats."""
    n = 100_000
    places = np.zeros((80, 80), dtype=np.int64)
    dealers = np.zeros(3, dtype=np.int64)
    cards = tuple(range(80))
    rows = np.empty((n, 80), dtype=np.int64)
    for i in range(n):
        dealer, deck = fair_shuffled(
            FairSeed(i.to_bytes(32, "big"), (b"", (i % 7).to_bytes(1, "big"), b"")), 3, None, cards
        )
        rows[i] = deck
        dealers[dealer] += 1
    for place in range(80):
        places[:, place] = np.bincount(rows[:, place], minlength=80)
    expected = n / 80
    per_card = ((places - expected) ** 2 / expected).sum(axis=1)
    limit = _chi2_limit(79, 4.0)  # each card: p ≈ 3e-5
    assert per_card.max() < limit, (int(per_card.argmax()), float(per_card.max()), limit)
    total = float(per_card.sum())
    assert total < _chi2_limit(79 * 79, 4.0), total
    assert total > _chi2_limit(79 * 79, -4.0), total  # not too regular either
    chi_dealer = float(((dealers - n / 3) ** 2 / (n / 3)).sum())
    assert chi_dealer < _chi2_limit(2, 4.0), dealers


# ---- bad input -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("server", "clients", "says"),
    [
        (bytes(31), (b"",) * 3, "server seed is 32 bytes"),
        ("00" * 32, (b"",) * 3, "server seed is 32 bytes"),
        (bytes(32), (), "one client seed per seat"),
        (bytes(32), (bytes(33), b"", b""), "seat 0's client seed is at most 32 bytes"),
    ],
)
def test_bad_seeds_are_refused_naming_what(server: Any, clients: Any, says: str) -> None:
    with pytest.raises(FairError, match=says):
        FairSeed(server, clients)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("abc", "hex digits"),
        ("zz", "hex digits"),
        ("a b ", "hex digits"),
        ("00" * 33, "at most 32 bytes"),
        (7, "hex string"),
    ],
)
def test_bad_client_seed_text_is_refused(text: Any, says: str) -> None:
    with pytest.raises(FairError, match=says):
        parse_client_seed(text)


def test_a_hand_needs_one_client_seed_per_seat_at_the_table() -> None:
    with pytest.raises(EngineError, match="3 seats, 2 client seeds"):
        Hand(QQ, FairSeed(bytes(32), (b"", b"")))
    with pytest.raises(MatchError, match="FairSeed"):
        Match(QQ, 1, fair="00" * 32)  # type: ignore[arg-type]


# ---- hands, records, replays ------------------------------------------------------------------------------


def test_r2_a_fair_hand_is_reproducible_from_rules_seeds_and_actions() -> None:
    hand = played(Hand(QQ, seeds(3)))
    rec = hand.record()
    assert rec["rng_version"] == FAIR_RNG_VERSION and "seed" not in rec
    assert rec["fair"] == {
        "commitment": seeds(3).commitment,
        "server_seed": seeds(3).server_seed.hex(),
        "client_seeds": [c.hex() for c in seeds(3).client_seeds],
    }
    assert list(rec)[:5] == ["format_version", "rules", "rng_version", "fair", "dealer"]
    again = replay(rec)
    assert again.events == hand.events and again.record() == rec
    assert hand.fair == seeds(3) and hand.seed is None


def test_rng_version_1_records_are_unchanged() -> None:
    rec = Hand(QQ, 42).record()
    assert rec["seed"] == 42 and rec["rng_version"] == 1 and "fair" not in rec
    assert replay(rec).record() == rec


def test_replay_refuses_a_mixed_or_mislabelled_record() -> None:
    rec = Hand(QQ, seeds(2)).record()
    with pytest.raises(ReplayError, match="rng_version 1"):
        replay({**rec, "rng_version": 1})
    with pytest.raises(ReplayError, match="not both"):
        replay({**rec, "seed": 5})
    with pytest.raises(ReplayError, match="does not match the commitment"):
        replay({**rec, "fair": {**rec["fair"], "commitment": "00" * 32}})
    with pytest.raises(ReplayError, match="client_seeds"):
        replay({**rec, "fair": {**rec["fair"], "client_seeds": "ab"}})


def test_a_match_deals_fair_hands_and_replays_them() -> None:
    """The first hand's dealer is the fair draw's (R2 定庄, verifiable); later hands follow the winner (R2)."""
    fair = seeds(11)
    match = Match(QQ, 9, hands=3, fair=fair)
    assert match.dealer == match.hand.dealer == fair_shuffled(fair, 3, None, DECK)[0]
    for k in range(3):
        while not match.hand.over:
            seat = match.deciding[0]
            match.apply(seat, match.legal_actions(seat)[0])
        if not match.over:
            match.next_hand(fair=seeds(20 + k))
    rec = match.record()
    assert [r["rng_version"] for r in rec["records"]] == [2, 2, 2]
    again = replay_match(rec)
    assert again.totals == match.totals and again.record() == rec
    owner = Match(QQ.with_options(first_dealer="owner"), 9, owner=2, fair=fair)
    assert owner.hand.dealer == 2  # R8.1: the owner deals, whatever the draw


# ---- verify_record -----------------------------------------------------------------------------------------


def _record() -> dict[str, Any]:
    return played(Hand(QQ, seeds(4))).record()


def test_verify_a_true_record() -> None:
    rec = _record()
    assert verify_record(rec).ok
    assert verify_record(rec, commitment=seeds(4).commitment).ok


def test_verify_names_two_swapped_cards() -> None:
    rec = copy.deepcopy(_record())
    dealer = rec["dealer"]
    hand, stock = rec["dealt"]["hands"][dealer], rec["dealt"]["stock"]
    j = next(k for k in range(19) if stock[k] != hand[2])
    hand[2], stock[j] = stock[j], hand[2]
    verdict = verify_record(rec)
    assert verdict.verifiable and not verdict.ok
    assert verdict.problems == (
        f"cards swapped: seat {dealer}'s card 3 is {hand[2]} and the stock's card {j + 1} is {stock[j]}; "
        "the seeds deal them the other way round",
    )


def test_verify_names_a_changed_client_seed() -> None:
    rec = copy.deepcopy(_record())
    rec["fair"]["client_seeds"][1] = "ab"
    (problem,) = verify_record(rec).problems
    assert problem.startswith("a client seed changed: the server seed and client seeds deal another deck (")


def test_verify_names_a_changed_server_seed() -> None:
    rec = copy.deepcopy(_record())
    rec["fair"]["server_seed"] = "11" * 32
    problems = verify_record(rec).problems
    assert problems[0].startswith(f"server seed changed: SHA-256(server_seed) is {commitment_of(bytes([0x11]) * 32)}")


def test_verify_names_a_commitment_other_than_the_one_sent_before_the_deal() -> None:
    (problem,) = verify_record(_record(), commitment="ff" * 32).problems
    assert problem.startswith("commitment changed:")


def test_verify_says_an_old_hand_is_not_verifiable() -> None:
    verdict = verify_record(Hand(QQ, 5).record())
    assert not verdict.verifiable and verdict.problems == (
        "not verifiable (rng_version 1): dealt from a seed the server kept, with no commitment",
    )


@settings(max_examples=40, deadline=None)
@given(
    server=st.binary(min_size=32, max_size=32),
    clients=st.lists(st.binary(max_size=32), min_size=3, max_size=3),
    dealer=st.none() | st.integers(0, 2),
)
def test_any_seeds_deal_a_verifiable_permutation(server: bytes, clients: list[bytes], dealer: int | None) -> None:
    fair = FairSeed(server, tuple(clients))
    drawn, deck = fair_shuffled(fair, 3, dealer, DECK)
    assert sorted(deck) == sorted(DECK) and 0 <= drawn < 3 and (dealer is None or drawn == dealer)
    assert fair_shuffled(fair, 3, dealer, DECK) == (drawn, deck)
    assert verify_record(Hand(QQ, fair, dealer).record()).ok


def test_a_fair_record_validates_against_the_schema() -> None:
    from .test_records import SCHEMA, schema_errors

    rec = _record()
    assert schema_errors(rec, SCHEMA) == []
    bad = copy.deepcopy(rec)
    bad["fair"]["server_seed"] = "XYZ"
    del bad["rng_version"]
    errors = schema_errors(bad, SCHEMA)
    assert any("server_seed" in e for e in errors) and any("rng_version" in e for e in errors), errors


@pytest.mark.parametrize("players", [4, 3])
def test_r9_3_a_fifteen_card_deal_is_verifiable(players: int) -> None:
    """The deal layout comes from the rules (R9.3: 15 cards to the dealer, 14 to each other player)."""
    rules = find_preset("liuhuqiang").with_options(players=players)
    fair = seeds(8, rules.players_at_table)
    rec = played(Hand(rules, fair)).record()
    assert [len(h) for h in rec["dealt"]["hands"]].count(14) == players - 1 and verify_record(rec).ok
    dealer = rec["dealer"]
    bad = copy.deepcopy(rec)
    hand = bad["dealt"]["hands"][dealer]
    k = next(k for k in range(1, 15) if hand[k] != hand[0])
    hand[0], hand[k] = hand[k], hand[0]
    assert verify_record(bad).problems[0].startswith(f"cards swapped: seat {dealer}'s card 1 is {hand[0]} and ")
    assert replay(rec).record() == rec
