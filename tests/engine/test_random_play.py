"""Random play: 30,240 hands per run across every preset (and four_players, and win_on_discard) — 20,160 of them
under a random combination of the R8.1 house options and R7.3 双倍积分卡 on top of the preset, 10,080 under the
preset as it is — with random legal actions and the odd 逃跑, checking after every step:

- the 80 cards are conserved, each in exactly one place (hand, table, row, stock, the card on offer);
- hand + table counts satisfy R4.6 (nobody holds more than the rule allows; exactly one more while owing);
- every seat that must decide has legal actions, and every other seat has none;
- observations (of a sample of hands, every step) hold no card their seat may not see (R5);
- every event's per-seat version hides what R5 hides;
- every finished hand's settlement sums to zero (except a winning 双倍积分卡 holder's doubled gain, R7.3), the
  sitting-out seat pays nothing, 放炮包赔 leaves the third seat out, the points respect 封顶 and 起胡 (R8.1);
- under 有胡必胡 no seat is ever asked about a 胡 (R8.1 must_hu);
- ``replay`` of the record reproduces the hand event for event, with the same final state.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from paohuzi.cards import Card
from paohuzi.engine import Hand, replay
from paohuzi.groups import GroupKind
from paohuzi.rules import CAP_VALUES, MIN_HUXI_VALUES, ZIMO_MODES, RuleSet, find_preset

CONFIGS: dict[str, RuleSet] = {
    "qq": find_preset("qq"),
    "hengyang": find_preset("hengyang"),
    "hunan": find_preset("hunan"),
    "huayang": find_preset("huayang"),
    "hunan-four": find_preset("hunan").with_options(four_players=True),
    "qq-win-on-discard": find_preset("qq").with_options(win_on_discard=True),
}
HANDS_PER_CHUNK = 1680  # two in three under random house options: 18 × 1,120 = 20,160 (issue 11: ≥ 20,000)
CHUNKS = [(name, i) for name in CONFIGS for i in range(3)]  # 6 × 3 × 1,680 = 30,240 hands
OBSERVE_EVERY = 10  # full observation checks on one hand in ten


def _check_conservation(hand: Hand) -> None:
    counts = [0] * 20
    st = hand._st
    for p in st.players:
        for k, n in enumerate(p.hand):
            counts[k] += n
        for g in p.table:
            for c in g.cards:
                counts[c] += 1
        for c, _ in p.row:
            counts[c] += 1
    for c in st.stock[st.spos :]:
        counts[c] += 1
    if hand.phase == "claim":
        counts[st.card] += 1
    outcome = hand.outcome
    if outcome is not None and outcome.source in ("self", "other", "discard"):
        counts[outcome.card] += 1  # type: ignore[index]
    assert counts == [4] * 20, f"cards not conserved: {counts}"


def _check_counts(hand: Hand) -> None:
    """R4.6: hand + table ≤ 20 (14 on R9.3's 15-card hands) + max(0, n − 1), plus one for the seat that owes a
    discard now."""
    owing = hand.deciding[0] if hand.phase == "discard" else None
    # Who may hold one card more than the limit without being asked to discard yet: the drawer deciding
    # whether to 胡 after a forced 提/偎, the dealer before the 亮张 天胡 is answered, anyone when the hand
    # ended in the middle of a turn (胡, 逃跑, or a dealt 天胡).
    may_owe = set(hand.deciding) if hand.phase == "self_hu" else {hand.dealer} if hand.phase == "liangzhang" else set()
    if hand.over:
        may_owe = set(hand.seats)
    for s in hand.seats:
        p = hand._st.players[s]
        if p.dead:
            continue
        total = p.size + p.tsize
        limit = hand.rules.discard_base + max(0, p.fours - 1)
        if s == owing:
            assert total == limit + 1, (s, total, limit)
        else:
            assert total <= limit + (s in may_owe), (s, total, limit, hand.phase)
        assert all(n < 4 for n in p.hand)  # four of a kind never stay in a hand (R3)


def _check_deciding(hand: Hand) -> None:
    if hand.over:
        assert hand.deciding == ()
    else:
        assert hand.deciding
    for s in range(hand.table_size):
        acts = hand.legal_actions(s)
        assert bool(acts) == (s in hand.deciding)
        if acts:
            assert len(set(acts)) == len(acts)


def _cards_in(value: Any, out: Counter[str]) -> None:
    if isinstance(value, str):
        if value[:1] in ("x", "d") and value[1:].isdigit():
            out[value] += 1
    elif isinstance(value, list):
        for v in value:
            _cards_in(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _cards_in(v, out)


def _check_observation(hand: Hand, seat: int) -> None:
    obs = hand.observation(seat).to_dict()
    over = hand.over
    shown = over or hand.rules.mingwei  # 明偎 (R9.3): every 偎 face up
    assert obs["hand"] == [str(c) for c in hand.hand_of(seat)]
    assert ("hands" in obs) == over
    # What the seat may see, as a multiset of cards (R5).
    allowed: Counter[str] = Counter(str(c) for c in hand.hand_of(seat))
    for s in range(hand.table_size):
        for g in hand.table_of(s):
            if g.kind is GroupKind.WEI and s != seat and not shown:
                continue
            allowed.update(str(Card(c)) for c in g.cards)
        allowed.update(str(Card(c)) for c, _ in hand._st.players[s].row)
    if hand.phase == "claim":
        allowed[str(Card(hand._st.card))] += 1
    seen: Counter[str] = Counter()
    skip = ("legal", "liangzhang", "outcome", "hands", "rules", "chou")  # not cards: kinds, or shown below
    public = {k: v for k, v in obs.items() if k not in skip}
    _cards_in(public, seen)
    assert seen == allowed, (seat, seen - allowed, allowed - seen)
    for s, groups in enumerate(obs["tables"]):
        for g in groups:
            if g["cards"] is None:
                assert g["kind"] == "wei" and s != seat and not shown


def _check_events(hand: Hand) -> None:
    seats = range(hand.table_size)
    for e in hand.events:
        for seat in seats:
            seen = e.for_seat(seat)
            if e.to is not None and e.to != seat:
                assert seen is None
                continue
            assert seen is not None
            if e.type == "deal":
                assert [h is not None for h in seen["hands"]] == [s == seat for s in seats]
            elif e.type == "draw" and e.seat != seat:  # type: ignore[attr-defined]
                assert seen["card"] is None
            elif e.type == "wei" and e.seat != seat and not e.chou:  # type: ignore[attr-defined]
                # hidden unless 明偎 (R9.3), which shows every 偎 to everyone
                assert (seen["card"] is None) == (not hand.rules.mingwei)


def _house_options(rules: RuleSet, rng: random.Random) -> tuple[RuleSet, tuple[int, ...]]:
    """A random R8.1 option combination on top of the preset, and random 双倍积分卡."""
    options: dict[str, Any] = {
        "min_huxi": rng.choice(MIN_HUXI_VALUES),
        "zimo": rng.choice(ZIMO_MODES),
        "cap": rng.choice(CAP_VALUES),
        "must_hu": rng.random() < 0.5,
        "discarder_pays": rng.random() < 0.5,
        "stake": rng.choice((0, 1, 2, 5, 1000)),
    }
    for flag in ("win_on_discard", "chou_blocks_peng", "tianhu_on_liangzhang", "tianhu_double_huxi"):
        if rng.random() < 0.3:
            options[flag] = not getattr(rules, flag)
    n = rules.players_at_table
    cards = tuple(s for s in range(n) if rng.random() < 0.2)
    return rules.with_options(**options), cards


def _check_settlement(hand: Hand) -> None:
    """R7.3 / R8.1: who pays what at the end of a hand."""
    outcome = hand.outcome
    assert outcome is not None
    rules = hand.rules
    pays = outcome.payments
    if hand.sitting_out is not None:
        assert pays[hand.sitting_out] == 0
    if outcome.kind != "hu":
        assert sum(pays) == 0
        return
    winner = outcome.winner
    assert winner is not None
    gain = outcome.points * rules.stake * (len(hand.seats) - 1)
    assert pays[winner] == gain * (2 if winner in hand.double_cards else 1)  # R7.3 双倍积分卡: own gain only
    assert sum(pays) == pays[winner] - gain
    losers = [s for s in hand.seats if s != winner]
    if outcome.source == "discard" and rules.discarder_pays:  # 放炮包赔
        payer = hand._st.actor
        assert [pays[s] for s in losers] == [-gain if s == payer else 0 for s in losers]
    else:
        assert all(pays[s] == -outcome.points * rules.stake for s in losers)
    score = outcome.score
    assert outcome.points == score.points >= 0
    if rules.cap:
        assert score.points == min(score.uncapped, rules.cap)
    if outcome.source != "dealt":  # the dealt 天胡 has no 胡息 minimum (R6.4)
        assert outcome.huxi >= rules.min_huxi
    assert score.zimo_double == (score.zimo and rules.zimo == "double")


def _play(rules: RuleSet, seed: int, observe: bool, double_cards: tuple[int, ...] = ()) -> Hand:
    rng = random.Random(seed)
    hand = Hand(rules, seed=seed, double_cards=double_cards)
    steps = 0
    while True:
        _check_conservation(hand)
        _check_counts(hand)
        _check_deciding(hand)
        if rules.must_hu:
            assert all("hu" not in map(str, hand.legal_actions(s)) for s in hand.deciding)
        if observe:
            for s in range(hand.table_size):
                _check_observation(hand, s)
        if hand.over:
            break
        if rng.random() < 0.001:
            hand.leave(rng.choice(hand.seats))
            continue
        seat = rng.choice(hand.deciding)
        hand.apply(seat, rng.choice(hand.legal_actions(seat)))
        steps += 1
        assert steps < 500
    return hand


@pytest.mark.soak  # 30,240 random hands (~170 s in all)
@pytest.mark.parametrize(("config", "chunk"), CHUNKS, ids=[f"{n}-{i}" for n, i in CHUNKS])
def test_random_play_invariants_and_replay(config: str, chunk: int) -> None:
    preset = CONFIGS[config]
    kinds: Counter[str] = Counter()
    for i in range(HANDS_PER_CHUNK):
        seed = chunk * 100_000 + i + 7_000_000 * list(CONFIGS).index(config)
        rules, double_cards = (preset, ()) if i % 3 == 0 else _house_options(preset, random.Random(-seed))
        hand = _play(rules, seed, observe=i % OBSERVE_EVERY == 0, double_cards=double_cards)
        outcome = hand.outcome
        assert outcome is not None
        kinds[outcome.kind] += 1
        _check_settlement(hand)
        if i % 5 == 0:
            _check_events(hand)
        again = replay(hand.record())
        assert again.events == hand.events
        assert again.outcome == hand.outcome
    assert kinds["hu"] > 0 and kinds["draw"] > 0
