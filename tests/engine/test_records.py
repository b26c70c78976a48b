"""Self-contained records (R2 decision, docs/engine.md §8): the deal, the rules, every action and the result;
``replay`` checks the deal against the seed, replays from the deal alone without one, checks the result,
and still reads format 1. Every record validates against ``docs/record.schema.json``."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from paohuzi.engine import (
    CLASSIC_FORMAT_VERSION,
    FORMAT_VERSION,
    EngineError,
    Hand,
    HandRecord,
    Match,
    MatchRecord,
    ReplayError,
    replay,
    replay_match,
)
from paohuzi.rules import find_preset

from .helpers import QQ, W_HANDS, deal, play

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "record.schema.json").read_text())
FORMAT_1 = Path(__file__).resolve().parent / "records" / "format1_qq_seed7000000.json"


def schema_errors(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """The JSON Schema (2020-12) keywords docs/record.schema.json uses, checked; one message per problem."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return schema_errors(value, SCHEMA["$defs"][name], path)
    errors: list[str] = []
    types = {"string": str, "integer": int, "boolean": bool, "object": dict, "array": list, "null": type(None)}
    if "type" in schema:
        allowed = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        ok = any(
            isinstance(value, types[t]) and not (t == "integer" and isinstance(value, bool)) for t in allowed
        )
        if not ok:
            return [f"{path}: {value!r} is not of type {allowed}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        errors.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, int) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: {value} < {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: {value} > {schema['maximum']}")
    if "oneOf" in schema:
        matching = [s for s in schema["oneOf"] if not schema_errors(value, s, path)]
        if len(matching) != 1:
            errors.append(f"{path}: {value!r} matches {len(matching)} of oneOf, not 1")
    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                errors.append(f"{path}: missing {key!r}")
        props = schema.get("properties", {})
        for key, item in value.items():
            if key in props:
                errors += schema_errors(item, props[key], f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected key {key!r}")
        for key, needs in schema.get("dependentRequired", {}).items():
            if key in value:
                errors += [f"{path}: {key!r} needs {n!r}" for n in needs if n not in value]
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append(f"{path}: {len(value)} items < {schema['minItems']}")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{path}: {len(value)} items > {schema['maxItems']}")
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else schema.get("items")
            if sub is not None:
                errors += schema_errors(item, sub, f"{path}[{i}]")
    return errors


def _played(rules_name: str, seed: int, **options: Any) -> Hand:
    rules = find_preset(rules_name).with_options(**options) if options else find_preset(rules_name)
    rng = random.Random(seed)
    hand = Hand(rules, seed=seed, double_cards=(1,) if seed % 5 == 0 else ())
    while not hand.over:
        if rng.random() < 0.003:
            hand.leave(rng.choice(hand.seats))
            break
        seat = rng.choice(hand.deciding)
        hand.apply(seat, rng.choice(hand.legal_actions(seat)))
    return hand


RECORDS = [
    *(_played("qq", s).record() for s in range(12)),
    *(_played("hunan", s, four_players=True).record() for s in range(6)),
    *(_played("huayang", s).record() for s in range(6)),
    deal(W_HANDS, stock="x10").record(),  # stacked: no seed
    Hand(find_preset("qq"), seed=3).record(),  # not over: no result
]


@pytest.mark.parametrize("index", range(len(RECORDS)))
def test_records_validate_against_the_schema(index: int) -> None:
    record = json.loads(json.dumps(RECORDS[index]))
    assert schema_errors(record, SCHEMA) == []
    assert record["format_version"] == CLASSIC_FORMAT_VERSION == 2 < FORMAT_VERSION  # classic records stay format 2


def test_the_schema_check_catches_a_bad_record() -> None:
    record = json.loads(json.dumps(RECORDS[0]))
    record["dealt"]["stock"][0] = "x11"
    record["seed"] = -1
    del record["rng_version"]
    assert sorted(schema_errors(record, SCHEMA)) == [
        "$.dealt.stock[0]: 'x11' does not match ^[xd]([1-9]|10)$",
        "$.seed: -1 < 0",
        "$: 'seed' needs 'rng_version'",
    ]


def test_r2_a_record_carries_the_deal_the_actions_and_the_result() -> None:
    hand = deal(W_HANDS, stock="x10")
    play(hand, "0: discard x2", "1: hu")
    record = hand.record()
    dealt = record["dealt"]
    assert [len(h) for h in dealt["hands"]] == [21, 20, 20] and len(dealt["stock"]) == 19
    assert dealt["hands"][0][20] == str(hand.liangzhang)  # the dealer's 21st card is the 亮张 (R2)
    assert dealt["stock"][0] == "x10"
    result = record["result"]
    assert result["kind"] == "hu" and result["winner"] == 1 and result["payments"] == [-12, 24, -12]
    assert result == hand.outcome.to_dict()  # type: ignore[union-attr]


@pytest.mark.parametrize("index", range(len(RECORDS)))
def test_r2_replay_without_the_seed_deals_the_recorded_cards(index: int) -> None:
    record = json.loads(json.dumps(RECORDS[index]))
    full = replay(record)
    record.pop("seed", None)
    record.pop("rng_version", None)
    again = replay(record)
    assert again.events == full.events and again.outcome == full.outcome
    assert again.seed is None and again.record() == record


def test_r2_replay_checks_the_deal_against_the_seed() -> None:
    record = _played("qq", 4).record()
    hands = record["dealt"]["hands"]
    hands[1][0], record["dealt"]["stock"][0] = record["dealt"]["stock"][0], hands[1][0]
    if hands[1][0] == record["dealt"]["stock"][0]:
        pytest.skip("swapped equal cards")
    with pytest.raises(ReplayError, match=r"the recorded deal is not what seed 4 deals .*seat 1 is dealt"):
        replay(record)


def test_r7_3_replay_checks_the_recorded_result() -> None:
    record = _played("qq", 1).record()
    assert record["result"] is not None
    record["result"] = {**record["result"], "huxi": record["result"]["huxi"] + 1}
    with pytest.raises(ReplayError, match="the recorded result is not the one the actions reach"):
        replay(record)
    assert replay(record, upto=len(record["actions"])).over  # a partial replay does not check it


def test_format_1_records_still_replay() -> None:
    """A record stored by format 1 (tests/golden/simulate_qq_records: seed 7000000, greedy in seat 1)."""
    old = json.loads(FORMAT_1.read_text())
    assert old["format_version"] == 1 and "dealt" not in old and old["deal"] == 0  # simulate's deal number
    hand = replay(old)
    assert hand.outcome is not None and hand.outcome.winner == 1 and hand.outcome.huxi == 15
    assert hand.outcome.payments == (-12, 24, -12)  # simulate's points [-4, 8, -4] × stake 3
    new = hand.record()
    for key in ("seed", "rng_version", "dealer", "actions"):
        assert new[key] == old[key]
    assert {k: new["rules"][k] for k in old["rules"]} == old["rules"]  # new options may have been added
    assert replay(new).events == hand.events


def test_a_seedless_hand_needs_the_dealer_and_the_deck() -> None:
    with pytest.raises(EngineError, match="a hand without a seed needs the dealer and the deck"):
        Hand(find_preset("qq"), seed=None, dealer=0)


# -- typed records (issue 28): HandRecord / MatchRecord ------------------------------------------------------

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def test_hand_record_reads_and_writes_every_golden_record_key_for_key() -> None:
    """``HandRecord.from_dict(r).to_dict()`` is ``r`` itself, keys in the same order (JSON byte-identical),
    for the stored golden records, a format 1 record and a hand's own record."""
    paths = sorted((GOLDEN / "simulate_qq_records").iterdir())[:20] + [FORMAT_1]
    records = [json.loads(p.read_text()) for p in paths]
    hand = Hand(QQ, seed=11, double_cards=(2,))
    rng = random.Random(4)
    while not hand.over:
        seat = hand.deciding[0]
        hand.apply(seat, rng.choice(hand.legal_actions(seat)))
    records.append(hand.record())
    for rec in records:
        known = {k: v for k, v in rec.items() if k not in ("bots", "deal", "seating")}  # simulate's own keys
        assert json.dumps(HandRecord.from_dict(known).to_dict()) == json.dumps(known)
    assert replay(HandRecord.from_dict(hand.record())).events == hand.events


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ([1, 2], "a record is an object, got list"),
        ({"actions": []}, "record dealer must be a seat, got None"),
        ({"dealer": 0, "actions": "discard x7"}, r"record actions must be a list of \[seat, action\]"),
        ({"dealer": 0, "actions": [[0, 7]]}, r"action 0: expected \[seat, action\], got \[0, 7\]"),
        ({"dealer": 0, "actions": [], "seed": "7"}, "record seed must be an int, got '7'"),
        ({"dealer": 0, "actions": [], "double_cards": [True]}, "record double_cards must be a list of seats"),
    ],
)
def test_hand_record_from_dict_names_the_bad_field(record: Any, message: str) -> None:
    with pytest.raises(ReplayError, match=message):
        HandRecord.from_dict(record)


