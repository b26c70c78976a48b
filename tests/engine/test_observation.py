"""The typed observation (R5): its JSON form is the documented dict, read back exactly; ``unseen`` counts."""

from __future__ import annotations

import json
import random

import pytest

from paohuzi.cards import Card
from paohuzi.engine import Hand, Observation, ObservationError, Phase
from paohuzi.rules import find_preset

from .helpers import BASE, deal, play, swap

WEI_SEAT1 = {1: swap(BASE[1], "x4 x8", "d4 d4")}


def _random_observations(rules: str, seeds: range) -> list[tuple[Hand, Observation]]:
    out = []
    for seed in seeds:
        rng = random.Random(seed)
        hand = Hand(find_preset(rules), seed=seed)
        while True:
            for s in range(hand.table_size):
                out.append((hand, hand.observation(s)))
            if hand.over:
                break
            seat = rng.choice(hand.deciding)
            hand.apply(seat, rng.choice(hand.legal_actions(seat)))
    return out


@pytest.mark.parametrize("rules", ["qq", "hunan"])
def test_r5_observation_json_form_reads_back_exactly(rules: str) -> None:
    for _, obs in _random_observations(rules, range(6)):
        data = obs.to_dict()
        assert Observation.from_dict(json.loads(json.dumps(data))) == obs
        assert Observation.from_dict(data).to_dict() == data


def test_r5_unseen_is_what_the_seat_has_not_seen() -> None:
    for hand, obs in _random_observations("qq", range(4)):
        if hand.over:
            continue
        seen = [0] * 20
        for c in hand.hand_of(obs.seat):
            seen[c] += 1
        for s in range(hand.table_size):
            for g in hand.table_of(s):
                if not (g.kind.value == "wei" and s != obs.seat):
                    for c in g.cards:
                        seen[c] += 1
        for row in obs.rows:
            for e in row:
                seen[e.card] += 1
        if obs.pending is not None:
            seen[obs.pending.card] += 1
        assert obs.unseen() == tuple(4 - x for x in seen)
        hidden = sum(hand.hand_of(s).__len__() for s in range(hand.table_size) if s != obs.seat)
        hidden += 3 * sum(obs.hidden_wei()) + obs.stock
        assert sum(obs.unseen()) == hidden


def test_r5_observation_fields_are_typed() -> None:
    hand = deal(WEI_SEAT1, stock="d4")
    play(hand, "0: discard x2")
    obs = hand.observation(2)
    assert obs.tables[1] == (None,)  # seat 1's 偎 d4 is hidden from seat 2 (R5)
    assert obs.hidden_wei() == (0, 1, 0)
    assert hand.observation(1).tables[1][0] is not None
    assert obs.rows[0][0].card is Card.X2 and obs.rows[0][0].discarded
    assert obs.phase in (Phase.DISCARD, Phase.CLAIM) and obs.phase == obs.phase.value


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"hand": ["x11"]}, "observation hand: not a card: 'x11'"),
        ({"phase": "lunch"}, "observation phase: 'lunch' is not a valid Phase"),
        ({"tables": [[{"kind": "peng", "cards": None}], [], []]}, "observation tables: only a 偎 may hide its cards"),
    ],
)
def test_observation_from_dict_names_what_is_wrong(change: dict[str, object], message: str) -> None:
    data = Hand(find_preset("qq"), seed=1).observation(0).to_dict()
    data.update(change)
    with pytest.raises(ObservationError, match=message):
        Observation.from_dict(data)



def test_observation_from_dict_names_a_missing_key() -> None:
    data = Hand(find_preset("qq"), seed=1).observation(0).to_dict()
    del data["stock"]
    with pytest.raises(ObservationError, match="missing key 'stock'"):
        Observation.from_dict(data)
