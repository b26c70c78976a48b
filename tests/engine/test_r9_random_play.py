"""Random play over the R9 presets (changde, changde_qmt, shihuka) with the engine's invariants
(``test_random_play.py``: conservation, R4.6 counts, deciding seats, R5 observations and events, the
settlement — 十胡卡's discarder paying every share, R9.2 — and replay event for event), under the preset and
under random values of the family's own options (``paohuzi.rules.family_options``), and whole matches
(黄番's count, R9.1) replayed from their records."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from paohuzi.engine import Match, replay
from paohuzi.engine.match import replay_match
from paohuzi.rules import RuleSet, family_options, find_preset

from .test_random_play import _check_events, _check_settlement, _play

PRESETS = ("changde", "changde_qmt", "shihuka")
HANDS = 600  # per preset and chunk: 3 × 2 × 600 = 3,600 hands


def _family_rules(preset: RuleSet, rng: random.Random) -> RuleSet:
    """The preset under a random value of each option its family offers (R9), stake kept above 0."""
    options: dict[str, Any] = {}
    for name, values in family_options(preset).items():
        if name in ("stake", "rounds", "four_players", "first_dealer") or rng.random() < 0.5:
            continue
        options[name] = rng.choice(values)
    return preset.with_options(**options)


def _check_family_result(hand: Any) -> None:
    outcome = hand.outcome
    result = outcome.to_dict()
    record = hand.record()
    assert record["format_version"] == 3
    if outcome.kind.value != "hu":
        assert "xing_card" not in result  # 荒庄 and 逃跑 have no 醒 (R9.4)
        return
    assert {"tun", "xing", "xing_card", "combine"} <= set(result)
    hu = next(e for e in hand.events if e.type == "hu").to_dict()
    assert (hu["tun"], hu["xing"], hu["xing_card"]) == (result["tun"], result["xing"], result["xing_card"])
    if hand.rules.xing == "none":
        assert result["xing_card"] is None and result["xing"] == 0
    else:
        assert result["xing_card"] is not None and 0 <= result["xing"] <= 4
    if hand.rules.family == "changde":
        assert outcome.source.value != "discard"  # R9.1: only drawn cards are won


@pytest.mark.soak  # 3,600 random hands
@pytest.mark.parametrize(("preset", "chunk"), [(p, c) for p in PRESETS for c in range(2)])
def test_r9_random_play_invariants_and_replay(preset: str, chunk: int) -> None:
    base = find_preset(preset)
    kinds: Counter[str] = Counter()
    for i in range(HANDS):
        seed = 9_000_000 + 100_000 * PRESETS.index(preset) + 10_000 * chunk + i
        rules = base if i % 3 == 0 else _family_rules(base, random.Random(-seed))
        hand = _play(rules, seed, observe=i % 10 == 0)
        kinds[hand.outcome.kind.value] += 1  # type: ignore[union-attr]
        _check_settlement(hand)
        _check_family_result(hand)
        if i % 5 == 0:
            _check_events(hand)
        again = replay(hand.record())
        assert again.events == hand.events and again.outcome == hand.outcome
    assert kinds["hu"] > 0 and kinds["draw"] > 0


@pytest.mark.parametrize("preset", PRESETS)
def test_r9_random_matches_count_drawn_hands_and_replay(preset: str) -> None:
    rules = find_preset(preset)
    if "huangfan" in family_options(rules):
        rules = rules.with_options(huangfan=True)
    rng = random.Random(preset)
    match = Match(rules, seed=11, hands=12)
    streak = 0
    while not match.over:
        if match.hand.over:
            streak = streak + 1 if match.hand.outcome.kind.value == "draw" else 0  # type: ignore[union-attr]
            match.next_hand()
            assert match.hand.drawn_before == streak
            continue
        seat = match.deciding[0]
        acts = [str(a) for a in match.legal_actions(seat)]
        # mostly decline 胡, so that 荒庄 come in a row now and then
        hu = "hu" in acts and rng.random() < 0.3
        match.apply(seat, "hu" if hu else rng.choice([a for a in acts if a != "hu"] or acts))
    again = replay_match(match.record())
    assert again.totals == match.totals and [r.outcome for r in again.results] == [r.outcome for r in match.results]