def test_match_record_round_trip_and_one_action_back() -> None:
    match = Match(QQ, seed=21, hands=3)
    rng = random.Random(2)
    while not match.over:
        if match.hand.over:
            match.next_hand()
            continue
        s = rng.choice(match.deciding)
        match.apply(s, rng.choice(match.legal_actions(s)))
        if len(match.results) == 1 and len(match.hand.actions) == 5:
            break
    typed = match.typed_record()
    assert typed == MatchRecord.from_dict(match.record())
    assert json.dumps(typed.to_dict()) == json.dumps(match.record())
    assert replay_match(typed).record() == match.record()
    back = typed.without_last_action()
    assert back.records[-1].actions == typed.records[-1].actions[:-1] and back.records[:-1] == typed.records[:-1]
    earlier = match.without_last_action()
    assert earlier.hand.actions == match.hand.actions[:-1] and earlier.totals == match.totals
    assert earlier.record() == back.to_dict()
    with pytest.raises(ReplayError, match="not a match record"):
        MatchRecord.from_dict({"kind": "hand"})
    with pytest.raises(ReplayError, match="match record has no 'seed'"):
        MatchRecord.from_dict({"kind": "match", "rules": {}})


def test_last_action_is_the_action_applied() -> None:
    """``Hand.last_action``: the legal Action ``apply`` played and its seat (its text is the log's), None
    before the first and after 逃跑."""
    hand = Hand(QQ, seed=8)
    assert hand.last_action is None
    rng = random.Random(5)
    for _ in range(12):
        if hand.over:
            break
        seat = rng.choice(hand.deciding)
        action = rng.choice(hand.legal_actions(seat))
        hand.apply(seat, str(action))  # as text: last_action is still the legal Action
        assert hand.last_action == (seat, action)
        assert hand.actions[-1] == (seat, str(action))
    if not hand.over:
        hand.leave(hand.seats[0])
        assert hand.last_action is None
